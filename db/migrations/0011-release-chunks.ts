import { decodeFrozenChunk, encodeFrozenChunkSync, FROZEN_CHUNK_RECORDS } from '../frozen-records';
import type { Migration } from '../migrate';

/**
 * A release's frozen records move from one row per distinct record (`release_contents`, keyed by
 * hash) to compressed chunks of consecutive records per release (`release_chunks`, see
 * db/frozen-records.ts). Writing a million single rows and committing 2 GB dominated the time to
 * create a large release; chunks cost a thousand rows and about a sixth of the bytes. What is lost
 * is sharing an unchanged record between two releases, which compression more than pays for.
 * `release_instances` keeps each record's hash (the diff compares hashes) and where it is stored:
 * its chunk and line.
 */
export const releaseChunks: Migration = {
  version: 11,
  name: 'release-chunks',
  up(db) {
    db.exec(`
      CREATE TABLE release_chunks (
        id INTEGER PRIMARY KEY,
        release_id INTEGER NOT NULL REFERENCES releases(id) ON DELETE CASCADE,
        records INTEGER NOT NULL CHECK (records >= 1),
        content BLOB NOT NULL
      ) STRICT;
      CREATE INDEX release_chunks_release ON release_chunks (release_id);

      CREATE TABLE release_instances_chunked (
        release_id INTEGER NOT NULL REFERENCES releases(id) ON DELETE CASCADE,
        key TEXT NOT NULL,
        split TEXT NOT NULL,
        position INTEGER NOT NULL,
        ambiguity_type TEXT NOT NULL,
        instance_id INTEGER,
        content_sha256 TEXT NOT NULL CHECK (length(content_sha256) = 64),
        chunk INTEGER NOT NULL REFERENCES release_chunks(id),
        line INTEGER NOT NULL CHECK (line >= 0),
        PRIMARY KEY (release_id, key)
      ) STRICT, WITHOUT ROWID;
    `);
    // Existing releases: their records, in position order, a chunk at a time.
    const releases = db.prepare('SELECT id FROM releases ORDER BY id').pluck().all() as number[];
    // Read a chunk's worth at a time (a statement cannot write while another iterates), walking
    // an index on (position, key) that goes away with the old table.
    db.exec('CREATE INDEX release_instances_by_position ON release_instances (release_id, position, key)');
    type Row = { key: string; split: string; ambiguity_type: string; instance_id: number | null; content_sha256: string; position: number; content: string };
    const page = db.prepare(
      `SELECT ri.key, ri.split, ri.ambiguity_type, ri.instance_id, ri.content_sha256, ri.position, rc.content
       FROM release_instances ri JOIN release_contents rc ON rc.sha256 = ri.content_sha256
       WHERE ri.release_id = ? AND (ri.position, ri.key) > (?, ?) ORDER BY ri.position, ri.key LIMIT ${FROZEN_CHUNK_RECORDS}`,
    );
    const insertRow = db.prepare(
      `INSERT INTO release_instances_chunked (release_id, key, split, position, ambiguity_type, instance_id, content_sha256, chunk, line) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const insertChunk = db.prepare('INSERT INTO release_chunks (release_id, records, content) VALUES (?, ?, ?)');
    for (const releaseId of releases) {
      let after: [number, string] = [-1, ''];
      for (;;) {
        const rows = page.all(releaseId, ...after) as Row[];
        if (!rows.length) break;
        const content = encodeFrozenChunkSync(rows.map((row) => row.content));
        decodeFrozenChunk(content, rows.length);
        const chunk = insertChunk.run(releaseId, rows.length, content).lastInsertRowid;
        rows.forEach((row, line) => insertRow.run(releaseId, row.key, row.split, row.position, row.ambiguity_type, row.instance_id, row.content_sha256, chunk, line));
        const last = rows.at(-1)!;
        after = [last.position, last.key];
      }
    }
    db.exec(`
      DROP TABLE release_instances;
      DROP TABLE release_contents;
      ALTER TABLE release_instances_chunked RENAME TO release_instances;
    `);
  },
};
