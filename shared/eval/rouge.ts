import { porterStem } from './porter';
import { asqaSentences, PUNKT_BUILTIN, type PunktParams } from './punkt';

/**
 * ROUGE-L as ASQA reports it: Google's `rouge_score` tokenizer (Porter-stemmed tokens), ASQA's
 * sentence split for rougeLsum (Punkt on the lower-cased text, punkt.ts), and the LCS tables
 * behind both variants. Tokens are mapped to small
 * integers so that the LCS compares numbers, and the tables are reused between calls: scoring a
 * run computes millions of LCS cells.
 */


/** Token → id of its (stemmed) form, so that LCS compares small integers. */
const stemmedIds = new Map<string, number>();
const plainIds = new Map<string, number>();
const formIds = new Map<string, number>();

function formId(form: string): number {
  let id = formIds.get(form);
  if (id === undefined) formIds.set(form, (id = formIds.size));
  return id;
}

/** Forgets the token tables when they grow large (only between two scorings, never inside one). */
function trimTokenTables(): void {
  if (formIds.size > 2_000_000) {
    stemmedIds.clear();
    plainIds.clear();
    formIds.clear();
  }
}

function tokenId(token: string, stemming: boolean): number {
  const table = stemming ? stemmedIds : plainIds;
  let id = table.get(token);
  if (id === undefined) {
    id = formId(stemming && token.length > 3 ? porterStem(token) : token);
    table.set(token, id);
  }
  return id;
}

/**
 * The tokenizer of Google's `rouge_score`: lower-case, every run of characters other than a-z
 * and 0-9 is a separator, tokens longer than three characters Porter-stemmed (with stemming).
 */
export function rougeTokens(text: string, stemming = true): string[] {
  const out: string[] = [];
  for (const p of text.toLowerCase().split(/[^a-z0-9]+/)) {
    if (p !== '') out.push(stemming && p.length > 3 ? porterStem(p) : p);
  }
  return out;
}

function rougeIds(text: string, stemming: boolean): Int32Array {
  const parts = text.toLowerCase().split(/[^a-z0-9]+/);
  const out = new Int32Array(parts.length);
  let n = 0;
  for (const p of parts) if (p !== '') out[n++] = tokenId(p, stemming);
  return out.subarray(0, n);
}

export interface RougeScore {
  precision: number;
  recall: number;
  f: number;
}

const ZERO: RougeScore = { precision: 0, recall: 0, f: 0 };

function fMeasure(precision: number, recall: number): number {
  return precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
}

let table = new Int32Array(4096);
let rowA = new Int32Array(256);
let rowB = new Int32Array(256);

/** LCS length with two rolling rows. */
function lcsLengthIds(a: Int32Array, b: Int32Array): number {
  if (a.length === 0 || b.length === 0) return 0;
  if (rowA.length <= b.length) {
    rowA = new Int32Array(b.length * 2 + 1);
    rowB = new Int32Array(b.length * 2 + 1);
  }
  let prev = rowA;
  let cur = rowB;
  prev.fill(0, 0, b.length + 1);
  cur[0] = 0;
  for (let i = 0; i < a.length; i++) {
    const ai = a[i]!;
    for (let j = 1; j <= b.length; j++) {
      if (ai === b[j - 1]) cur[j] = prev[j - 1]! + 1;
      else {
        const up = prev[j]!;
        const left = cur[j - 1]!;
        cur[j] = up > left ? up : left;
      }
    }
    const t = prev;
    prev = cur;
    cur = t;
  }
  return prev[b.length]!;
}

/** Marks in `mark` the positions of `ref` on one LCS of `ref` and `can`, backtracked as `rouge_score` does. */
function markLcs(ref: Int32Array, can: Int32Array, mark: Uint8Array): void {
  if (ref.length === 0 || can.length === 0) return;
  const cols = can.length + 1;
  const size = (ref.length + 1) * cols;
  if (table.length < size) table = new Int32Array(Math.max(size, table.length * 2));
  const t = table;
  t.fill(0, 0, cols);
  for (let i = 1; i <= ref.length; i++) {
    const row = i * cols;
    const prev = row - cols;
    t[row] = 0;
    const ri = ref[i - 1];
    for (let j = 1; j <= can.length; j++) {
      if (ri === can[j - 1]) t[row + j] = t[prev + j - 1]! + 1;
      else {
        const up = t[prev + j]!;
        const left = t[row + j - 1]!;
        t[row + j] = up > left ? up : left;
      }
    }
  }
  let i = ref.length;
  let j = can.length;
  while (i > 0 && j > 0) {
    if (ref[i - 1] === can[j - 1]) {
      mark[i - 1] = 1;
      i--;
      j--;
    } else if (t[i * cols + j - 1]! > t[(i - 1) * cols + j]!) j--;
    else i--;
  }
}

function toIds(tokens: readonly string[]): Int32Array {
  return Int32Array.from(tokens, (t) => formId(t));
}

/** Length of the longest common subsequence of two token lists. */
export function lcsLength(a: readonly string[], b: readonly string[]): number {
  return lcsLengthIds(toIds(a), toIds(b));
}

function rougeLIds(reference: Int32Array, candidate: Int32Array): RougeScore {
  if (reference.length === 0 || candidate.length === 0) return ZERO;
  const lcs = lcsLengthIds(reference, candidate);
  const precision = lcs / candidate.length;
  const recall = lcs / reference.length;
  return { precision, recall, f: fMeasure(precision, recall) };
}

function rougeLsumIds(reference: readonly Int32Array[], candidate: readonly Int32Array[]): RougeScore {
  let m = 0;
  let n = 0;
  for (const s of reference) m += s.length;
  for (const s of candidate) n += s.length;
  if (m === 0 || n === 0) return ZERO;
  const refCounts = new Map<number, number>();
  const canCounts = new Map<number, number>();
  for (const s of reference) for (const t of s) refCounts.set(t, (refCounts.get(t) ?? 0) + 1);
  for (const s of candidate) for (const t of s) canCounts.set(t, (canCounts.get(t) ?? 0) + 1);
  let hits = 0;
  for (const r of reference) {
    const union = new Uint8Array(r.length);
    for (const c of candidate) markLcs(r, c, union);
    for (let index = 0; index < r.length; index++) {
      if (!union[index]) continue;
      const token = r[index]!;
      const inCan = canCounts.get(token) ?? 0;
      const inRef = refCounts.get(token) ?? 0;
      if (inCan > 0 && inRef > 0) {
        hits++;
        canCounts.set(token, inCan - 1);
        refCounts.set(token, inRef - 1);
      }
    }
  }
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

function prepare(text: string, variant: RougeVariant, stemming: boolean, punkt: PunktParams): Int32Array[] {
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
