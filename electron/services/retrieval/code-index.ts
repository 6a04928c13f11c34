import { countEmbeddings, iterateCodes, vectorRevision, vectorsAfter } from '../../../db/queries/embeddings';
import type { ReadableDB } from '../../../db/sql';
import { simhashTransform } from '../../../shared/retrieval/simhash';

/**
 * Approximate dense search over a large corpus, in memory, in two stages before the exact one.
 *
 * 1. Binary codes. The codes live on disk in the model's sqlite-vec vec0 table; sqlite-vec's own
 *    KNN over them costs O(n·k), too much for the ~1,000 candidates the next stage needs. Here
 *    the codes are scored against the query's transformed float vector, not its bits (asymmetric
 *    scoring: Σ ±y_b by each code bit, an estimate of the dot product far sharper than a Hamming
 *    distance), through one 256-entry integer table per code byte. A first pass scores the first
 *    third of every code, held word-major so that it reads only that third; the best 12% go on
 *    to the rest of their code, held code by code. About 48 MB per million 384-bit codes.
 * 2. int8 vectors. Each float32 vector scaled by its largest magnitude to −127..127 (scalar
 *    quantisation, one scale per vector), which ranks the candidates by cosine almost exactly.
 *    Only the best few dozen are then read from the float32 table for exact scores: reading all
 *    1,000 costs one random page each, slow when the page cache is cold. One byte per dimension
 *    (384 MB per million 384-d vectors), built in the background after the first large query
 *    (about 14 s per million here). A connection holds them within int8Budget(), letting go of
 *    others to fit; the copies of every corpus also serve each one. Without them, every
 *    candidate is re-scored from disk.
 */

/**
 * The most memory the int8 copies held for one connection may take together (others are let go
 * to fit): 512 MB, or AWB_INT8_BUDGET_MB.
 */
export function int8Budget(): number {
  const raw = process.env.AWB_INT8_BUDGET_MB;
  const mb = raw ? Number(raw) : NaN;
  return (Number.isFinite(mb) && mb >= 0 ? mb : 512) * 1024 * 1024;
}

interface LoadedCodes {
  version: string;
  ids: Float64Array;
  wordsPerCode: number;
  /** Words the first pass reads: the first third of each code. */
  headWords: number;
  /** The head, word-major (word w of code i at w·n + i): the first pass reads it straight through. */
  head: Uint32Array;
  /** The rest of each code, code by code: the second pass reads a survivor's in one or two cache lines. */
  tail: Uint32Array;
}

interface LoadedInt8 {
  /** Passage ids, ascending. */
  ids: Float64Array;
  values: Int8Array;
  /** Per vector: its scale over its norm, so that weight · Σ q_j·v_j ranks by cosine. */
  weights: Float32Array;
  dimensions: number;
}

/** What is held for one database, by model and corpus. */
interface Held {
  codes: Map<string, LoadedCodes>;
  /** The int8 copies, or null when they would not fit the budget. */
  int8: Map<string, { version: string; int8: LoadedInt8 | null }>;
  building: Map<string, { version: string; done: Promise<void> }>;
}

const heldByDb = new WeakMap<ReadableDB, Held>();

function held(db: ReadableDB): Held {
  let entry = heldByDb.get(db);
  if (!entry) {
    entry = { codes: new Map(), int8: new Map(), building: new Map() };
    heldByDb.set(db, entry);
  }
  return entry;
}

function cacheKey(modelId: number, corpusId: number | null): string {
  return `${modelId}:${corpusId ?? '*'}`;
}

function loadCodes(db: ReadableDB, modelId: number, corpusId: number | null, version: string): LoadedCodes {
  const key = cacheKey(modelId, corpusId);
  const { codes } = held(db);
  const cached = codes.get(key);
  if (cached && cached.version === version) return cached;
  codes.delete(key);
  let capacity = Math.max(1, countEmbeddings(db, modelId, corpusId));
  let ids = new Float64Array(capacity);
  let bytes = new Uint8Array(0);
  let wordsPerCode = 0;
  let n = 0;
  for (const row of iterateCodes(db, modelId, corpusId)) {
    if (n === 0) {
      wordsPerCode = row.embedding.byteLength / 4;
      bytes = new Uint8Array(capacity * wordsPerCode * 4);
    }
    if (n === capacity) {
      capacity *= 2;
      ids = grow(ids, capacity);
      bytes = grow(bytes, capacity * wordsPerCode * 4);
    }
    ids[n] = Number(row.rowid);
    bytes.set(row.embedding, n * wordsPerCode * 4);
    n++;
  }
  const words = new Uint32Array(bytes.buffer, 0, n * wordsPerCode);
  const headWords = Math.ceil(wordsPerCode / 3);
  const tailWords = wordsPerCode - headWords;
  const head = new Uint32Array(n * headWords);
  const tail = new Uint32Array(n * tailWords);
  for (let i = 0, base = 0; i < n; i++, base += wordsPerCode) {
    for (let w = 0; w < headWords; w++) head[w * n + i] = words[base + w]!;
    tail.set(words.subarray(base + headWords, base + wordsPerCode), i * tailWords);
  }
  const loaded = { version, ids: ids.subarray(0, n), wordsPerCode, headWords, head, tail };
  codes.set(key, loaded);
  return loaded;
}

function grow<T extends Float64Array | Uint8Array | Int8Array | Float32Array | Int32Array>(array: T, length: number): T {
  const bigger = new (array.constructor as new (n: number) => T)(length);
  bigger.set(array);
  return bigger;
}

/** Rows read per step while building the int8 copies; the event loop runs between steps. */
const INT8_STEP = 4000;

/**
 * Builds the int8 copies of a model's vectors (within a corpus) a step at a time, so that a
 * process serving other requests stays responsive; until they are ready, queries re-score every
 * candidate from disk. Null when they would exceed the budget, undefined when the vectors changed
 * while being read (the next query starts again).
 */
async function buildInt8(db: ReadableDB, modelId: number, corpusId: number | null, dimensions: number, version: string): Promise<LoadedInt8 | null | undefined> {
  const count = countEmbeddings(db, modelId, corpusId);
  if (count * dimensions > int8Budget()) return null;
  makeRoom(db, cacheKey(modelId, corpusId), count * dimensions);
  let capacity = Math.max(1, count);
  let ids = new Float64Array(capacity);
  let values = new Int8Array(capacity * dimensions);
  let weights = new Float32Array(capacity);
  const scratch = new Float32Array(dimensions);
  const scratchBytes = new Uint8Array(scratch.buffer);
  let n = 0;
  for (let after = -1; ; ) {
    const rows = vectorsAfter(db, modelId, corpusId, after, INT8_STEP);
    if (rows.length === 0) break;
    if (n + rows.length > capacity) {
      capacity = Math.max(capacity * 2, n + rows.length);
      ids = grow(ids, capacity);
      values = grow(values, capacity * dimensions);
      weights = grow(weights, capacity);
    }
    for (const row of rows) {
      scratchBytes.set(row.vector);
      let largest = 0;
      let norm = 0;
      for (let j = 0; j < dimensions; j++) {
        const x = scratch[j]!;
        norm += x * x;
        const magnitude = x < 0 ? -x : x;
        if (magnitude > largest) largest = magnitude;
      }
      const base = n * dimensions;
      if (largest > 0) {
        const inverse = 127 / largest;
        for (let j = 0; j < dimensions; j++) values[base + j] = Math.round(scratch[j]! * inverse);
      }
      ids[n] = row.passage_id;
      weights[n] = norm > 0 ? largest / 127 / Math.sqrt(norm) : 0;
      n++;
    }
    after = rows.at(-1)!.passage_id;
    await new Promise((resolve) => setImmediate(resolve));
    // Vectors being added (an embedding job): stop now rather than finish a stale copy.
    if (vectorRevision(db, modelId, corpusId) !== version) return undefined;
  }
  if (vectorRevision(db, modelId, corpusId) !== version) return undefined;
  return { ids: ids.subarray(0, n), values: values.subarray(0, n * dimensions), weights: weights.subarray(0, n), dimensions };
}

/** Lets go of other int8 copies held for the connection until `bytes` more fit the budget. */
function makeRoom(db: ReadableDB, keep: string, bytes: number): void {
  const { int8 } = held(db);
  let total = bytes;
  for (const [key, entry] of int8) if (key !== keep) total += entry.int8?.values.byteLength ?? 0;
  for (const [key, entry] of [...int8]) {
    if (total <= int8Budget()) break;
    if (key === keep) continue;
    total -= entry.int8?.values.byteLength ?? 0;
    int8.delete(key);
  }
}

/**
 * Builds the int8 copies for this version of the vectors unless that build is under way, and
 * resolves when it ends. A build of an older version is waited for first, then this one starts.
 */
function startInt8(db: ReadableDB, modelId: number, corpusId: number | null, dimensions: number, version: string): Promise<void> {
  const key = cacheKey(modelId, corpusId);
  const { building, int8: int8Cache } = held(db);
  const running = building.get(key);
  if (running?.version === version) return running.done;
  if (running) return running.done.then(() => startInt8(db, modelId, corpusId, dimensions, version));
  const entry = {
    version,
    done: buildInt8(db, modelId, corpusId, dimensions, version)
      .then((int8) => {
        if (int8 !== undefined) int8Cache.set(key, { version, int8 });
      })
      // A database closed or changed under the build: the next query tries again.
      .catch(() => undefined)
      .finally(() => {
        if (building.get(key) === entry) building.delete(key);
      }),
  };
  building.set(key, entry);
  return entry.done;
}

/**
 * The int8 copies when ready for this version of the vectors, otherwise starts building them.
 * Copies of every corpus, when current, serve a query on one corpus as well.
 */
function int8For(db: ReadableDB, modelId: number, corpusId: number | null, dimensions: number, version: string): LoadedInt8 | null {
  const { int8 } = held(db);
  const key = cacheKey(modelId, corpusId);
  const cached = int8.get(key);
  if (cached?.version === version) return cached.int8;
  if (corpusId !== null) {
    const everything = int8.get(cacheKey(modelId, null));
    if (everything?.int8 && everything.version === vectorRevision(db, modelId, null)) return everything.int8;
  }
  // Stale copies go at once rather than after the rebuild: never two sets in memory.
  if (cached) int8.delete(key);
  void startInt8(db, modelId, corpusId, dimensions, version);
  return null;
}

/**
 * Loads everything approximate dense search holds in memory for a model and corpus (the codes at
 * once, the int8 copies step by step) and resolves when it is ready: the first large query need
 * not wait for it, but a benchmark must.
 */
export async function warmDenseIndex(db: ReadableDB, model: { id: number; dimensions: number }, corpusId: number | null): Promise<void> {
  const version = vectorRevision(db, model.id, corpusId);
  loadCodes(db, model.id, corpusId, version);
  if (held(db).int8.get(cacheKey(model.id, corpusId))?.version !== version) await startInt8(db, model.id, corpusId, model.dimensions, version);
}

/** Drops the codes held for a model (after its vectors change wholesale). */
export function forgetCodes(db: ReadableDB, modelId: number): void {
  const { codes, int8 } = held(db);
  for (const map of [codes, int8]) for (const key of [...map.keys()]) if (key.startsWith(`${modelId}:`)) map.delete(key);
}

/**
 * One table per code byte: the contribution Σ ±y of each of its 256 values, scaled to integers
 * (so the hot loops add int32s) as finely as a full code's sum allows without overflow.
 */
function byteTables(y: Float32Array, bytes: number): Int32Array {
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
  return Int32Array.from(exact, (x) => Math.round(x * scale));
}

/** Up to 5,000 of `count` scores, evenly spaced. */
function strided(count: number, score: (i: number) => number): Int32Array {
  const sample = new Int32Array(Math.min(count, 5000));
  for (let s = 0; s < sample.length; s++) sample[s] = score(Math.floor((s * count) / sample.length));
  return sample;
}

/** The value above which about `keep` of `count` scores lie, estimated from a sample of them. */
function thresholdFor(sample: Int32Array, count: number, keep: number): number {
  if (keep >= count) return -Infinity;
  sample.sort();
  return sample[Math.max(0, Math.floor(sample.length - (keep / count) * sample.length) - 1)]!;
}

/** Σ over `words` code words from `at` (`stride` apart) of their byte tables, from table word `from`. */
function scoreWords(words: Uint32Array, at: number, stride: number, count: number, tables: Int32Array, from: number): number {
  let sum = 0;
  for (let w = 0, o = from * 1024; w < count; w++, o += 1024) {
    const x = words[at + w * stride]!;
    sum = (sum + tables[o | (x & 255)]! + tables[o | 256 | ((x >>> 8) & 255)]! + tables[o | 512 | ((x >>> 16) & 255)]! + tables[o | 768 | (x >>> 24)]!) | 0;
  }
  return sum;
}

/** Codes scored together in the first pass: their partial sums stay in the L1 cache. */
const BLOCK = 2048;
/** Share of the codes the first pass passes on to the second. */
const FIRST_PASS_SHARE = 0.12;

/** The ids of about `k` passages whose codes score best against the query. */
function codeNeighbours(db: ReadableDB, modelId: number, query: Float32Array, corpusId: number | null, k: number, version: string): number[] {
  const { ids, wordsPerCode: per, headWords, head, tail } = loadCodes(db, modelId, corpusId, version);
  const n = ids.length;
  if (n === 0) return [];
  const tables = byteTables(simhashTransform(query).subarray(0, per * 32), per * 4);
  const tailWords = per - headWords;

  // The first pass's cut, from a sample of its scores.
  const keep = Math.min(n, Math.max(k * 100, Math.ceil(n * FIRST_PASS_SHARE)));
  const threshold = thresholdFor(strided(n, (i) => scoreWords(head, i, n, headWords, tables, 0)), n, keep);

  // Pass 1: the head of every code, a block at a time (written out: it is the hot spot).
  let survivors = new Int32Array(Math.min(n, Math.ceil(keep * 1.25)));
  let partials = new Int32Array(survivors.length);
  let count = 0;
  const block = new Int32Array(BLOCK);
  for (let start = 0; start < n; start += BLOCK) {
    const size = Math.min(BLOCK, n - start);
    block.fill(0);
    for (let w = 0, o = 0; w < headWords; w++, o += 1024) {
      const column = w * n + start;
      for (let b = 0; b < size; b++) {
        const x = head[column + b]!;
        block[b] = (block[b]! + tables[o | (x & 255)]! + tables[o | 256 | ((x >>> 8) & 255)]! + tables[o | 512 | ((x >>> 16) & 255)]! + tables[o | 768 | (x >>> 24)]!) | 0;
      }
    }
    for (let b = 0; b < size; b++) {
      if (block[b]! < threshold) continue;
      if (count === survivors.length) {
        survivors = grow(survivors, count * 2);
        partials = grow(partials, count * 2);
      }
      survivors[count] = start + b;
      partials[count++] = block[b]!;
    }
  }

  // Pass 2: the tails of the survivors' codes; keep the best k.
  const full = new Int32Array(count);
  for (let s = 0; s < count; s++) full[s] = (partials[s]! + scoreWords(tail, survivors[s]! * tailWords, 1, tailWords, tables, headWords)) | 0;
  const cut = count > k ? thresholdFor(strided(count, (s) => full[s]!), count, k * 1.5) : -Infinity;
  const chosen: { id: number; score: number }[] = [];
  for (let s = 0; s < count; s++) if (full[s]! >= cut) chosen.push({ id: ids[survivors[s]!]!, score: full[s]! });
  chosen.sort((a, b) => b.score - a.score);
  return chosen.slice(0, k).map((c) => c.id);
}

/** The index of `id` in ascending `ids`, or −1. */
function indexOf(ids: Float64Array, id: number): number {
  let low = 0;
  let high = ids.length - 1;
  while (low <= high) {
    const mid = (low + high) >>> 1;
    const at = ids[mid]!;
    if (at === id) return mid;
    if (at < id) low = mid + 1;
    else high = mid - 1;
  }
  return -1;
}

/** The `keep` of `candidates` nearest the query by cosine on their int8 copies. */
function int8Neighbours(int8: LoadedInt8, query: Float32Array, candidates: readonly number[], keep: number): number[] {
  const d = int8.dimensions;
  const values = int8.values;
  const scored: { id: number; score: number }[] = [];
  for (const id of candidates) {
    const i = indexOf(int8.ids, id);
    if (i < 0) continue;
    let dot = 0;
    for (let j = 0, base = i * d; j < d; j++) dot += query[j]! * values[base + j]!;
    scored.push({ id, score: dot * int8.weights[i]! });
  }
  scored.sort((a, b) => b.score - a.score);
  return scored.slice(0, keep).map((s) => s.id);
}

/**
 * The passages to score exactly for a top-`k` dense query: `coarse` (at least 1,000) by their
 * codes, narrowed to max(4k, 40) by their int8 copies when those are held.
 */
export function denseCandidates(
  db: ReadableDB,
  model: { id: number; dimensions: number },
  query: Float32Array,
  corpusId: number | null,
  k: number,
  version: string,
  coarse = 1000,
): number[] {
  const candidates = codeNeighbours(db, model.id, query, corpusId, Math.max(coarse, k * 10), version);
  const int8 = int8For(db, model.id, corpusId, model.dimensions, version);
  return int8 ? int8Neighbours(int8, query, candidates, Math.max(k * 4, 40)) : candidates;
}
