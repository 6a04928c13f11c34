import { codeBlocksAfter, codeBlockSummary } from '../../../db/queries/vector-code-blocks';
import type { ReadableDB } from '../../../db/sql';
import { simhashTransform } from '../../../shared/retrieval/simhash';
import { nibbleTables, SignCodes } from './fast-scan';

/**
 * Approximate dense search over a large corpus: every vector's code scored in memory, the best
 * few thousand re-ranked by finer codes, and the best few dozen of those left for exact scores.
 *
 * 1. Sign bits (SimHash, 1 bit per coordinate of the transformed vector). They are scored against
 *    the query's transformed float vector, not its bits (asymmetric scoring: Σ ±y_b by each code
 *    bit, an estimate of the dot product far sharper than a Hamming distance). Every code is
 *    scored whole by a WebAssembly "fast scan" (fast-scan.ts: 4-bit tables of 7-bit integers,
 *    sixteen codes per instruction), and the best `coarse` by those quantised sums are kept, the
 *    cut exact. Their exact sign-bit scores (one 256-entry integer table per code byte) then
 *    enter step 2. The quantised sums may keep a few codes other than the exact scores would:
 *    what is measured is recall against the exact scan of the float vectors.
 * 2. Magnitude planes: with two more bits per coordinate the best `coarse` candidates are scored
 *    as 3-bit quantised vectors (shared/retrieval/vector-codes.ts), which ranks them by cosine
 *    almost as well as 8-bit copies did, at 144 bytes a vector in all (144 MB per million 384-d
 *    vectors) instead of 432.
 *
 * The codes are stored in blocks written with the vectors (db/queries/vector-code-blocks.ts), read at the
 * first query in a few hundred rows and held per connection (the sign bits in WebAssembly memory,
 * regrouped sixteen codes at a time, and nowhere else); blocks written since are read at the
 * next query, and anything else (blocks gone, a new fit) makes the next query read them all again.
 * There is nothing to build after ingest, and no other process's write can leave them stale.
 */

/** A block as held: its codes' ids, magnitude planes and weights; its sign bits are in `Loaded.signs`, from code `start` on. */
interface HeldBlock {
  start: number;
  size: number;
  ids: Float64Array;
  planes: Uint8Array;
  weights: Float32Array;
}

interface Loaded {
  /** The newest block read, and how many blocks there were: another block or one fewer means reading again. */
  lastId: number;
  blocks: HeldBlock[];
  codes: number;
  /** The sign bits of every code, in block order (null until a block is read: its size gives the code's). */
  signs: SignCodes | null;
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
  if (!loaded || !appendOnly) loaded = { lastId: 0, blocks: [], codes: 0, signs: null };
  for (const block of codeBlocksAfter(db, modelId, corpusId, loaded.lastId)) {
    if (!loaded.signs) (loaded.signs = new SignCodes((block.head.byteLength + block.tail.byteLength) / block.size)).reserve(summary.codes);
    loaded.signs.append(block);
    loaded.blocks.push({ start: loaded.codes, size: block.size, ids: block.ids, planes: block.planes, weights: block.weights });
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

/** Candidates left for exact scores, at least: at 1M the magnitude planes rank 0.6% of the exact top 10 below 80th. */
const FINAL = 80;

/** The block holding code `c` (blocks in order of their first code). */
function blockOf(blocks: readonly HeldBlock[], c: number): number {
  let low = 0;
  let high = blocks.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (blocks[mid]!.start <= c) low = mid;
    else high = mid - 1;
  }
  return low;
}

/**
 * The candidates' ids, best first by their 3-bit quantised vectors: the exact sign-bit score
 * (the integer byte tables) counts each coordinate as ±½ (its scale undone), and each magnitude
 * plane adds ±1 and ±2 where set. Equal scores keep the order the codes are held in.
 */
function refine(blocks: readonly HeldBlock[], signs: SignCodes, places: Int32Array, y: Float32Array, signTables: { tables: Int32Array; scale: number }): number[] {
  const { bytes, memory } = signs;
  const { tables, scale } = signTables;
  const sums = sumTables(y, bytes);
  const planeBytes = bytes * 2;
  const ids = new Float64Array(places.length);
  const scores = new Float64Array(places.length);
  for (let p = 0; p < places.length; p++) {
    const c = places[p]!;
    const block = blocks[blockOf(blocks, c)]!;
    const index = c - block.start;
    const plane = block.planes;
    let signScore = 0;
    let planes = 0;
    for (let j = 0, at = index * planeBytes, code = signs.at(c); j < bytes; j++, code += 16) {
      const signBits = memory[code]!;
      const low = plane[at + j]!;
      const high = plane[at + bytes + j]!;
      const o = j * 256;
      signScore = (signScore + tables[o | signBits]!) | 0;
      planes += sums[o | (signBits & low)]! - sums[o | (~signBits & low & 255)]! + 2 * (sums[o | (signBits & high)]! - sums[o | (~signBits & high & 255)]!);
    }
    ids[p] = block.ids[index]!;
    scores[p] = block.weights[index]! * ((0.5 * signScore) / scale + planes);
  }
  const order = Int32Array.from(places.keys()).sort((a, b) => scores[b]! - scores[a]! || a - b);
  return [...new Set(Array.from(order, (p) => ids[p]!))];
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
  const loaded = loadCodes(db, model.id, corpusId);
  if (loaded.codes < vectors) return null;
  if (!loaded.signs) return [];
  const bytes = loaded.signs.bytes;
  const y = simhashTransform(query).subarray(0, bytes * 8);
  const candidates = loaded.signs.best(nibbleTables(y, bytes), Math.max(coarse, k * 10));
  return refine(loaded.blocks, loaded.signs, candidates, y, byteTables(y, bytes)).slice(0, Math.max(k * 4, FINAL));
}
