import { STOPWORDS, fold } from '../../../shared/retrieval/terms';

/**
 * The built-in offline embedder: feature-hashed TF-IDF over words and character n-grams,
 * L2-normalised. It needs no network and no model download, so a fresh install can build and
 * search a vector index. It is lexical, not semantic: it matches shared words and word pieces
 * (so "published" meets "publisher"), not synonyms; the UI labels it as such.
 *
 * Features: every content word (stopwords dropped), weight 1 (2 in a passage's title), and the
 * character 3- and 4-grams of each word with boundary marks ("<pa", "par", ...), which together
 * carry half the word's energy (each weighs √(1/2 ÷ their number)). Each feature is hashed
 * (FNV-1a over its characters, seeded by its kind) into two of `dimensions` buckets, each with
 * a ±1 sign from another bit of its hash and weight 1/√2 (a sparse random projection: two
 * buckets per feature make collisions cost less than one), and weighted by sublinear term
 * frequency (1 + ln tf) and inverse document frequency, ln((N + 1) / (df + 1)) + 1.
 * Document frequencies are counted by `fit` into 2^18 hashed slots, a table saved with the
 * model, so queries are weighted the same way as the passages were.
 */

const DF_BITS = 18;
const DF_SLOTS = 1 << DF_BITS;
const TITLE_WEIGHT = 2;
const WORD_SEED = 0x811c9dc5;
const GRAM_SEED = 0x9747b28c;
const WORD = /[\p{L}\p{N}]+/gu;

function hashRange(seed: number, text: string, start: number, end: number): number {
  let hash = seed;
  for (let i = start; i < end; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** A second, independent-looking hash of a hash (murmur3's finaliser). */
function remix(hash: number): number {
  let h = (hash ^ 0x9e3779b9) >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Adds a text's features (hash → raw weight, before TF-IDF) into `counts`. */
function features(text: string, scale: number, counts: Map<number, number>): Map<number, number> {
  for (const match of fold(text).matchAll(WORD)) {
    const word = match[0];
    if (STOPWORDS.has(word)) continue;
    const w = hashRange(WORD_SEED, word, 0, word.length);
    counts.set(w, (counts.get(w) ?? 0) + scale);
    const padded = `<${word}>`;
    const grams = Math.max(0, padded.length - 2) + Math.max(0, padded.length - 3);
    const gramWeight = Math.sqrt(0.5 / grams) * scale;
    for (let n = 3; n <= 4; n++) {
      for (let i = 0; i + n <= padded.length; i++) {
        const g = hashRange(GRAM_SEED + n, padded, i, i + n);
        counts.set(g, (counts.get(g) ?? 0) + gramWeight);
      }
    }
  }
  return counts;
}

function passageFeatures(passage: { title: string; text: string }): Map<number, number> {
  return features(passage.title, TITLE_WEIGHT, features(passage.text, 1, new Map()));
}

export interface OfflineState {
  documents: number;
  df: Uint32Array;
}

export function serializeState(state: OfflineState): Buffer {
  const buffer = Buffer.alloc(4 + state.df.byteLength);
  buffer.writeUInt32LE(state.documents, 0);
  Buffer.from(state.df.buffer, state.df.byteOffset, state.df.byteLength).copy(buffer, 4);
  return buffer;
}

export function deserializeState(buffer: Buffer): OfflineState {
  const df = new Uint32Array(DF_SLOTS);
  df.set(new Uint32Array(buffer.buffer.slice(buffer.byteOffset + 4, buffer.byteOffset + 4 + DF_SLOTS * 4)));
  return { documents: buffer.readUInt32LE(0), df };
}

export class OfflineEmbedder {
  readonly dimensions: number;
  private state: OfflineState;

  constructor(dimensions = 384, state?: OfflineState) {
    this.dimensions = dimensions;
    this.state = state ?? { documents: 0, df: new Uint32Array(DF_SLOTS) };
  }

  get fitted(): boolean {
    return this.state.documents > 0;
  }

  getState(): OfflineState {
    return this.state;
  }

  /** Counts document frequencies over passages (the whole corpus, or a sample of it). */
  fit(passages: Iterable<{ title: string; text: string }>): void {
    for (const passage of passages) {
      this.state.documents++;
      for (const feature of passageFeatures(passage).keys()) this.state.df[feature & (DF_SLOTS - 1)]!++;
    }
  }

  embedPassage(passage: { title: string; text: string }): Float32Array {
    return this.vector(passageFeatures(passage));
  }

  embed(text: string): Float32Array {
    return this.vector(features(text, 1, new Map()));
  }

  private vector(weights: Map<number, number>): Float32Array {
    const vector = new Float32Array(this.dimensions);
    const n = this.state.documents;
    const dims = this.dimensions;
    for (const [hash, weight] of weights) {
      const df = this.state.df[hash & (DF_SLOTS - 1)]!;
      const idf = Math.log((n + 1) / (df + 1)) + 1;
      const tf = weight >= 1 ? 1 + Math.log(weight) : weight;
      const value = (tf * idf) / Math.SQRT2;
      const second = remix(hash);
      vector[hash % dims]! += hash & 0x80000000 ? -value : value;
      vector[second % dims]! += second & 0x80000000 ? -value : value;
    }
    let norm = 0;
    for (let i = 0; i < vector.length; i++) norm += vector[i]! * vector[i]!;
    norm = Math.sqrt(norm);
    if (norm > 0) for (let i = 0; i < vector.length; i++) vector[i]! /= norm;
    return vector;
  }
}
