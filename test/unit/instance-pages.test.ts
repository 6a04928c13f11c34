import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../db/connection';
import { migrate } from '../../db/migrate';
import { migrations } from '../../db/migrations';
import { choosePlan, countInstances, listInstances, mergeInstanceSearchIndex, pageIdsQuery, readInstancePage, writeInstanceSearchRow } from '../../db/queries/instances';
import { all, type WritableDB } from '../../db/sql';
import { toFtsQuery } from '../../shared/search';
import { InstanceQuery, type InstanceFilter } from '../../shared/api';
import { memoryDb, tempDir } from '../helpers/db';
import { randomInstanceQueries } from '../helpers/instance-queries';
import { fillInstances, rng, words } from '../helpers/synthetic';

/**
 * The instance table's pages as the app reads them (the plan chosen from the counts: a walk, a
 * sort of the matching rows, the order counts of migration 0017, or the search with the prefix
 * indexes of migrations 0018 and 0020, the one-letter prefix) against the straightforward query on a database holding the same
 * rows without those migrations: every matching row sorted, then OFFSET, and for a search the
 * FTS5 table as it was, without prefix indexes, merging the lists of every term a prefix starts.
 */

const FILTERS: Partial<InstanceFilter>[] = [
  {},
  { types: ['semantic'] },
  { statuses: ['removed'] },
  { datasets: [1] },
  { hops: [0] },
  { hops: [2, 4] },
  { types: ['syntactic'], statuses: ['ready', 'building'] },
  { datasets: [2], types: ['constraint'], statuses: ['ready'] },
];

/**
 * A database without migrations 0017, 0018 and 0020, which has only the plain way to a page: the
 * ones before them, then each other later one's step on its own (they add columns the rows need,
 * such as the topic, and none of them reads what 0017, 0018 and 0020 made).
 */
function plainDb(rows: number, seed: number): WritableDB {
  const db = openDatabase(':memory:', { migrate: false });
  const fast = migrations.findIndex((m) => m.name === 'instance-order');
  migrate(db, migrations.slice(0, fast));
  db.transaction(() => {
    for (const later of migrations.slice(fast + 2).filter((m) => m.name !== 'instance-search-one-letter-prefix')) later.up(db);
  })();
  if (rows) fillInstances(db, rows, seed);
  return db;
}

function fastDb(rows: number, seed: number): WritableDB {
  const db = memoryDb();
  if (rows) fillInstances(db, rows, seed);
  return db;
}

const plainIds = (db: WritableDB, q: InstanceQuery) =>
  all<{ id: number }>(db, pageIdsQuery(q, q.search.trim() ? 'search' : 'filter-then-sort')).map((r) => r.id);

/** The plain page's rows, every column the list shows, each read on its own with plain joins. */
const plainRows = (db: WritableDB, q: InstanceQuery) => {
  const row = db.prepare(
    `SELECT i.id, i.base_question_id AS baseQuestionId, i.dataset_id AS datasetId, d.name AS dataset, b.source_id AS sourceId,
            b.question, i.ambiguity_type AS ambiguityType, i.status, i.stage, i.hops, i.interpretation_count AS interpretationCount,
            i.removed_reason AS removedReason, i.updated_at AS updatedAt, i.domain, i.answerability
     FROM instances i JOIN base_questions b ON b.id = i.base_question_id JOIN datasets d ON d.id = i.dataset_id WHERE i.id = ?`,
  );
  return plainIds(db, q).map((id) => row.get(id));
};

/** Searches as someone types them: a whole word and the start of another, a lone prefix, a miss. */
function searchText(random: () => number): string {
  const r = random();
  if (r < 0.4) return '';
  const word = words(random, 1);
  const next = words(random, 1);
  if (r < 0.6) return `${word} ${next.slice(0, 2 + Math.floor(random() * 3))}`;
  if (r < 0.75) return next.slice(0, 1 + Math.floor(random() * 5));
  if (r < 0.9) return word;
  return `${word} zzqx`;
}

function randomQueries(seed: number, count: number, rows: number): InstanceQuery[] {
  return randomInstanceQueries(seed, count, {
    filters: FILTERS,
    search: searchText,
    // Offsets at the start (where a walk is chosen), anywhere, and past the end.
    offset: (random) => (random() < 0.3 ? Math.floor(random() * 40) : Math.floor(random() * (rows + 50))),
    maxLimit: 120,
  });
}

/** Returns how many pages held rows and which plans answered, so a test can say it reached them. */
function expectSamePages(fast: WritableDB, plain: WritableDB, queries: InstanceQuery[]) {
  const plans = new Set<string>();
  let nonEmpty = 0;
  for (const query of queries) {
    // Each offset within its own result (and a little past it), so deep pages are not all empty.
    const q = { ...query, offset: query.offset % (countInstances(plain, query) + 10) };
    const page = readInstancePage(fast, q);
    // Every column of every row, whichever way the page was read (a walk may read the rows itself).
    const expected = plainRows(plain, q);
    expect(page.rows, JSON.stringify(q)).toEqual(expected);
    expect(page.fallback, JSON.stringify(q)).toBeUndefined();
    expect(countInstances(fast, q), JSON.stringify(q)).toBe(countInstances(plain, q));
    plans.add(page.plan);
    if (expected.length) nonEmpty++;
  }
  return { plans, nonEmpty };
}

describe('instance pages as the app reads them', () => {
  it('are the plain query\'s pages on the same rows: every sort, direction, filter and search, any offset', () => {
    const fast = fastDb(4000, 31);
    const plain = plainDb(4000, 31);
    const { plans, nonEmpty } = expectSamePages(fast, plain, randomQueries(37, 700, 4000));
    // Every way to a page was taken and checked.
    expect([...plans].sort()).toEqual(['filter-then-sort', 'position', 'search', 'search-walk', 'walk-index']);
    expect(nonEmpty).toBeGreaterThan(350);
    // The rows as the list returns them are the plain database's, for each sort (those placed by fences read their rows as they walk).
    for (const sort of ['updated_at', 'question', 'source_id', 'domain', 'status'] as const) {
      const q = InstanceQuery.parse({ sort, direction: 'desc', statuses: ['ready'], offset: 900, limit: 30 });
      expect(listInstances(fast, q), sort).toEqual(plainRows(plain, q));
      expect(listInstances(fast, q).length, sort).toBe(30);
    }
  });

  it('rank a search the same way, to the bit, with the prefix indexes and without', () => {
    const fast = fastDb(3000, 41);
    const plain = plainDb(3000, 41);
    const random = rng(43);
    let found = 0;
    for (let k = 0; k < 60; k++) {
      const text = `${words(random, 1)} ${words(random, 1).slice(0, 1 + (k % 4))}`;
      const q = InstanceQuery.parse({ search: text, sort: 'relevance', limit: 200 });
      const ranks = (db: WritableDB) =>
        db.prepare(`SELECT rowid AS id, rank FROM instances_fts WHERE instances_fts MATCH ? ORDER BY rank, rowid`).all(toFtsQuery(text, { prefixLast: true }));
      expect(ranks(fast), text).toEqual(ranks(plain));
      found += ranks(fast).length;
      expect(readInstancePage(fast, q).rows.map((r) => r.id), text).toEqual(plainIds(plain, q));
    }
    expect(found).toBeGreaterThan(100);
  });

  it('searched and sorted by a column, walk the sort index while the search matches many rows, and sort the matches otherwise', () => {
    const fast = fastDb(4000, 67);
    const plain = plainDb(4000, 67);
    // Searches by how many rows they match: the most (walked), a few hundred (above the cap on
    // counting them, 4000 / 16 here, so walked first), and few (sorted).
    const random = rng(71);
    const candidates = [...new Set(Array.from({ length: 400 }, () => words(random, 1)))];
    const matches = (text: string) => countInstances(plain, InstanceQuery.parse({ search: text }));
    const bySize = candidates.map((text) => ({ text, n: matches(text) })).sort((a, b) => b.n - a.n);
    const broad = bySize[0]!;
    const middle = bySize.find((c) => c.n < 1000 && c.n > 260)!;
    const rare = bySize.find((c) => c.n > 0 && c.n < 100)!;
    expect(broad.n).toBeGreaterThan(2000);
    const page = (input: Partial<InstanceQuery>) => {
      const q = InstanceQuery.parse({ limit: 40, ...input });
      const read = readInstancePage(fast, q);
      expect(read.rows, JSON.stringify(q)).toEqual(plainRows(plain, q));
      return read;
    };
    for (const sort of ['question', 'source_id', 'status', 'hops', 'updated_at', 'interpretation_count'] as const) {
      for (const direction of ['asc', 'desc'] as const) {
        // Near the start of a broad search: walked, a full page.
        expect(page({ search: broad.text, sort, direction }).plan, sort).toBe('search-walk');
        expect(page({ search: broad.text, sort, direction, statuses: ['ready'], types: ['semantic'] }).rows.length, sort).toBeGreaterThan(0);
        // The last rows of a search matching a few hundred: after a window, walking there costs more than sorting the matches.
        const deep = page({ search: middle.text, sort, direction, offset: middle.n - 30 });
        expect(deep.plan, sort).toBe('search');
        expect(deep.rows).toHaveLength(30);
        // Few matches: counted under the cap, sorted, never walked.
        expect(page({ search: rare.text, sort, direction }).plan, sort).toBe('search');
        // A filter that keeps none of the broad search's rows near the start, and a page past the end.
        page({ search: broad.text, sort, direction, statuses: ['removed'], hops: [4] });
        expect(page({ search: broad.text, sort, direction, offset: broad.n + 5 }).rows).toEqual([]);
      }
    }
  });

  it('are the same after the search index is merged in steps, which end once it is one segment', () => {
    const fast = fastDb(0, 0);
    const texts: [number, string, string][] = [];
    fillInstances(fast, 3000, 73, false, (id, question, interpretations) => texts.push([id, question, interpretations]));
    // Rows rewritten in 60 small commits, as the pipeline's stages rewrite them.
    for (let part = 0; part < 60; part++) {
      fast.transaction(() => {
        for (const [id, question, interpretations] of texts.slice(part * 50, part * 50 + 50)) {
          fast.prepare('DELETE FROM instances_fts WHERE rowid = ?').run(id);
          fast.prepare('INSERT INTO instances_fts (rowid, question, interpretations) VALUES (?, ?, ?)').run(id, question, interpretations);
        }
      })();
    }
    const segments = () => fast.prepare('SELECT count(DISTINCT segid) FROM instances_fts_idx').pluck().get() as number;
    expect(segments()).toBeGreaterThan(1);
    const queries = randomQueries(79, 150, 3000).filter((q) => q.search.trim());
    const before = queries.map((q) => readInstancePage(fast, q).rows);
    // Small steps, so that the merge takes several.
    const steps = mergeInstanceSearchIndex(fast, 8);
    let yields = 0;
    while (!steps.next().done) yields++;
    expect(yields).toBeGreaterThan(1);
    expect(segments()).toBe(1);
    expect(queries.map((q) => readInstancePage(fast, q).rows)).toEqual(before);
    // Nothing left to merge: the first step finds that and ends.
    const again = mergeInstanceSearchIndex(fast);
    expect(again.next()).toEqual({ done: true, value: 1 });
  });

  it('merge the search index only when it can at once: never waiting for another writer, never failing the writer that asked', () => {
    const temp = tempDir();
    const file = temp.file('merge.db');
    const db = openDatabase(file);
    fillInstances(db, 500, 3);
    for (let part = 0; part < 10; part++) db.transaction(() => writeInstanceSearchRow(db, 1 + part))();
    const segments = () => db.prepare('SELECT count(DISTINCT segid) FROM instances_fts_idx').pluck().get() as number;
    const other = openDatabase(file);
    other.exec('BEGIN IMMEDIATE');
    const started = performance.now();
    // Another connection holds the write lock: no step runs, nothing is thrown, nothing waits for its 5 s busy timeout.
    expect([...mergeInstanceSearchIndex(db)]).toEqual([]);
    expect(mergeInstanceSearchIndex(db).next()).toEqual({ done: true, value: 0 });
    expect(performance.now() - started).toBeLessThan(4000);
    other.exec('ROLLBACK');
    // Inside a write of its own caller's connection, it leaves the merge for later too.
    db.exec('BEGIN');
    expect(mergeInstanceSearchIndex(db).next()).toEqual({ done: true, value: 0 });
    db.exec('ROLLBACK');
    const before = segments();
    expect(before).toBeGreaterThan(1);
    for (const step of mergeInstanceSearchIndex(db)) void step;
    expect(segments()).toBe(1);
    other.close();
    db.close();
    temp.cleanup();
  });

  it('sorted by topic, with or without a topic filter, are placed from the cell counts and are the plain query\'s pages', () => {
    // Topics on most instances, none on some (the cells keep "none" as '', which sorts first as NULL does).
    const topics = `UPDATE instances SET domain = CASE (id * 7919) % 7 WHEN 0 THEN NULL WHEN 1 THEN NULL WHEN 2 THEN 'history'
                      WHEN 3 THEN 'music' WHEN 4 THEN 'unknown' ELSE 'arts-literature' END`;
    const fast = fastDb(3000, 59);
    const plain = plainDb(3000, 59);
    fast.exec(topics);
    plain.exec(topics);
    const queries = randomInstanceQueries(61, 300, {
      filters: [...FILTERS, { domains: ['history'] }, { domains: ['none', 'music'] }, { domains: ['unknown'], types: ['semantic'], hops: [3] }],
      offset: (random) => (random() < 0.3 ? Math.floor(random() * 40) : Math.floor(random() * 3050)),
      maxLimit: 120,
      sorts: ['domain'],
    });
    const { plans, nonEmpty } = expectSamePages(fast, plain, queries);
    expect([...plans].sort()).toEqual(['filter-then-sort', 'position', 'walk-index']);
    expect(nonEmpty).toBeGreaterThan(150);
    // At a million instances, a filtered page of many rows is placed, not sorted (it sorted 233,000 rows for a page).
    expect(choosePlan(InstanceQuery.parse({ sort: 'domain', hops: [3], offset: 500 }), 233_000, 1_000_000)).toBe('position');
  });

  it('are empty on empty tables, whatever the query, and right for a table of one instance', () => {
    const queries = randomQueries(47, 120, 5);
    for (const rows of [0, 1, 2]) {
      const fast = fastDb(rows, 53);
      const plain = plainDb(rows, 53);
      for (const q of queries) {
        const page = readInstancePage(fast, q);
        expect(page.rows.map((r) => r.id), `${rows} rows: ${JSON.stringify(q)}`).toEqual(plainIds(plain, q));
        if (rows === 0) expect(page.rows).toEqual([]);
      }
    }
  });
});

