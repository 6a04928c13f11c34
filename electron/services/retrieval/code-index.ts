import { codeBlocksAfter, codeBlockSummary } from '../../../db/queries/vector-code-blocks';
import type { ReadableDB } from '../../../db/sql';
import { simhashTransform } from '../../../shared/retrieval/simhash';
import { codeBytes, headWords as headWordsOf, type CodeBlock } from '../../../shared/retrieval/vector-codes';

/**
 * Approximate dense search over a large corpus: every vector's code scored in memory, the best
 * few thousand re-ranked by finer codes, and the best few dozen of those left for exact scores.
 *
 * 1. Sign bits (SimHash, 1 bit per coordinate of the transformed vector). They are scored against
 *    the query's transformed float vector, not its bits (asymmetric scoring: Σ ±y_b by each code
 *    bit, an estimate of the dot product far sharper than a Hamming distance), through one
 *    256-entry integer table per code byte. A first pass scores the first third of every code,
 *    held word-major in its block so that it reads only that third; the best 12% go on to the
 *    rest of their code.
 * 2. Magnitude planes: with two more bits per coordinate the best `coarse` candidates are scored
 *    as 3-bit quantised vectors (shared/retrieval/vector-codes.ts), which ranks them by cosine
 *    almost as well as 8-bit copies did, at 144 bytes a vector in all (144 MB per million 384-d
 *    vectors) instead of 432.
 *
 * The codes are stored in blocks written with the vectors (db/queries/vector-code-blocks.ts), read at the
 * first query in a few hundred rows and held per connection; blocks written since are read at the
 * next query, and anything else (blocks gone, a new fit) makes the next query read them all again.
 * There is nothing to build after ingest, and no other process's write can leave them stale.
 */

interface Loaded {
  /** The newest block read, and how many blocks there were: another block or one fewer means reading again. */
  lastId: number;
  blocks: CodeBlock[];
  codes: number;
}

const heldByDb = new WeakMap<ReadableDB, Map<string, Loaded>>();

function held(db: ReadableDB): Map<string, Loaded> {
  let entry = heldByDb.get(db);
  if (!entry) heldByDb.set(db, (entry = new Map()));
  return entry;
}

const cacheKey = (modelId: number, corpusId: number | null) => `${modelId}:${corpusId ?? '*'}`;

/**
 * The code blocks of a model (in a corpus, or in all), read from the database when it holds
 * blocks this connection has not read: only the new ones when blocks were added since.
 */
export function loadCodes(db: ReadableDB, modelId: number, corpusId: number | null): Loaded {
  const key = cacheKey(modelId, corpusId);
  const cache = held(db);
  const summary = codeBlockSummary(db, modelId, corpusId);
  let loaded = cache.get(key);
  if (loaded && loaded.lastId === summary.lastId && loaded.blocks.length === summary.blocks) return loaded;
  const appendOnly = loaded !== undefined && loaded.lastId < summary.lastId;
  if (!loaded || !appendOnly) loaded = { lastId: 0, blocks: [], codes: 0 };
  for (const block of codeBlocksAfter(db, modelId, corpusId, loaded.lastId)) {
    loaded.blocks.push(block);
    loaded.codes += block.size;
    loaded.lastId = block.id;
  }
  // Blocks were added but some earlier ones went too: read them all again.
  if (loaded.blocks.length !== summary.blocks) return cache.delete(key), loadCodes(db, modelId, corpusId);
  cache.set(key, loaded);
  return loaded;
}

/**
 * One table per code byte: the contribution Σ ±y of each of its 256 values, scaled to integers
 * (so the hot loops add int32s) as finely as a full code's sum allows without overflow.
 */
function byteTables(y: Float32Array, bytes: number): { tables: Int32Array; scale: number } {
  const exact = new Float64Array(bytes * 256);
  let bound = 0;
  for (let j = 0; j < bytes; j++) {
    const offset = j * 256;
    let base = 0;
    for (let bit = 0; bit < 8; bit++) base -= y[j * 8 + bit] ?? 0;
    exact[offset] = base;
    let largest = Math.abs(base);
    for (let v = 1; v < 256; v++) {
      const low = v & -v;
      exact[offset + v] = exact[offset + (v ^ low)]! + 2 * (y[j * 8 + (31 - Math.clz32(low))] ?? 0);
      largest = Math.max(largest, Math.abs(exact[offset + v]!));
    }
    bound += largest;
  }
  const scale = bound > 0 ? (2 ** 31 - 2 ** 16) / bound : 0;
  const tables = new Int32Array(exact.length);
  for (let i = 0; i < exact.length; i++) tables[i] = Math.round(exact[i]! * scale);
  return { tables, scale };
}

/** One table per code byte: Σ y over the coordinates whose bits are set (a plane's bits select them). */
function sumTables(y: Float32Array, bytes: number): Float64Array {
  const sums = new Float64Array(bytes * 256);
  for (let j = 0; j < bytes; j++) {
    const offset = j * 256;
    for (let v = 1; v < 256; v++) {
      const low = v & -v;
      sums[offset + v] = sums[offset + (v ^ low)]! + (y[j * 8 + (31 - Math.clz32(low))] ?? 0);
    }
  }
  return sums;
}

/** Σ over `count` code words from `at` (`stride` apart) of their byte tables, from table word `from`. */
function scoreWords(words: Uint32Array, at: number, stride: number, count: number, tables: Int32Array, from: number): number {
  let sum = 0;
  for (let w = 0, o = from * 1024; w < count; w++, o += 1024) {
    const x = words[at + w * stride]!;
    sum = (sum + tables[o | (x & 255)]! + tables[o | 256 | ((x >>> 8) & 255)]! + tables[o | 512 | ((x >>> 16) & 255)]! + tables[o | 768 | (x >>> 24)]!) | 0;
  }
  return sum;
}

/** The value above which about `keep` of `count` scores lie, estimated from a sample of them. */
function thresholdFor(sample: Int32Array, count: number, keep: number): number {
  if (keep >= count) return -Infinity;
  sample.sort();
  return sample[Math.max(0, Math.floor(sample.length - (keep / count) * sample.length) - 1)]!;
}

/** Head scores of up to 5,000 codes spread evenly over the blocks. */
function sampleHeads(blocks: readonly CodeBlock[], codes: number, headWords: number, tables: Int32Array): Int32Array {
  const wanted = Math.min(codes, 5000);
  const takes = blocks.map((block) => Math.min(block.size, Math.max(1, Math.round((wanted * block.size) / codes))));
  const sample = new Int32Array(takes.reduce((sum, take) => sum + take, 0));
  let n = 0;
  blocks.forEach((block, b) => {
    const take = takes[b]!;
    for (let s = 0; s < take; s++) sample[n++] = scoreWords(block.head, Math.floor((s * block.size) / take), block.size, headWords, tables, 0);
  });
  return sample;
}

/**
 * The candidates of the sign-bit stage, in the order the scan found them: their block, their
 * place in the block and their score, in typed arrays (a query at 1M keeps some 200,000: one
 * object each would cost more in garbage collection than the scan). Reused from query to query.
 */
class Candidates {
  block = new Int32Array(4096);
  index = new Int32Array(4096);
  score = new Int32Array(4096);
  length = 0;

  push(block: number, index: number, score: number): void {
    if (this.length === this.block.length) this.grow();
    this.block[this.length] = block;
    this.index[this.length] = index;
    this.score[this.length++] = score;
  }

  private grow(): void {
    const grown = (array: Int32Array) => {
      const bigger = new Int32Array(array.length * 2);
      bigger.set(array);
      return bigger;
    };
    this.block = grown(this.block);
    this.index = grown(this.index);
    this.score = grown(this.score);
  }
}

const scratch = new Candidates();

/** Codes scored together in the first pass: their partial sums stay in the L1 cache. */
const BLOCK = 2048;
/**
 * Candidates left for exact scores, at least: at 1M the magnitude planes rank 3.6% of the exact
 * top 10 below 40th (recall 0.947 over 60 bench questions), 0.6% below 80th (0.977).
 */
const FINAL = 80;
/** Share of the codes the first pass passes on to the second. */
const FIRST_PASS_SHARE = 0.12;

/** Pass 1 over one block's heads, a slice at a time (written out: it is the hot spot), then pass 2 on its survivors' tails. */
function scanBlock(block: CodeBlock, b: number, shape: { headWords: number; tailWords: number }, tables: Int32Array, threshold: number, out: Candidates): void {
  const { head, tail, size } = block;
  const partial = new Int32Array(Math.min(BLOCK, size));
  for (let start = 0; start < size; start += BLOCK) {
    const length = Math.min(BLOCK, size - start);
    partial.fill(0);
    for (let w = 0, o = 0; w < shape.headWords; w++, o += 1024) {
      const column = w * size + start;
      for (let i = 0; i < length; i++) {
        const x = head[column + i]!;
        partial[i] = (partial[i]! + tables[o | (x & 255)]! + tables[o | 256 | ((x >>> 8) & 255)]! + tables[o | 512 | ((x >>> 16) & 255)]! + tables[o | 768 | (x >>> 24)]!) | 0;
      }
    }
    for (let i = 0; i < length; i++) {
      if (partial[i]! < threshold) continue;
      const index = start + i;
      out.push(b, index, (partial[i]! + scoreWords(tail, index * shape.tailWords, 1, shape.tailWords, tables, shape.headWords)) | 0);
    }
  }
}

/** The best `keep` candidates by sign-bit score (their places in `candidates`), best first; ties in scan order. */
function best(candidates: Candidates, keep: number): Int32Array {
  const { score, length } = candidates;
  let cut = -Infinity;
  if (length > keep) {
    const sample = new Int32Array(Math.min(length, 5000));
    for (let s = 0; s < sample.length; s++) sample[s] = score[Math.floor((s * length) / sample.length)]!;
    cut = thresholdFor(sample, length, keep * 1.5);
  }
  let picked = new Int32Array(length);
  let n = 0;
  for (let i = 0; i < length; i++) if (score[i]! >= cut) picked[n++] = i;
  picked = picked.subarray(0, n).sort((a, b) => score[b]! - score[a]! || a - b);
  return picked.subarray(0, Math.min(n, keep));
}

/**
 * The candidates' ids, best first by their 3-bit quantised vectors: the sign-bit score counts
 * each coordinate as ±½ (its scale undone), and each magnitude plane adds ±1 and ±2 where set.
 */
function refine(blocks: readonly CodeBlock[], candidates: Candidates, picked: Int32Array, y: Float32Array, signScale: number, shape: { headWords: number; tailWords: number; bytes: number }): number[] {
  const sums = sumTables(y, shape.bytes);
  const { headWords, tailWords, bytes } = shape;
  const planeBytes = bytes * 2;
  const words = headWords + tailWords;
  const ids = new Float64Array(picked.length);
  const scores = new Float64Array(picked.length);
  for (let c = 0; c < picked.length; c++) {
    const p = picked[c]!;
    const block = blocks[candidates.block[p]!]!;
    const { head, tail, size } = block;
    const plane = block.planes;
    const index = candidates.index[p]!;
    let planes = 0;
    for (let w = 0, at = index * planeBytes; w < words; w++) {
      const word = w < headWords ? head[w * size + index]! : tail[index * tailWords + (w - headWords)]!;
      for (let q = 0; q < 4; q++) {
        const j = w * 4 + q;
        const signs = (word >>> (q * 8)) & 255;
        const low = plane[at + j]!;
        const high = plane[at + bytes + j]!;
        const o = j * 256;
        planes += sums[o | (signs & low)]! - sums[o | (~signs & low & 255)]! + 2 * (sums[o | (signs & high)]! - sums[o | (~signs & high & 255)]!);
      }
    }
    ids[c] = block.ids[index]!;
    scores[c] = block.weights[index]! * ((0.5 * candidates.score[p]!) / signScale + planes);
  }
  const order = Int32Array.from(picked.keys()).sort((a, b) => scores[b]! - scores[a]! || a - b);
  return [...new Set(Array.from(order, (c) => ids[c]!))];
}

/**
 * The passages to score exactly for a top-`k` dense query: the best `coarse` (at least 1,000) by
 * their sign bits, narrowed to max(4k, 80) by their magnitude planes. Null when the blocks do not
 * hold a code for every vector (`vectors`), which no writer of this version leaves behind: the
 * caller then scores every vector exactly.
 */
export function denseCandidates(
  db: ReadableDB,
  model: { id: number; dimensions: number },
  query: Float32Array,
  corpusId: number | null,
  k: number,
  vectors: number,
  coarse = 2000,
): number[] | null {
  const { blocks, codes } = loadCodes(db, model.id, corpusId);
  if (codes < vectors) return null;
  if (codes === 0) return [];
  const bytes = codeBytes(model.dimensions).signs;
  const headWords = headWordsOf(model.dimensions);
  const shape = { headWords, tailWords: bytes / 4 - headWords, bytes };
  const y = simhashTransform(query).subarray(0, bytes * 8);
  const { tables, scale } = byteTables(y, bytes);
  const wanted = Math.max(coarse, k * 10);
  const keep = Math.min(codes, Math.max(wanted * 100, Math.ceil(codes * FIRST_PASS_SHARE)));
  const threshold = thresholdFor(sampleHeads(blocks, codes, headWords, tables), codes, keep);
  const candidates = scratch;
  candidates.length = 0;
  blocks.forEach((block, b) => scanBlock(block, b, shape, tables, threshold, candidates));
  return refine(blocks, candidates, best(candidates, wanted), y, scale, shape).slice(0, Math.max(k * 4, FINAL));
}
