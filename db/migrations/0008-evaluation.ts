import type { Migration } from '../migrate';

/**
 * Evaluation runs: a QA method × a model × a release split or a dataset. Each run is also a row
 * of `runs` (kind 'evaluation', same id), so its calls in `llm_calls` carry its id. `eval_items`
 * holds every item's output, gold snapshot and metrics (the ones a failure table filters and
 * sorts on are columns with indexes); `eval_steps` is the item's trace, each step pointing at the
 * call behind it.
 */
export const evaluation: Migration = {
  version: 8,
  name: 'evaluation',
  up(db) {
    db.exec(`
      CREATE TABLE eval_runs (
        id INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
        method TEXT NOT NULL,
        model TEXT NOT NULL,
        endpoint TEXT NOT NULL CHECK (json_valid(endpoint)),
        source_kind TEXT NOT NULL CHECK (source_kind IN ('release', 'dataset')),
        source TEXT NOT NULL,
        release_id INTEGER REFERENCES releases(id) ON DELETE SET NULL,
        split TEXT,
        dataset_id INTEGER REFERENCES datasets(id) ON DELETE SET NULL,
        corpus TEXT,
        retrieval_mode TEXT,
        k INTEGER,
        options TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(options)),
        prompt_versions TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(prompt_versions)),
        status TEXT NOT NULL CHECK (status IN ('running', 'done', 'failed', 'cancelled')),
        total INTEGER NOT NULL DEFAULT 0,
        done INTEGER NOT NULL DEFAULT 0,
        failed INTEGER NOT NULL DEFAULT 0,
        calls INTEGER NOT NULL DEFAULT 0,
        cached_calls INTEGER NOT NULL DEFAULT 0,
        prompt_tokens INTEGER NOT NULL DEFAULT 0,
        completion_tokens INTEGER NOT NULL DEFAULT 0,
        cost_usd REAL NOT NULL DEFAULT 0,
        summary TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(summary)),
        error TEXT,
        created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
        finished_at TEXT
      ) STRICT;
      CREATE INDEX eval_runs_method ON eval_runs (method, model);

      CREATE TABLE eval_items (
        id INTEGER PRIMARY KEY,
        run_id INTEGER NOT NULL REFERENCES eval_runs(id) ON DELETE CASCADE,
        position INTEGER NOT NULL CHECK (position >= 0),
        key TEXT NOT NULL,
        instance_id INTEGER REFERENCES instances(id) ON DELETE SET NULL,
        ambiguity_type TEXT NOT NULL,
        question TEXT NOT NULL,
        gold TEXT NOT NULL CHECK (json_valid(gold)),
        status TEXT NOT NULL CHECK (status IN ('pending', 'done', 'failed')),
        long_answer TEXT,
        short_answers TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(short_answers)),
        citations TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(citations)),
        interpretations TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(interpretations)),
        retrieved TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(retrieved)),
        metrics TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(metrics)),
        str_em REAL,
        disambig_f1 REAL,
        rouge_l REAL,
        judge_mean REAL,
        collapsed INTEGER CHECK (collapsed IN (0, 1)),
        retrieval_miss INTEGER CHECK (retrieval_miss IN (0, 1)),
        latency_ms REAL,
        calls INTEGER NOT NULL DEFAULT 0,
        prompt_tokens INTEGER NOT NULL DEFAULT 0,
        completion_tokens INTEGER NOT NULL DEFAULT 0,
        cost_usd REAL NOT NULL DEFAULT 0,
        notes TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(notes)),
        error TEXT,
        finished_at TEXT,
        UNIQUE (run_id, key),
        CHECK ((status = 'failed') = (error IS NOT NULL))
      ) STRICT;
      CREATE UNIQUE INDEX eval_items_position ON eval_items (run_id, position);
      CREATE INDEX eval_items_status ON eval_items (run_id, status, position);
      CREATE INDEX eval_items_type ON eval_items (run_id, ambiguity_type, position);
      CREATE INDEX eval_items_str_em ON eval_items (run_id, str_em);
      CREATE INDEX eval_items_disambig ON eval_items (run_id, disambig_f1);
      CREATE INDEX eval_items_rouge ON eval_items (run_id, rouge_l);
      CREATE INDEX eval_items_judge ON eval_items (run_id, judge_mean);
      CREATE INDEX eval_items_latency ON eval_items (run_id, latency_ms);
      CREATE INDEX eval_items_instance ON eval_items (instance_id);
      CREATE INDEX eval_items_key ON eval_items (key, run_id);

      CREATE TABLE eval_steps (
        item_id INTEGER NOT NULL REFERENCES eval_items(id) ON DELETE CASCADE,
        position INTEGER NOT NULL CHECK (position >= 0),
        kind TEXT NOT NULL CHECK (kind IN ('plan', 'thought', 'action', 'observation', 'retrieve', 'generate', 'reader', 'judge', 'note')),
        label TEXT NOT NULL DEFAULT '',
        content TEXT NOT NULL CHECK (json_valid(content)),
        call_id INTEGER REFERENCES llm_calls(id) ON DELETE SET NULL,
        cached INTEGER NOT NULL DEFAULT 0 CHECK (cached IN (0, 1)),
        latency_ms REAL,
        PRIMARY KEY (item_id, position)
      ) STRICT, WITHOUT ROWID;
      CREATE INDEX eval_steps_call ON eval_steps (call_id);
    `);
  },
};
