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
export const TITLE_WEIGHT = 2;
export const WORD_SEED = 0x811c9dc5;
export const GRAM_SEED = 0x9747b28c;
const WORD = /[\p{L}\p{N}]+/gu;

export function hashRange(seed: number, text: string, start: number, end: number): number {
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

const LONGEST_STOPWORD = Math.max(...[...STOPWORDS].map((w) => w.length));
const NON_ASCII = /[\u0080-\uffff]/;

/**
 * A text's features: hash → raw weight (before TF-IDF), in order of first use, as a Map would
 * hold them (the vector sums them in that order, so the order is part of the result). An open
 * addressing table reused from text to text: building a Map per passage cost most of the time.
 */
export class FeatureCounts {
  keys = new Uint32Array(1024);
  weights = new Float64Array(1024);
  size = 0;
  private slots = new Int32Array(4096);
  private stamps = new Int32Array(4096);
  private stamp = 1;

  clear(): void {
    this.size = 0;
    // A new stamp empties every slot at once; on wrap-around, the stamps are reset.
    if (++this.stamp === 0x7fffffff) {
      this.stamps.fill(0);
      this.stamp = 1;
    }
  }

  add(key: number, weight: number): void {
    const mask = this.slots.length - 1;
    let slot = Math.imul(key, 0x9e3779b1) >>> 0 & mask;
    while (this.stamps[slot] === this.stamp) {
      const at = this.slots[slot]!;
      if (this.keys[at] === key) {
        this.weights[at]! += weight;
        return;
      }
      slot = (slot + 1) & mask;
    }
    if (this.size === this.keys.length) this.growEntries();
    this.stamps[slot] = this.stamp;
    this.slots[slot] = this.size;
    this.keys[this.size] = key;
    // 0 + weight, as a Map's (counts.get(key) ?? 0) + weight gives.
    this.weights[this.size++] = 0 + weight;
    if (this.size * 2 > this.slots.length) this.rehash();
  }

  private growEntries(): void {
    const keys = new Uint32Array(this.keys.length * 2);
    keys.set(this.keys);
    this.keys = keys;
    const weights = new Float64Array(this.weights.length * 2);
    weights.set(this.weights);
    this.weights = weights;
  }

  private rehash(): void {
    const length = this.slots.length * 2;
    this.slots = new Int32Array(length);
    this.stamps = new Int32Array(length);
    this.stamp = 1;
    const mask = length - 1;
    for (let at = 0; at < this.size; at++) {
      let slot = Math.imul(this.keys[at]!, 0x9e3779b1) >>> 0 & mask;
      while (this.stamps[slot] === 1) slot = (slot + 1) & mask;
      this.stamps[slot] = 1;
      this.slots[slot] = at;
    }
  }
}

/** The character at `p` of the word `text[start, end)` padded with boundary marks: "<word>". */
function paddedChar(text: string, start: number, end: number, p: number): number {
  return p === 0 ? 60 : p === end - start + 1 ? 62 : text.charCodeAt(start + p - 1);
}

/**
 * Adds one word's features: the word (weight `scale`), then its character 3-grams and 4-grams
 * with boundary marks, which share half its energy.
 */
function addWord(text: string, start: number, end: number, scale: number, counts: FeatureCounts): void {
  const length = end - start;
  if (length <= LONGEST_STOPWORD && STOPWORDS.has(text.slice(start, end))) return;
  counts.add(hashRange(WORD_SEED, text, start, end), scale);
  const padded = length + 2;
  const grams = Math.max(0, padded - 2) + Math.max(0, padded - 3);
  const gramWeight = Math.sqrt(0.5 / grams) * scale;
  for (let n = 3; n <= 4; n++) {
    for (let i = 0; i + n <= padded; i++) {
      let hash = GRAM_SEED + n;
      for (let p = i; p < i + n; p++) {
        hash ^= paddedChar(text, start, end, p);
        hash = Math.imul(hash, 0x01000193);
      }
      counts.add(hash >>> 0, gramWeight);
    }
  }
}

/** Adds a text's features into `counts`: every folded word, stopwords left out. */
function features(text: string, scale: number, counts: FeatureCounts): FeatureCounts {
  if (!NON_ASCII.test(text)) {
    // ASCII: folding only lowers case, and words are the runs of [a-z0-9] (as \p{L}\p{N} match there).
    const folded = text.toLowerCase();
    let start = -1;
    for (let i = 0; i <= folded.length; i++) {
      const c = i < folded.length ? folded.charCodeAt(i) : 0;
      const inWord = (c >= 97 && c <= 122) || (c >= 48 && c <= 57);
      if (inWord && start < 0) start = i;
      else if (!inWord && start >= 0) {
        addWord(folded, start, i, scale, counts);
        start = -1;
      }
    }
    return counts;
  }
  const folded = fold(text);
  for (const match of folded.matchAll(WORD)) addWord(folded, match.index, match.index + match[0].length, scale, counts);
  return counts;
}

export function passageFeatures(passage: { title: string; text: string }, counts: FeatureCounts): FeatureCounts {
  counts.clear();
  return features(passage.title, TITLE_WEIGHT, features(passage.text, 1, counts));
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
  private readonly counts = new FeatureCounts();
  /** ln((N + 1) / (df + 1)) + 1 for every slot, computed once per state of the fit. */
  private idf: Float64Array | null = null;

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
    this.idf = null;
    const { df } = this.state;
    for (const passage of passages) {
      this.state.documents++;
      const { keys, size } = passageFeatures(passage, this.counts);
      for (let i = 0; i < size; i++) df[keys[i]! & (DF_SLOTS - 1)]!++;
    }
  }

  /** Adds counts made elsewhere (a worker's share of the passages) to this fit. */
  merge(other: OfflineState): void {
    this.idf = null;
    this.state.documents += other.documents;
    for (let i = 0; i < DF_SLOTS; i++) this.state.df[i]! += other.df[i]!;
  }

  embedPassage(passage: { title: string; text: string }): Float32Array {
    return this.vector(passageFeatures(passage, this.counts));
  }

  embed(text: string): Float32Array {
    this.counts.clear();
    return this.vector(features(text, 1, this.counts));
  }

  private inverseFrequencies(): Float64Array {
    if (this.idf) return this.idf;
    const n = this.state.documents;
    // A plain loop: Float64Array.from with a mapping function took about 100 ms over the 2^18 slots.
    const { df } = this.state;
    const idf = new Float64Array(df.length);
    for (let i = 0; i < df.length; i++) idf[i] = Math.log((n + 1) / (df[i]! + 1)) + 1;
    return (this.idf = idf);
  }

  private vector({ keys, weights, size }: FeatureCounts): Float32Array {
    const vector = new Float32Array(this.dimensions);
    const dims = this.dimensions;
    const idf = this.inverseFrequencies();
    for (let f = 0; f < size; f++) {
      const hash = keys[f]!;
      const weight = weights[f]!;
      const tf = weight >= 1 ? 1 + Math.log(weight) : weight;
      const value = (tf * idf[hash & (DF_SLOTS - 1)]!) / Math.SQRT2;
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
