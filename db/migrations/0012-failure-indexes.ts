import type { Migration } from '../migrate';

/**
 * The failure table's indexes carry every column a filter tests, metrics included, so that a
 * threshold on one metric while sorting by another is tested on the sort index's entries (before,
 * each entry meant reading its row), and a status filter (failed items, say) reads that status's
 * entries alone, metrics and all, then sorts them. Per type, one index per metric gives a type's
 * items in metric order directly. The single-metric, status and type indexes of 0008 are dropped:
 * these begin with the same columns.
 */
const METRICS = ['str_em', 'disambig_f1', 'rouge_l', 'judge_mean', 'latency_ms', 'cost_usd'] as const;
const FLAGS = ['status', 'ambiguity_type', 'collapsed', 'retrieval_miss'] as const;
const BY_METRIC: Record<(typeof METRICS)[number], string> = {
  str_em: 'failures_by_str_em',
  disambig_f1: 'failures_by_disambig',
  rouge_l: 'failures_by_rouge',
  judge_mean: 'failures_by_judge',
  latency_ms: 'failures_by_latency',
  cost_usd: 'failures_by_cost',
};

export const failureIndexes: Migration = {
  version: 12,
  name: 'failure-indexes',
  up(db) {
    const index = (name: string, lead: readonly string[]) => {
      const rest = [...FLAGS, ...METRICS].filter((c) => !lead.includes(c));
      db.exec(`DROP INDEX IF EXISTS ${name}; CREATE INDEX ${name} ON eval_items (run_id, ${[...lead, ...rest].join(', ')});`);
    };
    index('failures_by_position', ['position']);
    for (const metric of METRICS) index(BY_METRIC[metric], [metric, 'position']);
    index('failures_by_status', ['status', 'position']);
    // failures_by_type (type, position) already carries every column (0010).
    for (const metric of METRICS) index(`${BY_METRIC[metric]}_in_type`, ['ambiguity_type', metric, 'position']);
    db.exec(`
      DROP INDEX eval_items_status; DROP INDEX eval_items_type; DROP INDEX eval_items_str_em; DROP INDEX eval_items_disambig;
      DROP INDEX eval_items_rouge; DROP INDEX eval_items_judge; DROP INDEX eval_items_latency;
    `);
  },
};
