import type { Migration } from '../migrate';

/**
 * `llm_calls_run` (run_id) dropped: `llm_calls_run_stage` (run_id, stage, ambiguity_type), added
 * by migration 14, starts with the same column, so it serves every lookup by run (the run's
 * totals, "has this run any calls", a run's deletion setting its calls' run to null) as well.
 * Every call is stored in a commit of its own, and each index is one more page written to the log
 * per call: inserting and committing 10,000 calls took about 10 % less without it.
 */
export const llmCallsRunIndexDropped: Migration = {
  version: 32,
  name: 'llm-calls-run-index-dropped',
  up(db) {
    db.exec('DROP INDEX llm_calls_run');
  },
};
