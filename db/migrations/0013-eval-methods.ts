import type { Migration } from '../migrate';

/**
 * Issue 19, the methods half. The judge's token log-probabilities are kept with each call (G-Eval
 * reads them, and a cached call must give them back as the endpoint did). The closed-book
 * CondAmbigQA setting that hypothesised conditions was called `condqa-closed-book`; that name now
 * means the paper's plain closed-book column, so stored runs of the old setting take its new name.
 */
export const evalMethods: Migration = {
  version: 13,
  name: 'eval-methods',
  up(db) {
    db.exec(`
      ALTER TABLE llm_calls ADD COLUMN logprobs TEXT CHECK (logprobs IS NULL OR json_valid(logprobs));
      UPDATE eval_runs SET method = 'condqa-closed-book-conditions' WHERE method = 'condqa-closed-book';
    `);
  },
};
