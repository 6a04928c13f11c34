import type { Migration } from '../migrate';

/**
 * Triggers whose UPDATE names its target table by an alias (`UPDATE t AS c SET … FROM …`, written
 * by migration 17's order-count and fence triggers) run correctly, but SQLite's schema check
 * rejects them ("no such column: c.n") whenever it re-reads the whole schema: `ALTER TABLE …
 * RENAME` and `… DROP COLUMN` on any table then fail. This rewrites each such statement to name
 * the table itself (`UPDATE t SET n = t.n - m.n …`), which means the same thing: inside these
 * statements every column of the target is qualified by its alias, and no subquery reuses the
 * alias. Every trigger is dropped and made again in the order it was first made, so triggers on the
 * same event keep firing in the same order.
 */
export const triggersWithoutUpdateAliases: Migration = {
  version: 22,
  name: 'triggers-without-update-aliases',
  up(db) {
    const triggers = db.prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY rowid`).all() as { name: string; sql: string }[];
    if (triggers.every((t) => withoutUpdateAliases(t.sql) === t.sql)) return;
    for (const t of triggers) db.exec(`DROP TRIGGER "${t.name}"`);
    for (const t of triggers) db.exec(withoutUpdateAliases(t.sql));
  },
};

const UPDATE_WITH_ALIAS = /UPDATE\s+(\w+)\s+AS\s+(\w+)\s+(SET\b[^;]*;)/gi;

/** A trigger's SQL with each `UPDATE table AS alias SET …;` naming the table instead of the alias. */
export function withoutUpdateAliases(sql: string): string {
  return sql.replace(UPDATE_WITH_ALIAS, (_, table: string, alias: string, rest: string) => `UPDATE ${table} ${rest.replace(new RegExp(`\\b${alias}\\.`, 'g'), `${table}.`)}`);
}
