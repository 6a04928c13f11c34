import { codeBytes, encodeVector } from '../../../shared/retrieval/vector-codes';
import { OfflineEmbedder, type OfflineState } from './offline-embedder';

/**
 * The offline embedder's two kinds of work on a batch of passages, the same whether a worker
 * thread does them (embed-worker.ts) or the thread that stores the vectors: counting document
 * frequencies (the fit), and turning passages into vectors with their binary codes. Both are
 * pure functions of their input, so the batches can go to any thread in any order.
 */

export interface PassageText {
  title: string;
  text: string;
}

export type EmbedTask =
  | { op: 'count'; seq: number; passages: PassageText[] }
  | { op: 'embed'; seq: number; passages: PassageText[] }
  /** The fitted statistics every later `embed` weighs its features by. */
  | { op: 'use'; seq: number; documents: number; df: Uint32Array };

export type EmbedReply =
  | { op: 'ready' }
  | { op: 'counted'; seq: number; documents: number; df: Uint32Array }
  | ({ op: 'embedded'; seq: number } & EmbeddedBatch)
  | { op: 'used'; seq: number }
  | { op: 'error'; seq: number; message: string };

/** Vectors of a batch, one after another, and their codes (shared/retrieval/vector-codes.ts), likewise. */
export interface EmbeddedBatch {
  vectors: Float32Array;
  signs: Uint8Array;
  planes: Uint8Array;
  weights: Float32Array;
}

/** Document frequencies of a share of the passages, as a fit of them alone would count them. */
export function countBatch(dimensions: number, passages: readonly PassageText[]): OfflineState {
  const embedder = new OfflineEmbedder(dimensions);
  embedder.fit(passages);
  return embedder.getState();
}

export function embedBatch(embedder: OfflineEmbedder, passages: readonly PassageText[]): EmbeddedBatch {
  const d = embedder.dimensions;
  const bytes = codeBytes(d);
  const n = passages.length;
  const batch = { vectors: new Float32Array(n * d), signs: new Uint8Array(n * bytes.signs), planes: new Uint8Array(n * bytes.planes), weights: new Float32Array(n) };
  passages.forEach((passage, i) => {
    const vector = embedder.embedPassage(passage);
    const code = encodeVector(vector);
    batch.vectors.set(vector, i * d);
    batch.signs.set(code.signs, i * bytes.signs);
    batch.planes.set(code.planes, i * bytes.planes);
    batch.weights[i] = code.weight;
  });
  return batch;
}

/** What a worker does with one task (its embedder holds the statistics `use` gave it). */
export function runTask(dimensions: number, state: { embedder: OfflineEmbedder | null }, task: EmbedTask): EmbedReply {
  switch (task.op) {
    case 'count': {
      const counted = countBatch(dimensions, task.passages);
      return { op: 'counted', seq: task.seq, documents: counted.documents, df: counted.df };
    }
    case 'use':
      state.embedder = new OfflineEmbedder(dimensions, { documents: task.documents, df: task.df });
      return { op: 'used', seq: task.seq };
    case 'embed': {
      if (!state.embedder) throw new Error('the embedder has no fit yet');
      return { op: 'embedded', seq: task.seq, ...embedBatch(state.embedder, task.passages) };
    }
  }
}

/** The buffers a reply can hand over rather than copy. */
export function transferables(reply: EmbedReply): ArrayBuffer[] {
  if (reply.op === 'counted') return [reply.df.buffer as ArrayBuffer];
  if (reply.op === 'embedded') return [reply.vectors, reply.signs, reply.planes, reply.weights].map((a) => a.buffer as ArrayBuffer);
  return [];
}
