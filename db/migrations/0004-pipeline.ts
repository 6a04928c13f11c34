import type { Migration } from '../migrate';

/**
 * The construction pipeline: every detector's vote, where each item stands in each stage (done,
 * or failed with the reason and the raw output), the prompt templates (versioned; calls name the
 * version they used), the price table, a cache of retrieval results, and which item each LLM
 * call served (for traces).
 */
export const pipeline: Migration = {
  version: 4,
  name: 'pipeline',
  up(db) {
    db.exec(`
      ALTER TABLE llm_calls ADD COLUMN item TEXT;
      CREATE INDEX llm_calls_item ON llm_calls (item);

      CREATE TABLE detection_votes (
        base_question_id INTEGER NOT NULL REFERENCES base_questions(id) ON DELETE CASCADE,
        ambiguity_type TEXT NOT NULL CHECK (ambiguity_type IN ('semantic', 'syntactic', 'constraint')),
        model TEXT NOT NULL,
        verdict TEXT NOT NULL CHECK (verdict IN ('yes', 'no')),
        phenomena TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(phenomena)),
        reason TEXT NOT NULL DEFAULT '',
        provenance_id INTEGER REFERENCES provenance(id),
        PRIMARY KEY (base_question_id, ambiguity_type, model)
      ) STRICT, WITHOUT ROWID;

      CREATE TABLE pipeline_items (
        stage TEXT NOT NULL,
        item TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('done', 'failed')),
        reason TEXT,
        raw_output TEXT,
        run_id INTEGER REFERENCES runs(id) ON DELETE SET NULL,
        updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
        PRIMARY KEY (stage, item)
      ) STRICT, WITHOUT ROWID;
      CREATE INDEX pipeline_items_status ON pipeline_items (stage, status);

      CREATE TABLE prompt_templates (
        id INTEGER PRIMARY KEY,
        stage TEXT NOT NULL,
        version INTEGER NOT NULL CHECK (version >= 1),
        system TEXT NOT NULL,
        user TEXT NOT NULL,
        built_in INTEGER NOT NULL DEFAULT 0 CHECK (built_in IN (0, 1)),
        created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
        UNIQUE (stage, version)
      ) STRICT;

      -- What retrieval computed for the pipeline (a question's constraint cues, an interpretation's
      -- evidence), kept per state of the corpus (the key holds the corpus, its passage and vector
      -- counts): deterministic work a re-run need not repeat.
      CREATE TABLE retrieval_cache (
        kind TEXT NOT NULL CHECK (kind IN ('cues', 'evidence')),
        query_hash TEXT NOT NULL,
        corpus_key TEXT NOT NULL,
        value TEXT NOT NULL CHECK (json_valid(value)),
        PRIMARY KEY (kind, query_hash, corpus_key)
      ) STRICT, WITHOUT ROWID;

      CREATE TABLE model_prices (
        model TEXT PRIMARY KEY,
        input_per_million REAL NOT NULL CHECK (input_per_million >= 0),
        output_per_million REAL NOT NULL CHECK (output_per_million >= 0)
      ) STRICT, WITHOUT ROWID;
    `);
  },
};
