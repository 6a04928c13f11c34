import type { Migration } from '../migrate';

/**
 * Failure inspection: a taxonomy of failure tags (the shipped ones and any a researcher adds),
 * tags on evaluation items with who set them (a rule or a person) and their history (a removed
 * tag keeps its row, with who removed it and when), and review flags on instances raised from a
 * failed item. The covering indexes let the failure table page a run of 100,000 items by walking
 * the sort column's index, testing the common filters on the index entries.
 */
export const failures: Migration = {
  version: 10,
  name: 'failures',
  up(db) {
    db.exec(`
      CREATE TABLE failure_tags (
        id INTEGER PRIMARY KEY,
        key TEXT NOT NULL UNIQUE CHECK (key GLOB '[a-z0-9]*' AND length(key) <= 60),
        label TEXT NOT NULL,
        description TEXT NOT NULL DEFAULT '',
        built_in INTEGER NOT NULL DEFAULT 0 CHECK (built_in IN (0, 1)),
        created_by TEXT NOT NULL DEFAULT 'app',
        created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
      ) STRICT;

      CREATE TABLE eval_item_tags (
        id INTEGER PRIMARY KEY,
        item_id INTEGER NOT NULL REFERENCES eval_items(id) ON DELETE CASCADE,
        tag_id INTEGER NOT NULL REFERENCES failure_tags(id) ON DELETE CASCADE,
        source TEXT NOT NULL CHECK (source IN ('rule', 'person')),
        who TEXT NOT NULL,
        note TEXT NOT NULL DEFAULT '',
        created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
        removed_by TEXT,
        removed_at TEXT,
        CHECK ((removed_by IS NULL) = (removed_at IS NULL))
      ) STRICT;
      CREATE UNIQUE INDEX eval_item_tags_current ON eval_item_tags (item_id, tag_id) WHERE removed_at IS NULL;
      CREATE INDEX eval_item_tags_item ON eval_item_tags (item_id, tag_id);
      CREATE INDEX eval_item_tags_tag ON eval_item_tags (tag_id, item_id) WHERE removed_at IS NULL;

      CREATE TABLE instance_flags (
        id INTEGER PRIMARY KEY,
        instance_id INTEGER NOT NULL REFERENCES instances(id) ON DELETE CASCADE,
        reason TEXT NOT NULL CHECK (length(reason) > 0),
        who TEXT NOT NULL,
        eval_item_id INTEGER REFERENCES eval_items(id) ON DELETE SET NULL,
        created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
        resolved_by TEXT,
        resolved_at TEXT
      ) STRICT;
      CREATE INDEX instance_flags_open ON instance_flags (instance_id) WHERE resolved_at IS NULL;
      CREATE INDEX instance_flags_item ON instance_flags (eval_item_id);

      -- The failure table walks one of these per sort; each carries every column a filter tests,
      -- so the filters are checked on the index entries without reading the rows.
      CREATE INDEX failures_by_position ON eval_items (run_id, position, status, ambiguity_type, collapsed, retrieval_miss);
      CREATE INDEX failures_by_str_em ON eval_items (run_id, str_em, position, status, ambiguity_type, collapsed, retrieval_miss);
      CREATE INDEX failures_by_disambig ON eval_items (run_id, disambig_f1, position, status, ambiguity_type, collapsed, retrieval_miss);
      CREATE INDEX failures_by_rouge ON eval_items (run_id, rouge_l, position, status, ambiguity_type, collapsed, retrieval_miss);
      CREATE INDEX failures_by_judge ON eval_items (run_id, judge_mean, position, status, ambiguity_type, collapsed, retrieval_miss);
      CREATE INDEX failures_by_latency ON eval_items (run_id, latency_ms, position, status, ambiguity_type, collapsed, retrieval_miss);
      CREATE INDEX failures_by_cost ON eval_items (run_id, cost_usd, position, status, ambiguity_type, collapsed, retrieval_miss);
      -- Filtering on a type reads that type's entries alone (with every metric, so no row is read), then sorts them.
      CREATE INDEX failures_by_type ON eval_items (run_id, ambiguity_type, position, status, collapsed, retrieval_miss, str_em, disambig_f1, rouge_l, judge_mean, latency_ms, cost_usd);
    `);
    const insert = db.prepare('INSERT INTO failure_tags (key, label, description, built_in) VALUES (?, ?, ?, 1)');
    for (const [key, label, description] of BUILT_IN_TAGS) insert.run(key, label, description);
  },
};

/** The taxonomy the app ships with (key, label, description). */
export const BUILT_IN_TAGS: readonly (readonly [string, string, string])[] = [
  ['collapsed', 'Collapsed interpretations', 'The answer merges several interpretations into one, covering at most one of them.'],
  ['missed-interpretation', 'Missed interpretation', 'The answer leaves out at least one interpretation the gold lists.'],
  ['condition-misidentified', 'Condition misidentified', 'The answer ties an answer to the wrong condition or clarified question.'],
  ['factual-error', 'Factual error', 'The answer states something false.'],
  ['citation-failure', 'Citation failure', 'The cited passages do not support what they are cited for, or nothing is cited.'],
  ['retrieval-miss', 'Retrieval miss', 'None of the gold evidence was among the passages the method retrieved.'],
  ['refusal-or-format-error', 'Refusal or format error', 'The method refused, or its output could not be read (malformed or missing fields).'],
];
