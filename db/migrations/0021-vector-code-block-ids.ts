import type { Migration } from '../migrate';

/**
 * Vector code block ids that are never used twice (AUTOINCREMENT). A search connection keeps the
 * code blocks it has read and reads again only when the blocks' count or newest id changed
 * (electron/services/retrieval/code-index.ts). Without AUTOINCREMENT, SQLite gives a new row the
 * largest id + 1, so when another process emptied the table (a refit of the only model deletes
 * all its vectors) and wrote the same number of blocks again, the new blocks got the old ids and
 * the reader kept scoring the old codes. Now every rewritten block has an id above every old one.
 * The table is rebuilt with its rows and ids as they are.
 */
export const vectorCodeBlockIds: Migration = {
  version: 21,
  name: 'vector-code-block-ids',
  up(db) {
    // Copied out and back rather than renamed: ALTER TABLE ... RENAME re-checks every trigger in
    // the schema, and one of migration 17's (instance_fences_updated_move) no longer parses.
    db.exec(`
      CREATE TABLE vector_code_blocks_copy AS SELECT * FROM vector_code_blocks;
      DROP TABLE vector_code_blocks;
      CREATE TABLE vector_code_blocks (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        model_id INTEGER NOT NULL REFERENCES embedding_models(id) ON DELETE CASCADE,
        corpus_id INTEGER NOT NULL REFERENCES corpora(id) ON DELETE CASCADE,
        size INTEGER NOT NULL CHECK (size >= 1),
        -- size passage ids (float64), then the codes: heads word by word, tails, magnitude planes, weights (float32).
        ids BLOB NOT NULL CHECK (length(ids) = size * 8),
        head BLOB NOT NULL,
        tail BLOB NOT NULL,
        planes BLOB NOT NULL,
        weights BLOB NOT NULL CHECK (length(weights) = size * 4)
      ) STRICT;
      INSERT INTO vector_code_blocks (id, model_id, corpus_id, size, ids, head, tail, planes, weights)
        SELECT id, model_id, corpus_id, size, ids, head, tail, planes, weights FROM vector_code_blocks_copy ORDER BY id;
      DROP TABLE vector_code_blocks_copy;
      CREATE INDEX vector_code_blocks_scope ON vector_code_blocks (model_id, corpus_id);
    `);
  },
};
