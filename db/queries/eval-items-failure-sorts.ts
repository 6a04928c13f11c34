/**
 * The failure table's sort orders and the covering index each walks (made by migration 0012),
 * apart so that the page reader (eval-items-failures.ts) and the items in memory
 * (eval-items-failure-snapshot.ts) share them without importing each other. The index names
 * repeat the migration's on purpose: a migration is frozen once shipped, so queries do not import
 * from one, and a renamed index comes with a new migration and a change here.
 */

export const FAILURE_SORTS = ['position', 'str_em', 'disambig_f1', 'rouge_l', 'judge_mean', 'latency_ms', 'cost_usd'] as const;
export type FailureSort = (typeof FAILURE_SORTS)[number];
export type FailureMetric = Exclude<FailureSort, 'position'>;

/** The index holding a run's items in a sort's order (by value, then position). */
export const SORT_INDEX: Record<FailureSort, string> = {
  position: 'failures_by_position',
  str_em: 'failures_by_str_em',
  disambig_f1: 'failures_by_disambig',
  rouge_l: 'failures_by_rouge',
  judge_mean: 'failures_by_judge',
  latency_ms: 'failures_by_latency',
  cost_usd: 'failures_by_cost',
};
