import { bitTable } from '../../../db/queries/embeddings';
import { all, sql, type ReadableDB } from '../../../db/sql';
import { simhashTransform } from '../../../shared/retrieval/simhash';

/**
 * The coarse stage of dense search over a large corpus, in memory. The binary codes live on disk
 * in the model's sqlite-vec vec0 table (the index); sqlite-vec's own KNN over them costs O(n·k),
 * too much for the ~1,000 candidates re-scoring needs. Here the codes are scored against the
 * query's transformed float vector, not its bits (asymmetric scoring: Σ ±y_b by each code bit,
 * an estimate of the dot product far sharper than a Hamming distance), through one 256-entry
 * table per code byte. A first pass scores half of each code, the best share goes on to the full
 * code, and the best `k` are returned for exact re-scoring. About 48 MB per million 384-bit codes.
 */

interface LoadedCodes {
  version: string;
  ids: Float64Array;
  words: Uint32Array;
  wordsPerCode: number;
}

const cache = new Map<string, LoadedCodes>();

function load(db: ReadableDB, modelId: number, corpusId: number | null, version: string): LoadedCodes {
  const key = `${modelId}:${corpusId ?? '*'}`;
  const cached = cache.get(key);
  if (cached && cached.version === version) return cached;
  cache.delete(key);
  const partition = corpusId === null ? sql.empty : sql`WHERE corpus_id = ${BigInt(corpusId)}`;
  const rows = all<{ rowid: number | bigint; embedding: Buffer }>(db, sql`SELECT rowid, embedding FROM ${bitTable(modelId)} ${partition}`);
  const wordsPerCode = rows.length ? rows[0]!.embedding.byteLength / 4 : 0;
  const ids = new Float64Array(rows.length);
  const bytes = new Uint8Array(rows.length * wordsPerCode * 4);
  rows.forEach((row, i) => {
    ids[i] = Number(row.rowid);
    bytes.set(row.embedding, i * wordsPerCode * 4);
  });
  const loaded = { version, ids, words: new Uint32Array(bytes.buffer), wordsPerCode };
  cache.set(key, loaded);
  return loaded;
}

/** Drops the codes held for a model (after its vectors change wholesale). */
export function forgetCodes(modelId: number): void {
  for (const key of [...cache.keys()]) if (key.startsWith(`${modelId}:`)) cache.delete(key);
}

/** One table per code byte: the contribution Σ ±y of each of its 256 values. */
function byteTables(y: Float32Array, bytes: number): Float32Array {
  const tables = new Float32Array(bytes * 256);
  for (let j = 0; j < bytes; j++) {
    const offset = j * 256;
    let base = 0;
    for (let bit = 0; bit < 8; bit++) base -= y[j * 8 + bit] ?? 0;
    tables[offset] = base;
    for (let v = 1; v < 256; v++) {
      const low = v & -v;
      tables[offset + v] = tables[offset + (v ^ low)]! + 2 * (y[j * 8 + (31 - Math.clz32(low))] ?? 0);
    }
  }
  return tables;
}

/** The value above which about `keep` of the scores lie, estimated from a strided sample. */
function thresholdFor(scores: Float32Array, count: number, keep: number): number {
  if (keep >= count) return -Infinity;
  const size = Math.min(count, 20_000);
  if (size === count) return Float32Array.from(scores.subarray(0, count)).sort()[Math.max(0, count - Math.ceil(keep))]!;
  const sample = new Float32Array(size);
  const stride = count / size;
  for (let i = 0; i < size; i++) sample[i] = scores[Math.floor(i * stride)]!;
  sample.sort();
  return sample[Math.max(0, Math.floor(size - (keep / count) * size) - 1)]!;
}

/** The ids of about `k` passages whose codes score best against the query. */
export function codeNeighbours(db: ReadableDB, modelId: number, query: Float32Array, corpusId: number | null, k: number, version: string): number[] {
  const codes = load(db, modelId, corpusId, version);
  const n = codes.ids.length;
  if (n === 0) return [];
  const per = codes.wordsPerCode;
  const y = simhashTransform(query).subarray(0, per * 32);
  const tables = byteTables(y, per * 4);
  const half = Math.max(1, per >> 1);
  const words = codes.words;

  // Pass 1: half of every code (the loop is written out: it is the hot spot).
  const partial = new Float32Array(n);
  for (let i = 0, base = 0; i < n; i++, base += per) {
    let sum = 0;
    for (let w = 0, o = 0; w < half; w++, o += 1024) {
      const x = words[base + w]!;
      sum += tables[o | (x & 255)]! + tables[o | 256 | ((x >>> 8) & 255)]! + tables[o | 512 | ((x >>> 16) & 255)]! + tables[o | 768 | (x >>> 24)]!;
    }
    partial[i] = sum;
  }
  const keep = Math.min(n, Math.max(k * 60, 60_000));
  const threshold = thresholdFor(partial, n, keep);
  const survivors = new Int32Array(n);
  let count = 0;
  for (let i = 0; i < n; i++) if (partial[i]! >= threshold) survivors[count++] = i;

  // Pass 2: the rest of the survivors' codes; keep the best k.
  const full = new Float32Array(count);
  for (let s = 0; s < count; s++) {
    const i = survivors[s]!;
    const base = i * per;
    let sum = partial[i]!;
    for (let w = half, o = half * 1024; w < per; w++, o += 1024) {
      const x = words[base + w]!;
      sum += tables[o | (x & 255)]! + tables[o | 256 | ((x >>> 8) & 255)]! + tables[o | 512 | ((x >>> 16) & 255)]! + tables[o | 768 | (x >>> 24)]!;
    }
    full[s] = sum;
  }
  const cut = count > k ? thresholdFor(full, count, k * 1.5) : -Infinity;
  const chosen: { id: number; score: number }[] = [];
  for (let s = 0; s < count; s++) if (full[s]! >= cut) chosen.push({ id: codes.ids[survivors[s]!]!, score: full[s]! });
  chosen.sort((a, b) => b.score - a.score);
  const out = chosen.slice(0, k).map((c) => c.id);
  return out;
}
