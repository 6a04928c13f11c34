import { describe, expect, it } from 'vitest';
import { all, explain, get, run, sql, transaction } from '../../db/sql';
import { memoryDb } from '../helpers/db';

describe('sql tagged template', () => {
  it('keeps values out of the query text', () => {
    const name = "Robert'); DROP TABLE datasets;--";
    const q = sql`SELECT * FROM datasets WHERE name = ${name} AND id > ${3}`;
    expect(q.text).toBe('SELECT * FROM datasets WHERE name = ? AND id > ?');
    expect(q.params).toEqual([name, 3]);
  });

  it('nests fragments and joins them with their parameters in order', () => {
    const where = sql.join([sql`a = ${1}`, sql`b IN ${sql.list(['x', 'y'])}`], sql` AND `);
    const q = sql`SELECT 1 WHERE ${where} LIMIT ${10}`;
    expect(q.text).toBe('SELECT 1 WHERE a = ? AND b IN (?, ?) LIMIT ?');
    expect(q.params).toEqual([1, 'x', 'y', 10]);
  });

  it('turns booleans into 0/1 and undefined into NULL', () => {
    expect(sql`${true}, ${false}, ${undefined}`.params).toEqual([1, 0, null]);
  });

  it('an empty list matches nothing instead of producing invalid SQL', () => {
    const db = memoryDb();
    expect(all(db, sql`SELECT 1 AS x WHERE 1 IN ${sql.list([])}`)).toEqual([]);
  });

  it('checks identifiers', () => {
    expect(sql.id('datasets').text).toBe('"datasets"');
    expect(() => sql.id('datasets; DROP TABLE x')).toThrow(/Not a valid SQL identifier/);
    expect(() => sql.id('a"b')).toThrow();
  });

  it('runs queries, and a failing transaction leaves nothing behind', () => {
    const db = memoryDb();
    run(db, sql`INSERT INTO datasets (name, source_format) VALUES (${'a'}, ${'musique'})`);
    expect(() =>
      transaction(db, () => {
        run(db, sql`INSERT INTO datasets (name, source_format) VALUES (${'b'}, ${'musique'})`);
        run(db, sql`INSERT INTO datasets (name, source_format) VALUES (${'a'}, ${'musique'})`);
      }),
    ).toThrow(/UNIQUE/);
    expect(all<{ name: string }>(db, sql`SELECT name FROM datasets`).map((r) => r.name)).toEqual(['a']);
    expect(get<{ n: number }>(db, sql`SELECT count(*) AS n FROM datasets`)?.n).toBe(1);
    expect(explain(db, sql`SELECT * FROM datasets WHERE name = ${'a'}`).join(' ')).toMatch(/USING INDEX/);
  });
});
