import type { WritableDB } from '../../db/sql';

/**
 * The plans of the statements a query function runs, read from the statements themselves (with
 * their parameters) rather than from a copy of their text: the database is wrapped so that every
 * statement it prepares reports what it runs.
 */
export function plansOf(target: WritableDB, call: (db: WritableDB) => unknown): string[] {
  const ran: { text: string; params: unknown[] }[] = [];
  const bound = (object: object, key: string | symbol) => {
    const value = Reflect.get(object, key, object) as unknown;
    return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(object) : value;
  };
  const spy = new Proxy(target, {
    get(db, key) {
      if (key !== 'prepare') return bound(db, key);
      return (text: string) =>
        new Proxy(db.prepare(text), {
          get(statement, name) {
            const method = bound(statement, name);
            if (typeof method !== 'function' || !['all', 'get', 'run', 'iterate'].includes(String(name))) return method;
            return (...params: unknown[]) => {
              ran.push({ text, params });
              return (method as (...args: unknown[]) => unknown)(...params);
            };
          },
        });
    },
  });
  call(spy);
  return ran.map(({ text, params }) =>
    (target.prepare(`EXPLAIN QUERY PLAN ${text}`).all(...params) as { detail: string }[]).map((r) => r.detail).join(' | '),
  );
}
