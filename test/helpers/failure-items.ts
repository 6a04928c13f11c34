import { insertEvalRun } from '../../db/queries/eval-runs';
import { FAILURE_SORTS, type FailureFilter, type FailureMetric, type FailureSort } from '../../db/queries/eval-items-failures';
import { all, sql, type WritableDB } from '../../db/sql';
import { rng } from './synthetic';

/**
 * Evaluated items for the failure table's tests (the counts of migration 0025, the items in
 * memory): runs of random items with metric values of every kind, random filters and thresholds,
 * and the page one plain ORDER BY over the run's items gives, with no index hint, count or memory.
 */

export const TYPES = ['semantic', 'syntactic', 'constraint', 'unspecified'];
export const METRIC_SORTS = FAILURE_SORTS.filter((s): s is FailureMetric => s !== 'position');

export type Random = () => number;

/** Metric values of every kind the buckets meet: on their bounds (k/4, k/100), between them (k/3, any real), none. */
export function metrics(random: Random): (number | null)[] {
  const maybe = (v: number) => (random() < 0.06 ? null : v);
  return [
    maybe(Math.floor(random() * 5) / 4),
    maybe(random() < 0.5 ? Math.floor(random() * 21) / 20 : random()),
    maybe(Math.floor(random() * 101) / 100),
    maybe(Math.floor(random() * 16) / 3),
    maybe(random() < 0.3 ? Math.floor(200 + random() * 3000) : 200 + random() * 3000),
  ];
}

export function insertItem(db: WritableDB, runId: number, position: number, random: Random): void {
  const status = random() < 0.05 ? 'failed' : random() < 0.05 ? 'pending' : 'done';
  const flag = () => (random() < 0.1 ? null : Number(random() < 0.3));
  db.prepare(
    `INSERT INTO eval_items (run_id, position, key, ambiguity_type, question, gold, status, str_em, disambig_f1, rouge_l, judge_mean, latency_ms,
                             collapsed, retrieval_miss, cost_usd, error)
     VALUES (?, ?, ?, ?, 'Q?', '{}', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(runId, position, `key-${position}`, TYPES[Math.floor(random() * 4)]!, status, ...metrics(random), flag(), flag(), random() < 0.2 ? 0 : random() / 50, status === 'failed' ? 'e' : null);
}

export function fillRun(db: WritableDB, count: number, seed: number, step = 7): number {
  const runId = insertEvalRun(db, {
    method: 'naive_rag', model: `counts-${seed}`, endpoint: {}, sourceKind: 'dataset', source: 'counts', releaseId: null, split: null,
    datasetId: null, corpus: null, retrievalMode: null, k: null, options: {}, promptVersions: {},
  });
  const random = rng(seed);
  // Positions with gaps (step 7: past a coarse block of 2^14), or none (step 1).
  db.transaction(() => {
    for (let i = 0; i < count; i++) insertItem(db, runId, i * step, random);
  })();
  return runId;
}

/** The page as one plain sort of the run's matching items would give it. */
export function plainPage(db: WritableDB, runId: number, f: FailureFilter, sort: FailureSort, direction: 'asc' | 'desc', limit: number, offset: number): number[] {
  const list = [sql`run_id = ${runId}`];
  if (f.status) list.push(sql`status = ${f.status}`);
  if (f.type) list.push(sql`ambiguity_type = ${f.type}`);
  if (f.collapsed !== undefined) list.push(sql`coalesce(collapsed, 0) = ${f.collapsed ? 1 : 0}`);
  if (f.retrievalMiss !== undefined) list.push(sql`coalesce(retrieval_miss, 0) = ${f.retrievalMiss ? 1 : 0}`);
  for (const t of f.thresholds ?? []) {
    if (t.below !== undefined) list.push(sql`${sql.id(t.metric)} < ${t.below}`);
    if (t.atLeast !== undefined) list.push(sql`${sql.id(t.metric)} >= ${t.atLeast}`);
  }
  const dir = sql.keyword(direction === 'desc' ? 'DESC' : 'ASC');
  const order = sort === 'position' ? sql`position ${dir}` : sql`${sql.id(sort)} IS NULL, ${sql.id(sort)} ${dir}, position ${dir}`;
  return all<{ id: number }>(db, sql`SELECT id FROM eval_items WHERE ${sql.join(list, sql` AND `)} ORDER BY ${order} LIMIT ${limit} OFFSET ${offset}`).map((r) => r.id);
}

/** A threshold on the sort metric: at a value some item has (a bucket's bound, often), or between values. */
export function randomThreshold(db: WritableDB, runId: number, sort: FailureMetric, random: Random): NonNullable<FailureFilter['thresholds']>[number] {
  const values = all<{ v: number }>(db, sql`SELECT DISTINCT ${sql.id(sort)} AS v FROM eval_items WHERE run_id = ${runId} AND ${sql.id(sort)} IS NOT NULL ORDER BY 1`).map((r) => r.v);
  const at = () => {
    const i = Math.floor(random() * values.length);
    return random() < 0.5 ? values[i]! : (values[i]! + (values[i + 1] ?? values[i]! + 1)) / 2;
  };
  const [x, y] = [at(), at()].sort((a, b) => a - b);
  const kind = random();
  return kind < 0.35 ? { metric: sort, atLeast: x } : kind < 0.7 ? { metric: sort, below: y } : { metric: sort, atLeast: x, below: y };
}

export function randomFilter(random: Random): FailureFilter {
  const f: FailureFilter = {};
  if (random() < 0.3) f.status = (['pending', 'done', 'failed'] as const)[Math.floor(random() * 3)];
  if (random() < 0.4) f.type = TYPES[Math.floor(random() * 4)];
  if (random() < 0.3) f.collapsed = random() < 0.5;
  if (random() < 0.3) f.retrievalMiss = random() < 0.5;
  return f;
}
