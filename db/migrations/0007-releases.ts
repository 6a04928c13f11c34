import type { Migration } from '../migrate';

/**
 * Releases: frozen, versioned snapshots. A release row keeps its selection, splits, gate,
 * licence, card and the release.json written with its files; `release_instances` lists its
 * instances by stable key (dataset / source id / ambiguity type) with their split and the hash of
 * their frozen awb-instance/1 record, and `release_contents` holds each record once by that hash
 * (an instance unchanged between two releases is stored once). Later edits to the instances do
 * not touch these rows; a (name, version) pair is never written twice.
 */
export const releases: Migration = {
  version: 7,
  name: 'releases',
  up(db) {
    db.exec(`
      CREATE TABLE releases (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 120),
        version TEXT NOT NULL CHECK (length(version) BETWEEN 5 AND 64),
        selection TEXT NOT NULL CHECK (json_valid(selection)),
        split TEXT NOT NULL CHECK (json_valid(split)),
        thresholds TEXT NOT NULL CHECK (json_valid(thresholds)),
        gate TEXT NOT NULL CHECK (json_valid(gate)),
        licence TEXT NOT NULL,
        forced_reason TEXT,
        counts TEXT NOT NULL CHECK (json_valid(counts)),
        instances INTEGER NOT NULL CHECK (instances >= 1),
        files TEXT NOT NULL CHECK (json_valid(files)),
        card TEXT NOT NULL,
        metadata TEXT NOT NULL CHECK (json_valid(metadata)),
        app_version TEXT NOT NULL,
        schema_version INTEGER NOT NULL,
        dir TEXT NOT NULL,
        created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
        UNIQUE (name, version)
      ) STRICT;

      CREATE TABLE release_contents (
        sha256 TEXT PRIMARY KEY CHECK (length(sha256) = 64),
        content TEXT NOT NULL
      ) STRICT;

      CREATE TABLE release_instances (
        release_id INTEGER NOT NULL REFERENCES releases(id) ON DELETE CASCADE,
        key TEXT NOT NULL,
        split TEXT NOT NULL,
        position INTEGER NOT NULL,
        ambiguity_type TEXT NOT NULL,
        instance_id INTEGER,
        content_sha256 TEXT NOT NULL REFERENCES release_contents(sha256),
        PRIMARY KEY (release_id, key)
      ) STRICT, WITHOUT ROWID;
    `);
  },
};
