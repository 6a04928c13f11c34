import type { Migration } from '../migrate';

/**
 * Human validation: protocols (versioned, criteria as a JSON document), annotators, campaigns
 * with their sampled items and balanced assignments, judgments (append-only: the current value
 * of a criterion is the latest row, undo writes the previous value again, an import that changes
 * a value is flagged as a conflict), and adjudications.
 */
export const annotation: Migration = {
  version: 3,
  name: 'annotation',
  up(db) {
    db.exec(`
      CREATE TABLE protocols (
        id INTEGER PRIMARY KEY,
        key TEXT NOT NULL CHECK (length(key) BETWEEN 1 AND 80),
        version INTEGER NOT NULL CHECK (version >= 1),
        name TEXT NOT NULL,
        description TEXT NOT NULL DEFAULT '',
        guidelines TEXT NOT NULL DEFAULT '',
        criteria TEXT NOT NULL CHECK (json_valid(criteria)),
        built_in INTEGER NOT NULL DEFAULT 0 CHECK (built_in IN (0, 1)),
        created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
        UNIQUE (key, version)
      ) STRICT;

      CREATE TABLE annotators (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE CHECK (length(name) BETWEEN 1 AND 100),
        created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
      ) STRICT;

      CREATE TABLE campaigns (
        id INTEGER PRIMARY KEY,
        uid TEXT NOT NULL UNIQUE,
        name TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
        protocol_id INTEGER NOT NULL REFERENCES protocols(id),
        selection TEXT NOT NULL CHECK (json_valid(selection)),
        per_instance INTEGER NOT NULL CHECK (per_instance >= 1),
        seed INTEGER NOT NULL,
        blind INTEGER NOT NULL DEFAULT 1 CHECK (blind IN (0, 1)),
        created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
      ) STRICT;

      CREATE TABLE campaign_annotators (
        campaign_id INTEGER NOT NULL REFERENCES campaigns(id) ON DELETE CASCADE,
        annotator_id INTEGER NOT NULL REFERENCES annotators(id),
        PRIMARY KEY (campaign_id, annotator_id)
      ) STRICT, WITHOUT ROWID;

      CREATE TABLE campaign_items (
        campaign_id INTEGER NOT NULL REFERENCES campaigns(id) ON DELETE CASCADE,
        instance_id INTEGER NOT NULL REFERENCES instances(id),
        position INTEGER NOT NULL,
        PRIMARY KEY (campaign_id, instance_id),
        UNIQUE (campaign_id, position)
      ) STRICT, WITHOUT ROWID;

      CREATE TABLE assignments (
        id INTEGER PRIMARY KEY,
        campaign_id INTEGER NOT NULL REFERENCES campaigns(id) ON DELETE CASCADE,
        instance_id INTEGER NOT NULL REFERENCES instances(id),
        annotator_id INTEGER NOT NULL REFERENCES annotators(id),
        position INTEGER NOT NULL,
        time_ms INTEGER NOT NULL DEFAULT 0 CHECK (time_ms >= 0),
        skipped INTEGER NOT NULL DEFAULT 0 CHECK (skipped IN (0, 1)),
        UNIQUE (campaign_id, annotator_id, instance_id),
        UNIQUE (campaign_id, annotator_id, position)
      ) STRICT;
      CREATE INDEX assignments_instance ON assignments (campaign_id, instance_id);

      CREATE TABLE judgments (
        id INTEGER PRIMARY KEY,
        uid TEXT NOT NULL UNIQUE,
        assignment_id INTEGER NOT NULL REFERENCES assignments(id) ON DELETE CASCADE,
        criterion TEXT NOT NULL,
        value TEXT,
        comment TEXT NOT NULL DEFAULT '',
        source TEXT NOT NULL CHECK (source IN ('app', 'pack', 'file', 'resolution')),
        item_ms INTEGER,
        created_at TEXT NOT NULL,
        conflict INTEGER NOT NULL DEFAULT 0 CHECK (conflict IN (0, 1))
      ) STRICT;
      CREATE INDEX judgments_current ON judgments (assignment_id, criterion, id);
      CREATE INDEX judgments_conflicts ON judgments (conflict) WHERE conflict = 1;

      CREATE TABLE adjudications (
        id INTEGER PRIMARY KEY,
        campaign_id INTEGER NOT NULL REFERENCES campaigns(id) ON DELETE CASCADE,
        instance_id INTEGER NOT NULL REFERENCES instances(id),
        criterion TEXT NOT NULL,
        value TEXT NOT NULL,
        reason TEXT NOT NULL CHECK (length(trim(reason)) > 0),
        adjudicator TEXT NOT NULL CHECK (length(trim(adjudicator)) > 0),
        created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
      ) STRICT;
      CREATE INDEX adjudications_item ON adjudications (campaign_id, instance_id, criterion, id);
    `);
  },
};
