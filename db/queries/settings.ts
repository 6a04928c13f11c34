import { get, run, sql, type ReadableDB, type WritableDB } from '../sql';

export function getSetting<T>(db: ReadableDB, key: string): T | undefined {
  const row = get<{ value: string }>(db, sql`SELECT value FROM settings WHERE key = ${key}`);
  return row ? (JSON.parse(row.value) as T) : undefined;
}

export function setSetting(db: WritableDB, key: string, value: unknown): void {
  run(
    db,
    sql`INSERT INTO settings (key, value) VALUES (${key}, ${JSON.stringify(value)})
        ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
  );
}
