import type { Migration } from '../migrate';

/**
 * Retrieval: where each passage came from (the line of its record in its file, its character span in its source
 * article), passage and vector counts, embedding models with their vector tables,
 * an embedding cache for remote providers, and the progress of corpus imports (so a killed import
 * resumes where it stopped).
 */
export const retrieval: Migration = {
  version: 2,
  name: 'retrieval',
  up(db) {
    db.exec(`
      ALTER TABLE passages ADD COLUMN source_line INTEGER;

      -- Passage and vector counts, kept by triggers, so a search never counts a large table.
      ALTER TABLE corpora ADD COLUMN passage_count INTEGER NOT NULL DEFAULT 0;
      UPDATE corpora SET passage_count = (SELECT count(*) FROM passages p WHERE p.corpus_id = corpora.id);
      CREATE TRIGGER corpora_count_insert AFTER INSERT ON passages BEGIN
        UPDATE corpora SET passage_count = passage_count + 1 WHERE id = new.corpus_id;
      END;
      CREATE TRIGGER corpora_count_delete AFTER DELETE ON passages BEGIN
        UPDATE corpora SET passage_count = passage_count - 1 WHERE id = old.corpus_id;
      END;
      ALTER TABLE passages ADD COLUMN char_start INTEGER;
      ALTER TABLE passages ADD COLUMN char_end INTEGER;

      -- Document frequencies, to keep very frequent words out of question queries.
      CREATE VIRTUAL TABLE passages_fts_vocab USING fts5vocab(passages_fts, 'row');

      -- One row per embedding model. Its vectors live in two tables named after its id:
      -- embeddings_<id> (float32, for exact scoring) and vec_<id> (a sqlite-vec vec0 table of
      -- binary-quantised vectors, partitioned by corpus, for the coarse search).
      CREATE TABLE embedding_models (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        provider TEXT NOT NULL CHECK (provider IN ('offline', 'openai')),
        model TEXT NOT NULL,
        dimensions INTEGER NOT NULL CHECK (dimensions BETWEEN 8 AND 8192 AND dimensions % 8 = 0),
        lexical INTEGER NOT NULL DEFAULT 0 CHECK (lexical IN (0, 1)),
        config TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(config)),
        state BLOB,
        created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
      ) STRICT;

      CREATE TABLE vector_counts (
        model_id INTEGER NOT NULL REFERENCES embedding_models(id) ON DELETE CASCADE,
        corpus_id INTEGER NOT NULL REFERENCES corpora(id) ON DELETE CASCADE,
        n INTEGER NOT NULL CHECK (n >= 0),
        -- Bumped on every change: tells in-memory copies of the vectors that they are stale.
        revision INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (model_id, corpus_id)
      ) STRICT, WITHOUT ROWID;

      CREATE TABLE embedding_cache (
        model TEXT NOT NULL,
        text_hash BLOB NOT NULL,
        dimensions INTEGER NOT NULL,
        vector BLOB NOT NULL,
        PRIMARY KEY (model, text_hash)
      ) STRICT, WITHOUT ROWID;

      CREATE TABLE corpus_imports (
        id INTEGER PRIMARY KEY,
        corpus_id INTEGER NOT NULL REFERENCES corpora(id) ON DELETE CASCADE,
        file TEXT NOT NULL,
        file_key TEXT NOT NULL,
        format TEXT NOT NULL,
        records_done INTEGER NOT NULL DEFAULT 0,
        passages_created INTEGER NOT NULL DEFAULT 0,
        finished INTEGER NOT NULL DEFAULT 0 CHECK (finished IN (0, 1)),
        started_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
        updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
        UNIQUE (corpus_id, file_key)
      ) STRICT;
    `);
  },
};
