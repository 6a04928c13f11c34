import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../db/connection';
import { migrate } from '../../db/migrate';
import { migrations } from '../../db/migrations';
import { PLACED_SORTS, setFenceRows } from '../../db/queries/instances-order';
import { orderCountErrors } from '../../db/queries/instances-order-checks';
import { countInstances, pageIdsQuery, positionPageIds, readInstancePage } from '../../db/queries/instances';
import { all, sql, type WritableDB } from '../../db/sql';
import { InstanceQuery, INSTANCE_SORT_COLUMNS, type InstanceFilter } from '../../shared/api';
import { memoryDb, ROOT, tempDir } from '../helpers/db';
import { plansOf } from '../helpers/query-plans';
import { randomInstanceQueries } from '../helpers/instance-queries';

/** The sorts the order tables keep (the topic's is walked or sorted instead). */
const PLACED = INSTANCE_SORT_COLUMNS.filter((sort) => PLACED_SORTS.includes(sort));
import { fillInstances, rng } from '../helpers/synthetic';

/**
 * Pages found through the order counts of migration 0017 against the same pages read the plain
 * way (all matching rows sorted, then OFFSET), on the same data: every sort, both directions,
 * filters of every kind, offsets anywhere, through writes of every kind, with fences small
 * enough that they split and empty many times over.
 */

const FILTERS: Partial<InstanceFilter>[] = [
  {},
  { types: ['semantic'] },
  { statuses: ['ready'] },
  { datasets: [2] },
  { hops: [3] },
  { hops: [0] },
  { types: ['constraint'], statuses: ['removed'] },
  { types: ['syntactic'], hops: [2, 0] },
  { datasets: [1], statuses: ['building', 'removed'], hops: [4] },
];

const plain = (db: WritableDB, q: InstanceQuery) => all<{ id: number }>(db, pageIdsQuery(q, 'filter-then-sort')).map((r) => r.id);
const byPosition = (db: WritableDB, q: InstanceQuery) => positionPageIds(db, q, countInstances(db, q));

function randomQueries(seed: number, count: number, rows: number, sorts: readonly InstanceQuery['sort'][] = PLACED): InstanceQuery[] {
  return randomInstanceQueries(seed, count, { filters: FILTERS, offset: (random) => Math.floor(random() * (rows + 50)), maxLimit: 150, sorts });
}

/** Each query's offset is taken within its own filter's rows (and a little past them). */
function expectSamePages(db: WritableDB, queries: InstanceQuery[]): void {
  let nonEmpty = 0;
  for (const query of queries) {
    const q = { ...query, offset: query.offset % (countInstances(db, query) + 10) };
    const expected = plain(db, q);
    expect(byPosition(db, q), JSON.stringify(q)).toEqual(expected);
    if (expected.length) nonEmpty++;
  }
  // The offsets reach past the end on purpose; most pages still hold rows.
  expect(nonEmpty).toBeGreaterThan(queries.length / 2);
}

/** Writes of every kind the triggers must follow, chosen at random. */
function randomWrites(db: WritableDB, seed: number, count: number): void {
  const random = rng(seed);
  const rows = () => all<{ id: number }>(db, sql`SELECT id FROM instances`).map((r) => r.id);
  const ids = rows();
  const some = () => ids[Math.floor(random() * ids.length)]!;
  const questions = all<{ id: number }>(db, sql`SELECT id FROM base_questions`).map((r) => r.id);
  const question = () => questions[Math.floor(random() * questions.length)]!;
  const statuses = ['building', 'ready', 'removed'];
  for (let k = 0; k < count; k++) {
    const r = random();
    const id = some();
    if (r < 0.3) {
      // A topic too, or none (the topic sort's cells follow it).
      const domain = [null, 'history', 'music', 'unknown'][Math.floor(random() * 4)]!;
      db.prepare(`UPDATE instances SET updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now', ?), stage = 'clarify', domain = ? WHERE id = ?`).run(`+${k} seconds`, domain, id);
    }
    else if (r < 0.5) {
      const status = statuses[Math.floor(random() * 3)]!;
      db.prepare('UPDATE instances SET status = ?, removed_reason = ? WHERE id = ?').run(status, status === 'removed' ? 'test' : null, id);
    } else if (r < 0.6) db.prepare('UPDATE instances SET interpretation_count = ?, hops = ? WHERE id = ?').run(Math.floor(random() * 6), random() < 0.2 ? null : 2, id);
    else if (r < 0.7) db.prepare('DELETE FROM instances WHERE id = ?').run(id);
    else if (r < 0.78) db.prepare('UPDATE base_questions SET question = ?, source_id = ? WHERE id = ?').run(`Which ${random()}?`, `moved-${k}`, question());
    else if (r < 0.8) db.prepare('DELETE FROM base_questions WHERE id = ?').run(question());
    else {
      db.prepare(
        `INSERT OR IGNORE INTO instances (base_question_id, dataset_id, ambiguity_type, status, stage, hops)
         SELECT id, dataset_id, 'unspecified', 'building', 'imported', hops FROM base_questions WHERE id = ?`,
      ).run(question());
    }
  }
}

function smallFences(rows = 3000): WritableDB {
  const db = memoryDb();
  setFenceRows(db, 8, 64);
  fillInstances(db, rows);
  return db;
}

describe('pages through the order counts', () => {
  it('are the pages of the plain query: every sort, direction and filter, offsets anywhere and past the end', () => {
    const db = smallFences();
    expect(orderCountErrors(db)).toEqual([]);
    // The small settings split the fences many times over while the table filled.
    expect(all<{ n: number }>(db, sql`SELECT count(*) AS n FROM instance_fences_question WHERE level = 0`)[0]!.n).toBeGreaterThan(3000 / 16);
    expectSamePages(db, randomQueries(3, 600, 3000));
  });

  it('stay exact through updates, deletes and inserts of instances, edited and deleted base questions, a deleted dataset', () => {
    const db = smallFences();
    randomWrites(db, 11, 2500);
    expect(orderCountErrors(db)).toEqual([]);
    expectSamePages(db, randomQueries(5, 400, 3000));
    db.exec('DELETE FROM datasets WHERE id = 2');
    expect(orderCountErrors(db)).toEqual([]);
    expectSamePages(db, randomQueries(7, 300, 2000));
  });

  it('drop fences that empty and keep each level\'s first fence, so an emptied table pages as an empty one', () => {
    const db = smallFences(600);
    const fences = () => all<{ n: number }>(db, sql`SELECT count(*) AS n FROM instance_fences_updated`)[0]!.n;
    expect(fences()).toBeGreaterThan(2);
    db.exec('DELETE FROM instances');
    expect(fences()).toBe(2);
    expect(orderCountErrors(db)).toEqual([]);
    for (const sort of PLACED) expect(byPosition(db, InstanceQuery.parse({ sort, offset: 0 }))).toEqual([]);
  });

  it('hold for an empty table, one instance, and a table refilled after emptying', () => {
    const db = memoryDb();
    const queries = randomQueries(9, 60, 3);
    for (const q of queries) expect(byPosition(db, q)).toEqual([]);
    fillInstances(db, 1);
    for (const q of queries) expect(byPosition(db, q), JSON.stringify(q)).toEqual(plain(db, q));
    expect(byPosition(db, InstanceQuery.parse({ sort: 'question', direction: 'desc' }))).toEqual([1]);
    db.exec('DELETE FROM base_questions');
    setFenceRows(db, 8, 64);
    fillInstances(db, 500, 21);
    expect(orderCountErrors(db)).toEqual([]);
    expectSamePages(db, randomQueries(13, 200, 500));
  });

  it('are the plan for deep pages, and fall back to walking, saying so, when the counts disagree with the table', () => {
    const db = smallFences(3000);
    const deep = InstanceQuery.parse({ sort: 'updated_at', statuses: ['ready', 'removed'], offset: 500, limit: 20 });
    const page = readInstancePage(db, deep);
    expect(page.plan).toBe('position');
    expect(page.fallback).toBeUndefined();
    expect(page.rows.map((r) => r.id)).toEqual(plain(db, deep));
    // A row written where the triggers did not see it (as a copy of the table made without them would be).
    const triggers = all<{ name: string; sql: string }>(db, sql`SELECT name, sql FROM sqlite_schema WHERE type = 'trigger' AND name LIKE 'instance_fences_updated%'`);
    for (const t of triggers) db.exec(`DROP TRIGGER ${t.name}`);
    db.exec(`INSERT INTO instances (base_question_id, dataset_id, ambiguity_type, status, stage) VALUES (3, 1, 'unspecified', 'ready', 'imported')`);
    // Either direction: a descending page sums the fences from the end, where the new row is.
    for (const q of [deep, { ...deep, direction: 'desc' as const }]) {
      const fallen = readInstancePage(db, q);
      expect(fallen.plan).toBe('walk-index');
      expect(fallen.fallback).toMatch(/order counts disagree/);
      expect(fallen.rows.map((r) => r.id)).toEqual(plain(db, q));
    }
  });

  it('walk the question order by the instances again, saying so, when its own table has missed a row', () => {
    const db = smallFences(3000);
    const deep = InstanceQuery.parse({ sort: 'question', types: ['semantic', 'syntactic'], offset: 700, limit: 25 });
    expect(readInstancePage(db, deep).plan).toBe('position');
    // The fences' triggers stay; only the question order's table misses the new row.
    for (const t of all<{ name: string }>(db, sql`SELECT name FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = 'instances' AND name LIKE 'instance_question_order%'`)) {
      db.exec(`DROP TRIGGER ${t.name}`);
    }
    db.exec(`INSERT INTO instances (base_question_id, dataset_id, ambiguity_type, status, stage) VALUES (3, 1, 'unspecified', 'ready', 'imported')`);
    expect(orderCountErrors(db).join('\n')).toMatch(/question order: instance \d+ in the table but not kept so/);
    for (const q of [deep, InstanceQuery.parse({ ...deep, types: ['constraint'], direction: 'desc' })]) {
      const fallen = readInstancePage(db, q);
      expect(fallen.plan).toBe('walk-index');
      expect(fallen.fallback).toMatch(/order counts disagree/);
      expect(fallen.rows.map((r) => r.id)).toEqual(plain(db, q));
    }
    // The other fence sorts still place their pages.
    expect(readInstancePage(db, { ...deep, sort: 'source_id' }).plan).toBe('position');
  });

  it('read the counts and the rows from one snapshot while another process writes the file', async () => {
    const tmp = tempDir();
    try {
      const file = tmp.file('shared.db');
      const db = openDatabase(file);
      setFenceRows(db, 8, 64);
      fillInstances(db, 2000);
      // The writer: plain better-sqlite3 in its own process, each change a transaction of its own.
      const writer = spawn(
        process.execPath,
        [
          '-e',
          `const db = new (require('better-sqlite3'))(process.argv[1]);
           db.pragma('busy_timeout = 5000');
           const move = db.prepare("UPDATE instances SET updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), status = ?, removed_reason = ? WHERE id = ?");
           const add = db.prepare("INSERT OR IGNORE INTO instances (base_question_id, dataset_id, ambiguity_type, status, stage) SELECT id, dataset_id, 'unspecified', 'ready', 'imported' FROM base_questions WHERE id = ?");
           const drop = db.prepare('DELETE FROM instances WHERE id = ?');
           for (let k = 0; k < 3000; k++) {
             const id = 1 + (k * 7919) % 2000;
             if (k % 3 === 0) move.run(k % 2 ? 'removed' : 'ready', k % 2 ? 'x' : null, id);
             else if (k % 3 === 1) add.run(1 + (k * 31) % 1000);
             else drop.run(id);
             if (k === 10) console.log('writing');
           }
           console.log('done');`,
          file,
        ],
        { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
      );
      const lines: string[] = [];
      writer.stdout.setEncoding('utf8').on('data', (chunk: string) => lines.push(...chunk.split('\n').filter(Boolean)));
      await once(writer.stdout, 'data');
      const queries = randomQueries(17, 400, 2000);
      let checked = 0;
      // Each comparison in one read transaction: both ways see the same snapshot of the file.
      for (const q of queries) {
        db.transaction(() => expect(byPosition(db, q), JSON.stringify(q)).toEqual(plain(db, q)))();
        checked++;
        if (lines.includes('done')) break;
      }
      const [code] = (await once(writer, 'exit')) as [number];
      expect(code).toBe(0);
      expect(checked).toBeGreaterThan(0);
      expect(orderCountErrors(db)).toEqual([]);
      expectSamePages(db, randomQueries(19, 200, 2000));
      db.close();
    } finally {
      tmp.cleanup();
    }
  }, 60_000);

  it('need nothing held in memory: a connection opened afresh finds a deep page from the file alone', () => {
    const tmp = tempDir();
    try {
      const file = tmp.file('cold.db');
      const writer = openDatabase(file);
      fillInstances(writer, 3000);
      const q = InstanceQuery.parse({ sort: 'question', direction: 'desc', statuses: ['ready', 'building'], offset: 700, limit: 50 });
      const expected = plain(writer, q);
      writer.close();
      const fresh = openDatabase(file);
      const page = readInstancePage(fresh, q);
      expect(page.plan).toBe('position');
      expect(page.rows.map((r) => r.id)).toEqual(expected);
      fresh.close();
    } finally {
      tmp.cleanup();
    }
  });

  it('read the counts through their keys, never scanning the instances', () => {
    const db = smallFences(2000);
    for (const sort of PLACED) {
      const plans = plansOf(db, (d) => positionPageIds(d, InstanceQuery.parse({ sort, types: ['semantic'], offset: 300 }), countInstances(d, InstanceQuery.parse({ types: ['semantic'] }))));
      // The block counts by their primary key, the fences by their key index, the topic's cells by theirs.
      const keyed = /SEARCH c USING PRIMARY KEY \(kind=\? AND shift=\?|SEARCH f USING COVERING INDEX instance_fences_\w+_key|SEARCH c USING PRIMARY KEY \(ANY\(dataset_id\) AND ambiguity_type=\?\)/;
      expect(plans.filter((p) => keyed.test(p)).length, sort).toBeGreaterThan(0);
      // No table is scanned (counting a walk's rows scans its own subquery; the table's total is
      // summed from its cells, a row per combination of the filter columns, as countInstances does;
      // the question order's row count is a table of one row, and its page `p` a subquery's rows).
      for (const p of plans) expect(p, sort).not.toMatch(/\bSCAN (?!\(subquery|cells\b|instance_question_order_rows$|p\b)/);
    }
  });
});

describe('migration 0017', () => {
  it('counts the rows of an existing table: pages agree before and after, and the triggers carry on from there', () => {
    const db = openDatabase(':memory:', { migrate: false });
    migrate(db, migrations.slice(0, migrations.findIndex((m) => m.name === 'instance-order')));
    fillInstances(db, 2500);
    // The topic sort needs the topic column, which a later migration adds.
    const queries = randomQueries(23, 200, 2500, PLACED.filter((sort) => sort !== 'domain'));
    const before = queries.map((q) => plain(db, q));
    migrate(db);
    expect(orderCountErrors(db)).toEqual([]);
    expect(queries.map((q) => byPosition(db, q))).toEqual(before);
    randomWrites(db, 29, 500);
    expect(orderCountErrors(db)).toEqual([]);
  });
});
