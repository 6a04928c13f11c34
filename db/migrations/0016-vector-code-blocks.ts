import { encodeVector, layoutBlock } from '../../shared/retrieval/vector-codes';
import type { Migration } from '../migrate';

/**
 * Vector codes stored in blocks, as dense search scans them (shared/retrieval/vector-codes.ts):
 * a search used to read every code from its model's vec0 table row by row (6.8 s for a million)
 * and then build 8-bit copies of every vector in memory (15 s more, 384 MB). A block holds the
 * codes of one batch of vectors of a model in a corpus: their sign bits (the SimHash codes vec0
 * keeps), two planes of magnitude bits that re-rank candidates instead of the 8-bit copies, and
 * a weight per vector. The vec0 and float32 tables stay the store of record; blocks are written
 * with them, in the same transaction. Existing vectors get their blocks here, 4,096 at a time.
 */
export const BLOCK_SIZE = 4096;

export const vectorCodeBlocks: Migration = {
  version: 16,
  name: 'vector-code-blocks',
  up(db) {
    db.exec(`
      CREATE TABLE vector_code_blocks (
        id INTEGER PRIMARY KEY,
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
      CREATE INDEX vector_code_blocks_scope ON vector_code_blocks (model_id, corpus_id);
    `);
    const models = db.prepare('SELECT id, dimensions FROM embedding_models ORDER BY id').all() as { id: number; dimensions: number }[];
    const insert = db.prepare('INSERT INTO vector_code_blocks (model_id, corpus_id, size, ids, head, tail, planes, weights) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
    const bytes = (a: ArrayBufferView) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
    for (const model of models) {
      const corpora = db.prepare('SELECT corpus_id FROM vector_counts WHERE model_id = ? AND n > 0 ORDER BY corpus_id').pluck().all(model.id) as number[];
      const page = db.prepare(`SELECT passage_id, vector FROM "embeddings_${Number(model.id)}" WHERE corpus_id = ? AND passage_id > ? ORDER BY passage_id LIMIT ${BLOCK_SIZE}`);
      for (const corpus of corpora) {
        for (let after = -1; ; ) {
          const rows = page.all(corpus, after) as { passage_id: number; vector: Buffer }[];
          if (rows.length === 0) break;
          const codes = rows.map((r) => encodeVector(new Float32Array(r.vector.buffer.slice(r.vector.byteOffset, r.vector.byteOffset + r.vector.byteLength))));
          const block = layoutBlock(model.dimensions, rows.map((r) => r.passage_id), codes);
          insert.run(model.id, corpus, block.size, bytes(block.ids), bytes(block.head), bytes(block.tail), bytes(block.planes), bytes(block.weights));
          after = rows.at(-1)!.passage_id;
        }
      }
    }
  },
};
