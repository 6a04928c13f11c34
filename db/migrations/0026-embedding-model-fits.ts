import type { Migration } from '../migrate';

/**
 * A count of a model's fits, raised each time its state is saved. Every query that looks a model
 * up read a tag of its state to tell a new fit (the hex of its first 8 bytes and its length),
 * and SQLite loads a whole value to take a piece of it: the offline model's 1 MB on every dense
 * or hybrid search (about 0.5 ms of one at 1M passages). The tag was also blind to most refits:
 * those bytes are the number of passages the fit sampled (at most 200,000, so the same for every
 * large corpus) and one document frequency, and the length never changes. A model that has a
 * state counts as fitted once.
 */
export const embeddingModelFits: Migration = {
  version: 26,
  name: 'embedding-model-fits',
  up(db) {
    db.exec(`ALTER TABLE embedding_models ADD COLUMN fits INTEGER NOT NULL DEFAULT 0;
             UPDATE embedding_models SET fits = 1 WHERE state IS NOT NULL;`);
  },
};
