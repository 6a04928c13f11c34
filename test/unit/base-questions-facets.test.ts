import { beforeAll, describe, expect, it } from 'vitest';
import { baseQuestionFacetCounts, baseQuestionFacetSteps, type BaseQuestionFacetCounts } from '../../db/queries/base-questions-facets';
import { all, sql, type SqlFragment, type WritableDB } from '../../db/sql';
import { BaseQuestionFilter } from '../../shared/api';
import { ANSWERABILITY_LABELS } from '../../shared/domain';
import { toFtsQuery } from '../../shared/search';
import { memoryDb } from '../helpers/db';
import { fillInstances, rng } from '../helpers/synthetic';

/**
 * The counts beside the base question table, summed from the base questions grouped by dataset,
 * hop count and label, against the four queries they were taken with before (each facet under the
 * other filters, and the total), for random filters with and without a search.
 */

type Facet = 'datasets' | 'hops' | 'answerability';

let db: WritableDB;
const words: string[] = [];

beforeAll(() => {
  db = memoryDb();
  fillInstances(db, 4_000, 9, false, (_id, question) => words.push(...question.replace(/\W/g, ' ').split(' ').filter(Boolean)));
  const random = rng(4);
  const label = db.prepare('UPDATE base_questions SET answerability = ? WHERE id = ?');
  const ids = all<{ id: number }>(db, sql`SELECT id FROM base_questions`).map((r) => r.id);
  db.transaction(() => {
    for (const id of ids) if (random() < 0.6) label.run(ANSWERABILITY_LABELS[Math.floor(random() * ANSWERABILITY_LABELS.length)]!, id);
  })();
});

/** The definitions the counts had before: SQL over the table, one query per facet. */
function perFacetQueries(filter: BaseQuestionFilter): BaseQuestionFacetCounts {
  const where = (except?: Facet) => {
    const parts: SqlFragment[] = [sql`1`];
    if (filter.datasets.length && except !== 'datasets') parts.push(sql`b.dataset_id IN ${sql.list(filter.datasets)}`);
    if (filter.hops.length && except !== 'hops') {
      const values = filter.hops.filter((h) => h > 0);
      parts.push(sql`(${values.length ? sql`b.hops IN ${sql.list(values)}` : sql`0`} OR ${filter.hops.includes(0) ? sql`b.hops IS NULL` : sql`0`})`);
    }
    if (filter.answerability.length && except !== 'answerability') parts.push(sql`coalesce(b.answerability, 'unlabelled') IN ${sql.list(filter.answerability)}`);
    const fts = toFtsQuery(filter.search, { prefixLast: true });
    if (fts) parts.push(sql`b.id IN (SELECT rowid FROM base_questions_fts WHERE base_questions_fts MATCH ${fts})`);
    return sql`WHERE ${sql.join(parts, sql` AND `)}`;
  };
  return {
    total: all<{ n: number }>(db, sql`SELECT count(*) AS n FROM base_questions b ${where()}`)[0]!.n,
    datasets: all(db, sql`SELECT b.dataset_id AS value, count(*) AS count FROM base_questions b ${where('datasets')} GROUP BY 1 ORDER BY 1`),
    hops: all(db, sql`SELECT b.hops AS value, count(*) AS count FROM base_questions b ${where('hops')} GROUP BY 1 ORDER BY 1`),
    answerability: all(db, sql`SELECT coalesce(b.answerability, 'unlabelled') AS value, count(*) AS count FROM base_questions b ${where('answerability')} GROUP BY 1 ORDER BY 1`),
  };
}

describe('base question facet counts', () => {
  it('equal the per-facet queries, for random filters with and without a search', () => {
    const random = rng(23);
    const some = <T>(values: readonly T[]) => values.filter(() => random() < 0.35);
    let searched = 0;
    for (let i = 0; i < 60; i++) {
      const word = words[Math.floor(random() * words.length)]!;
      const search = ['', word, word.slice(0, 1 + Math.floor(random() * 2)), 'what', 'qqqq'][Math.floor(random() * 5)]!;
      const filter = BaseQuestionFilter.parse({ search, datasets: some([1, 2]), hops: some([0, 2, 3, 4]), answerability: some([...ANSWERABILITY_LABELS, 'unlabelled']) });
      const got = baseQuestionFacetCounts(db, filter);
      expect(got, JSON.stringify(filter)).toEqual(perFacetQueries(filter));
      if (search && got.total > 100) searched++;
    }
    expect(searched).toBeGreaterThan(5);
  });

  it('are the same in many small steps as in one, and read the table through an index alone', () => {
    const filter = BaseQuestionFilter.parse({ search: 'what', hops: [3] });
    const steps = baseQuestionFacetSteps(db, filter, 50);
    let taken = 0;
    let step = steps.next();
    for (; !step.done; step = steps.next()) taken++;
    expect(taken).toBeGreaterThan(5);
    expect(step.value).toEqual(perFacetQueries(filter));
    const plan = (db.prepare('EXPLAIN QUERY PLAN SELECT dataset_id, hops, answerability, count(*) FROM base_questions GROUP BY 1, 2, 3').all() as { detail: string }[]).map((r) => r.detail).join('; ');
    expect(plan).toMatch(/COVERING INDEX/);
    expect(plan).not.toMatch(/TEMP B-TREE/);
  });
});
