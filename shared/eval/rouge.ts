import { asqaSentences, PUNKT_BUILTIN, type PunktParams } from './punkt';
import { formCount, formId, rougeIds, trimTokenTables, type TokenIds } from './rouge-tokens';

export { rougeTokens } from './rouge-tokens';

/**
 * ROUGE-L as ASQA reports it: Google's `rouge_score` tokenizer (Porter-stemmed tokens, as ids:
 * rouge-tokens.ts), ASQA's sentence split for rougeLsum (Punkt on the lower-cased text, punkt.ts),
 * and the LCS behind both variants, computed bit-parallel with its buffers reused between calls:
 * scoring a run computes millions of LCS cells.
 */

export interface RougeScore {
  precision: number;
  recall: number;
  f: number;
}

const ZERO: RougeScore = { precision: 0, recall: 0, f: 0 };

function fMeasure(precision: number, recall: number): number {
  return precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
}

// ---- LCS, bit-parallel -------------------------------------------------------------------------
//
// The LCS table of a reference (rows) against a candidate (columns) is computed a row at a time as
// a bit vector over the candidate's positions (Crochemore et al. 2001; Hyyrö 2004): with M the
// bits of the candidate positions holding the row's token and V the previous row,
// V' = (V + (V & M)) | (V & ~M), starting from all ones, and the table's cell (i, j) is the count
// of zero bits among the first j bits of row i. A row is a few machine words instead of one cell
// per position, and the cells the backtracking reads are recovered from the rows exactly.

/** Token id → its slot among the current candidate's distinct tokens (-1: not in it); reset after each candidate. */
let slotOf = new Int32Array(1024).fill(-1);
/** Per slot, the bits of the candidate positions holding that token (`words` words a slot). */
let masks = new Int32Array(256);
/** The rows V_0..V_m of the current reference against the current candidate (`words` words a row). */
let rows = new Int32Array(1024);

/** A candidate's position masks, ready for rows against any reference. */
interface Candidate {
  ids: TokenIds;
  words: number;
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}

/** Sets up `slotOf` and `masks` for a candidate; `releaseCandidate` undoes it. */
function loadCandidate(ids: TokenIds): Candidate {
  const words = (ids.length + 31) >>> 5;
  let slots = 0;
  for (const id of ids) {
    if (id >= slotOf.length) {
      const grown = new Int32Array(Math.max(id + 1, slotOf.length * 2)).fill(-1);
      grown.set(slotOf);
      slotOf = grown;
    }
    if (slotOf[id] === -1) slotOf[id] = slots++;
  }
  if (masks.length < slots * words) masks = new Int32Array(slots * words * 2);
  masks.fill(0, 0, slots * words);
  for (let j = 0; j < ids.length; j++) masks[slotOf[ids[j]!]! * words + (j >>> 5)]! |= 1 << (j & 31);
  return { ids, words };
}

function releaseCandidate({ ids }: Candidate): void {
  for (const id of ids) slotOf[id] = -1;
}

/** Fills rows V_0..V_m of `ref` against the loaded candidate; returns the LCS length. */
function fillRows(ref: TokenIds, can: Candidate): number {
  const { words } = can;
  const size = (ref.length + 1) * words;
  if (rows.length < size) rows = new Int32Array(size * 2);
  rows.fill(-1, 0, words);
  for (let i = 1; i <= ref.length; i++) {
    const prev = (i - 1) * words;
    const row = i * words;
    const slot = slotOf[ref[i - 1]!] ?? -1;
    if (slot === -1) {
      rows.copyWithin(row, prev, prev + words);
      continue;
    }
    const mask = slot * words;
    let carry = 0;
    for (let w = 0; w < words; w++) {
      const v = rows[prev + w]! >>> 0;
      const u = (v & masks[mask + w]!) >>> 0;
      const sum = v + u + carry;
      carry = sum > 0xffffffff ? 1 : 0;
      rows[row + w] = sum | (v & ~u);
    }
  }
  return zerosBefore(ref.length, can.ids.length, words);
}

/** The table's cell (i, j): the zero bits among the first j bits of row i. */
function zerosBefore(i: number, j: number, words: number): number {
  const row = i * words;
  let ones = 0;
  const full = j >>> 5;
  for (let w = 0; w < full; w++) ones += popcount(rows[row + w]!);
  if (j & 31) ones += popcount(rows[row + full]! & ((1 << (j & 31)) - 1));
  return j - ones;
}

/** LCS length. */
function lcsLengthIds(a: TokenIds, b: TokenIds): number {
  if (a.length === 0 || b.length === 0) return 0;
  const can = loadCandidate(b);
  const length = fillRows(a, can);
  releaseCandidate(can);
  return length;
}

/**
 * Marks in `mark` the positions of `ref` on one LCS of `ref` and the loaded candidate,
 * backtracked as `rouge_score` does: from the end, a match steps diagonally, else left when the
 * cell to the left is larger than the one above, else up.
 */
function markLcs(ref: TokenIds, can: Candidate, mark: Uint8Array, offset: number): void {
  if (ref.length === 0 || can.ids.length === 0) return;
  const { ids, words } = can;
  let cell = fillRows(ref, can);
  let i = ref.length;
  let j = ids.length;
  while (i > 0 && j > 0) {
    if (ref[i - 1] === ids[j - 1]) {
      mark[offset + i - 1] = 1;
      i--;
      j--;
      cell--;
      continue;
    }
    const bit = (rows[i * words + ((j - 1) >>> 5)]! >>> ((j - 1) & 31)) & 1;
    const left = cell - 1 + bit;
    const up = zerosBefore(i - 1, j, words);
    if (left > up) {
      j--;
      cell = left;
    } else {
      i--;
      cell = up;
    }
  }
}

function toIds(tokens: readonly string[]): TokenIds {
  return tokens.map((t) => formId(t));
}

/** Length of the longest common subsequence of two token lists. */
export function lcsLength(a: readonly string[], b: readonly string[]): number {
  return lcsLengthIds(toIds(a), toIds(b));
}

function rougeLIds(reference: TokenIds, candidate: TokenIds): RougeScore {
  if (reference.length === 0 || candidate.length === 0) return ZERO;
  const lcs = lcsLengthIds(reference, candidate);
  const precision = lcs / candidate.length;
  const recall = lcs / reference.length;
  return { precision, recall, f: fMeasure(precision, recall) };
}

/** Per token id, how often it is still unmatched in the reference / the candidate (reset after each score). */
let refLeft = new Int32Array(1024);
let canLeft = new Int32Array(1024);
/** Per token of the reference sentences side by side: whether it is on the LCS with some candidate sentence. */
let union = new Uint8Array(1024);

function rougeLsumIds(reference: readonly TokenIds[], candidate: readonly TokenIds[]): RougeScore {
  let m = 0;
  let n = 0;
  for (const s of reference) m += s.length;
  for (const s of candidate) n += s.length;
  if (m === 0 || n === 0) return ZERO;
  // The union of each reference sentence's LCS with every candidate sentence (the order of the
  // candidates does not change a union), all reference sentences side by side.
  if (union.length < m) union = new Uint8Array(m * 2);
  union.fill(0, 0, m);
  for (const c of candidate) {
    if (c.length === 0) continue;
    const loaded = loadCandidate(c);
    let offset = 0;
    for (const r of reference) {
      markLcs(r, loaded, union, offset);
      offset += r.length;
    }
    releaseCandidate(loaded);
  }
  if (refLeft.length < formCount()) {
    refLeft = new Int32Array(formCount() * 2);
    canLeft = new Int32Array(formCount() * 2);
  }
  for (const s of reference) for (const t of s) refLeft[t]!++;
  for (const s of candidate) for (const t of s) canLeft[t]!++;
  let hits = 0;
  let offset = 0;
  for (const r of reference) {
    for (let index = 0; index < r.length; index++) {
      if (!union[offset + index]) continue;
      const token = r[index]!;
      if (canLeft[token]! > 0 && refLeft[token]! > 0) {
        hits++;
        canLeft[token]!--;
        refLeft[token]!--;
      }
    }
    offset += r.length;
  }
  for (const s of reference) for (const t of s) refLeft[t] = 0;
  for (const s of candidate) for (const t of s) canLeft[t] = 0;
  const precision = hits / n;
  const recall = hits / m;
  return { precision, recall, f: fMeasure(precision, recall) };
}

/**
 * Summary-level ROUGE-L ("rougeLsum", Lin 2004 §3.2, as `rouge_score` computes it): for each
 * reference sentence, the union of its LCS with every candidate sentence; a hit is counted at
 * most as often as the token occurs on each side.
 */
export function rougeLsumTokens(reference: readonly (readonly string[])[], candidate: readonly (readonly string[])[]): RougeScore {
  return rougeLsumIds(reference.map(toIds), candidate.map(toIds));
}

export type RougeVariant = 'rougeLsum' | 'rougeL';

export interface RougeOptions {
  /** rougeLsum (the default, as ASQA reports) or rougeL over the whole text. */
  variant?: RougeVariant;
  /** Porter stemming of tokens longer than three characters (default true, as ASQA). */
  stemming?: boolean;
  /** Punkt's parameters for the rougeLsum sentence split (default: the built-in ones). */
  punkt?: PunktParams;
}

function prepare(text: string, variant: RougeVariant, stemming: boolean, punkt: PunktParams): TokenIds[] {
  return variant === 'rougeL' ? [rougeIds(text, stemming)] : asqaSentences(text, punkt).map((s) => rougeIds(s, stemming));
}

/**
 * ASQA's ROUGE-L of an item: the F-measure of the candidate against each reference long answer,
 * best over the references (null when there is no reference). For rougeLsum both sides are
 * split into sentences as ASQA's scorer does: Punkt on the lower-cased text, then on newlines.
 */
export function rougeL(candidate: string, references: readonly string[], options: RougeOptions = {}): number | null {
  if (references.length === 0) return null;
  trimTokenTables();
  const variant = options.variant ?? 'rougeLsum';
  const stemming = options.stemming ?? true;
  const punkt = options.punkt ?? PUNKT_BUILTIN;
  const can = prepare(candidate, variant, stemming, punkt);
  let best = 0;
  for (const ref of references) {
    const r = prepare(ref, variant, stemming, punkt);
    const score = variant === 'rougeL' ? rougeLIds(r[0]!, can[0]!) : rougeLsumIds(r, can);
    if (score.f > best) best = score.f;
  }
  return best;
}
