import type { Migration } from '../migrate';

/**
 * A version per evaluation run that moves whenever one of its items is added, removed, or changes
 * a column the failure table filters or sorts on, kept by triggers on `eval_items`. The failure
 * table keeps a finished run's items in memory (db/queries/eval-items-failure-snapshot.ts) and
 * checks this number, one indexed read, before it trusts them. A run's row stays when the run is
 * deleted, so its number only ever grows, even for a later run given the same id.
 */

/** The columns whose changes move the version: those eval-items-failure-snapshot.ts reads. */
const READ = ['run_id', 'position', 'status', 'ambiguity_type', 'collapsed', 'retrieval_miss', 'str_em', 'disambig_f1', 'rouge_l', 'judge_mean', 'latency_ms', 'cost_usd'];

const bump = (run: string) => `INSERT INTO eval_item_versions (run_id, version) VALUES (${run}, 1) ON CONFLICT DO UPDATE SET version = version + 1;`;

export const evalItemVersions: Migration = {
  version: 31,
  name: 'eval-item-versions',
  up(db) {
    db.exec(`
      CREATE TABLE eval_item_versions (
        run_id INTEGER PRIMARY KEY,
        version INTEGER NOT NULL CHECK (version >= 1)
      ) STRICT;
      INSERT INTO eval_item_versions (run_id, version) SELECT DISTINCT run_id, 1 FROM eval_items;
      CREATE TRIGGER eval_item_versions_insert AFTER INSERT ON eval_items BEGIN ${bump('new.run_id')} END;
      CREATE TRIGGER eval_item_versions_delete AFTER DELETE ON eval_items BEGIN ${bump('old.run_id')} END;
      CREATE TRIGGER eval_item_versions_update AFTER UPDATE OF ${READ.join(', ')} ON eval_items
        WHEN ${READ.map((c) => `old.${c} IS NOT new.${c}`).join(' OR ')} BEGIN
        ${bump('old.run_id')}
        ${bump('new.run_id')}
      END;
    `);
  },
};
