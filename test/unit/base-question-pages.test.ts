import { describe, expect, it } from 'vitest';
import { baseQuestionPageQuery, listBaseQuestions } from '../../db/queries/base-questions';
import { BASE_QUESTION_SORT_COLUMNS, BaseQuestionQuery, type BaseQuestionFilter } from '../../shared/api';
import { toFtsQuery } from '../../shared/search';
import { memoryDb } from '../helpers/db';
import { fillInstances, rng, words } from '../helpers/synthetic';

/**
 * The base question table's pages (the dataset joined after the base questions, a search's
 * matches read first) against the straightforward query written here: every row the filters and
 * the search keep, sorted, then OFFSET; for best match, FTS5's rank.
 */

const FILTERS: Partial<BaseQuestionFilter>[] = [
  {},
  { datasets: [1] },
  { hops: [0] },
  { hops: [2, 4] },
  { answerability: ['answerable', 'unlabelled'] },
  { datasets: [2], answerability: ['ambiguous'] },
];

const COLUMN = { id: 'b.id', question: 'b.question', source_id: 'b.source_id', answer: 'b.answer', hops: 'b.hops', dataset: 'b.dataset_id' } as const;

function plainPage(db: ReturnType<typeof memoryDb>, q: BaseQuestionQuery) {
  const conditions: string[] = [];
  const params: unknown[] = [];
  if (q.datasets.length) conditions.push(`b.dataset_id IN (${q.datasets.join(',')})`);
  if (q.hops.length) conditions.push(`(${[...(q.hops.some((h) => h > 0) ? [`b.hops IN (${q.hops.filter((h) => h > 0).join(',')})`] : []), ...(q.hops.includes(0) ? ['b.hops IS NULL'] : [])].join(' OR ')})`);
  if (q.answerability.length) conditions.push(`coalesce(b.answerability, 'unlabelled') IN (${q.answerability.map((a) => `'${a}'`).join(',')})`);
  const fts = toFtsQuery(q.search, { prefixLast: true });
  const dir = q.direction === 'desc' ? 'DESC' : 'ASC';
  let from = 'base_questions b JOIN datasets d ON d.id = b.dataset_id';
  let order = `${COLUMN[q.sort === 'relevance' ? 'id' : q.sort]} ${dir}, b.id ${dir}`;
  if (fts) {
    from += ' JOIN (SELECT rowid, rank FROM base_questions_fts WHERE base_questions_fts MATCH ?) f ON f.rowid = b.id';
    params.push(fts);
    if (q.sort === 'relevance') order = `f.rank ${dir}, b.id`;
  }
  const where = conditions.length ? `WHERE ${conditions.join(' AND ')}` : '';
  return db
    .prepare(
      `SELECT b.id, b.dataset_id AS datasetId, d.name AS dataset, b.source_id AS sourceId, b.question, b.hops, b.answer,
              (SELECT count(*) FROM instances i WHERE i.base_question_id = b.id) AS instanceCount, b.answerability
       FROM ${from} ${where} ORDER BY ${order} LIMIT ? OFFSET ?`,
    )
    .all(...params, q.limit, q.offset);
}

describe('base question pages', () => {
  it('are the plain query\'s pages: every sort, direction, filter and search, any offset', () => {
    const db = memoryDb();
    fillInstances(db, 3000, 83);
    // Answers and labels on most base questions (none on some), so every sort and filter has something to order.
    db.exec(`UPDATE base_questions SET answer = CASE id % 5 WHEN 0 THEN NULL ELSE 'answer ' || (id * 7 % 13) END,
                                      answerability = CASE id % 3 WHEN 0 THEN 'answerable' WHEN 1 THEN NULL ELSE 'ambiguous' END`);
    const total = (db.prepare('SELECT count(*) FROM base_questions').pluck().get() as number);
    const random = rng(89);
    const pick = <T,>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
    let nonEmpty = 0;
    const sorts = new Set<string>();
    for (let k = 0; k < 400; k++) {
      const r = random();
      const search = r < 0.3 ? '' : r < 0.6 ? words(random, 1) : r < 0.8 ? words(random, 1).slice(0, 1 + Math.floor(random() * 3)) : `${words(random, 1)} ${words(random, 1).slice(0, 2)}`;
      const q = BaseQuestionQuery.parse({
        ...pick(FILTERS),
        search,
        sort: pick(BASE_QUESTION_SORT_COLUMNS),
        direction: random() < 0.5 ? 'asc' : 'desc',
        offset: random() < 0.5 ? Math.floor(random() * 30) : Math.floor(random() * total),
        limit: 1 + Math.floor(random() * 80),
      });
      const expected = plainPage(db, q);
      expect(listBaseQuestions(db, q), JSON.stringify(q)).toEqual(expected);
      if (expected.length) nonEmpty++;
      sorts.add(q.sort);
    }
    expect(nonEmpty).toBeGreaterThan(150);
    expect(sorts.size).toBe(BASE_QUESTION_SORT_COLUMNS.length);
  });

  it('read a page in its order from an index, without sorting the table, for every sort without a search', () => {
    const db = memoryDb();
    fillInstances(db, 500, 97);
    for (const sort of BASE_QUESTION_SORT_COLUMNS) {
      const query = baseQuestionPageQuery(BaseQuestionQuery.parse({ sort, limit: 20, offset: 7, direction: 'desc' }));
      const plan = (db.prepare(`EXPLAIN QUERY PLAN ${query.text}`).all(...query.params) as { detail: string }[]).map((r) => r.detail).join('; ');
      expect(plan, sort).not.toMatch(/TEMP B-TREE/);
      expect(plan, sort).toMatch(/^SCAN b/);
    }
  });
});
