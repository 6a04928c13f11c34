import type { Migration } from '../migrate';

/**
 * Cost per kept instance, early exit and batch mode (issue 26).
 *
 * - Votes can be `not_needed`: a voter the run did not ask because the outcome was already decided.
 *   Both vote tables also record the run that asked and the position the voter was asked in. Their
 *   CHECKs change, so they are rebuilt (nothing references either table; ids of filter votes are
 *   kept).
 * - `llm_batches` holds each batch a run sent to a provider's Batch API (its provider id, files and
 *   state, so a run resumes hours later), `llm_batch_requests` each line of it (the request hash is
 *   the line's custom_id; the answer is kept once read back, so no paid answer is asked again).
 * - `llm_calls` says how a call went (`sync` or `batch`, and which batch), which ambiguity type it
 *   served (for cost per type), and how many prompt tokens the provider read from its prompt cache.
 * - `model_prices` gains batch prices and a cached-input price.
 */
export const batchesAndVotesNotNeeded: Migration = {
  version: 14,
  name: 'batches-and-votes-not-needed',
  up(db) {
    db.exec(`
      CREATE TABLE detection_votes_next (
        base_question_id INTEGER NOT NULL REFERENCES base_questions(id) ON DELETE CASCADE,
        ambiguity_type TEXT NOT NULL CHECK (ambiguity_type IN ('semantic', 'syntactic', 'constraint')),
        model TEXT NOT NULL,
        verdict TEXT NOT NULL CHECK (verdict IN ('yes', 'no', 'not_needed')),
        phenomena TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(phenomena)),
        reason TEXT NOT NULL DEFAULT '',
        provenance_id INTEGER REFERENCES provenance(id),
        run_id INTEGER REFERENCES runs(id) ON DELETE SET NULL,
        asked_position INTEGER CHECK (asked_position >= 1),
        PRIMARY KEY (base_question_id, ambiguity_type, model),
        CHECK (verdict <> 'not_needed' OR (provenance_id IS NULL AND asked_position IS NULL))
      ) STRICT, WITHOUT ROWID;
      INSERT INTO detection_votes_next (base_question_id, ambiguity_type, model, verdict, phenomena, reason, provenance_id)
        SELECT base_question_id, ambiguity_type, model, verdict, phenomena, reason, provenance_id FROM detection_votes;
      DROP TABLE detection_votes;
      ALTER TABLE detection_votes_next RENAME TO detection_votes;
      CREATE INDEX detection_votes_run ON detection_votes (run_id, ambiguity_type, model, verdict);

      CREATE TABLE filter_votes_next (
        id INTEGER PRIMARY KEY,
        instance_id INTEGER NOT NULL REFERENCES instances(id) ON DELETE CASCADE,
        model TEXT NOT NULL,
        verdict TEXT NOT NULL CHECK (verdict IN ('aligned', 'misaligned', 'not_needed')),
        reason TEXT NOT NULL DEFAULT '',
        provenance_id INTEGER REFERENCES provenance(id),
        run_id INTEGER REFERENCES runs(id) ON DELETE SET NULL,
        asked_position INTEGER CHECK (asked_position >= 1),
        UNIQUE (instance_id, model),
        CHECK (verdict <> 'not_needed' OR (provenance_id IS NULL AND asked_position IS NULL))
      ) STRICT;
      INSERT INTO filter_votes_next (id, instance_id, model, verdict, reason, provenance_id)
        SELECT id, instance_id, model, verdict, reason, provenance_id FROM filter_votes;
      DROP TABLE filter_votes;
      ALTER TABLE filter_votes_next RENAME TO filter_votes;
      CREATE INDEX filter_votes_run ON filter_votes (run_id, model, verdict);

      CREATE TABLE llm_batches (
        id INTEGER PRIMARY KEY,
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        stage TEXT NOT NULL,
        endpoint TEXT NOT NULL,
        base_url TEXT NOT NULL,
        model TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('planned', 'uploaded', 'submitted', 'validating', 'in_progress', 'finalizing',
          'completed', 'failed', 'expired', 'cancelling', 'cancelled', 'ingested')),
        provider_batch_id TEXT UNIQUE,
        input_file_id TEXT,
        output_file_id TEXT,
        error_file_id TEXT,
        requests INTEGER NOT NULL CHECK (requests >= 1),
        completed INTEGER NOT NULL DEFAULT 0,
        failed INTEGER NOT NULL DEFAULT 0,
        attempt INTEGER NOT NULL DEFAULT 1 CHECK (attempt >= 1),
        errors TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(errors)),
        created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
        submitted_at TEXT,
        finished_at TEXT,
        ingested_at TEXT
      ) STRICT;
      CREATE INDEX llm_batches_open ON llm_batches (state, run_id);
      CREATE INDEX llm_batches_run ON llm_batches (run_id, state);

      CREATE TABLE llm_batch_requests (
        batch_id INTEGER NOT NULL REFERENCES llm_batches(id) ON DELETE CASCADE,
        request_hash TEXT NOT NULL,
        line INTEGER NOT NULL CHECK (line >= 1),
        item TEXT NOT NULL,
        stage TEXT NOT NULL,
        ambiguity_type TEXT,
        body TEXT NOT NULL CHECK (json_valid(body)),
        state TEXT NOT NULL CHECK (state IN ('pending', 'done', 'failed')),
        response TEXT CHECK (response IS NULL OR json_valid(response)),
        error TEXT,
        PRIMARY KEY (batch_id, request_hash)
      ) STRICT, WITHOUT ROWID;
      CREATE INDEX llm_batch_requests_hash ON llm_batch_requests (request_hash, state);

      ALTER TABLE llm_calls ADD COLUMN mode TEXT NOT NULL DEFAULT 'sync' CHECK (mode IN ('sync', 'batch'));
      ALTER TABLE llm_calls ADD COLUMN batch_id INTEGER REFERENCES llm_batches(id) ON DELETE SET NULL;
      ALTER TABLE llm_calls ADD COLUMN ambiguity_type TEXT;
      ALTER TABLE llm_calls ADD COLUMN cached_prompt_tokens INTEGER CHECK (cached_prompt_tokens >= 0);
      CREATE INDEX llm_calls_run_stage ON llm_calls (run_id, stage, ambiguity_type);

      ALTER TABLE model_prices ADD COLUMN batch_input_per_million REAL CHECK (batch_input_per_million >= 0);
      ALTER TABLE model_prices ADD COLUMN batch_output_per_million REAL CHECK (batch_output_per_million >= 0);
      ALTER TABLE model_prices ADD COLUMN cached_input_per_million REAL CHECK (cached_input_per_million >= 0);
    `);
  },
};
