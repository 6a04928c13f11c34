import { FNV_OFFSET, FNV_PRIME } from '../fnv';
import { porterStem } from './porter';

/**
 * The tokenizer of Google's `rouge_score` (lower-case; every run of characters other than a-z and
 * 0-9 separates tokens; tokens longer than three characters Porter-stemmed when stemming), and
 * the small integers the LCS compares instead of tokens: each stemmed form gets an id. Scoring a
 * run looks up millions of tokens, so the lookup hashes a token's characters while the text is
 * scanned and compares it in place: a token seen before costs no substring and no stemming.
 */

/** Stemmed form → id. */
const formIds = new Map<string, number>();

/** The id of a form (a stemmed token, or a token as is). */
export function formId(form: string): number {
  let id = formIds.get(form);
  if (id === undefined) formIds.set(form, (id = formIds.size));
  return id;
}

/** How many form ids there are: every id is below it. */
export function formCount(): number {
  return formIds.size;
}

/** Token → id of its form, in an open-addressing table keyed by the token's FNV-1a hash. */
class TokenTable {
  #keys: string[] = [];
  #hashes = new Int32Array(1024);
  #ids = new Int32Array(1024);
  /** Entry index + 1 per slot (0: empty); twice the entries at least. */
  #slots = new Int32Array(4096);

  constructor(private readonly stemming: boolean) {}

  clear(): void {
    this.#keys = [];
    this.#slots.fill(0);
  }

  /** The form id of `text`'s characters [start, end), whose FNV-1a hash is `hash`. */
  id(text: string, start: number, end: number, hash: number): number {
    const mask = this.#slots.length - 1;
    const length = end - start;
    let slot = hash & mask;
    for (let entry = this.#slots[slot]! - 1; entry >= 0; entry = this.#slots[slot]! - 1) {
      if (this.#hashes[entry] === hash) {
        const key = this.#keys[entry]!;
        if (key.length === length && text.startsWith(key, start)) return this.#ids[entry]!;
      }
      slot = (slot + 1) & mask;
    }
    const token = text.slice(start, end);
    const id = formId(this.stemming && length > 3 ? porterStem(token) : token);
    const entry = this.#keys.length;
    if (entry === this.#hashes.length) {
      this.#hashes = grow(this.#hashes);
      this.#ids = grow(this.#ids);
    }
    this.#keys.push(token);
    this.#hashes[entry] = hash;
    this.#ids[entry] = id;
    this.#slots[slot] = entry + 1;
    if (this.#keys.length * 2 > this.#slots.length) this.#rehash();
    return id;
  }

  #rehash(): void {
    this.#slots = new Int32Array(this.#slots.length * 2);
    const mask = this.#slots.length - 1;
    for (let entry = 0; entry < this.#keys.length; entry++) {
      let slot = this.#hashes[entry]! & mask;
      while (this.#slots[slot] !== 0) slot = (slot + 1) & mask;
      this.#slots[slot] = entry + 1;
    }
  }
}

function grow(array: Int32Array<ArrayBuffer>): Int32Array<ArrayBuffer> {
  const out = new Int32Array(array.length * 2);
  out.set(array);
  return out;
}

const stemmedIds = new TokenTable(true);
const plainIds = new TokenTable(false);

/** Forgets the token tables when they grow large (only between two scorings, never inside one). */
export function trimTokenTables(): void {
  if (formIds.size > 2_000_000) {
    stemmedIds.clear();
    plainIds.clear();
    formIds.clear();
  }
}

function isTokenChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 48 && c <= 57);
}

/** `rouge_score`'s tokens of a text, as strings. */
export function rougeTokens(text: string, stemming = true): string[] {
  const out: string[] = [];
  for (const p of text.toLowerCase().split(/[^a-z0-9]+/)) {
    if (p !== '') out.push(stemming && p.length > 3 ? porterStem(p) : p);
  }
  return out;
}

/** A text's tokens as form ids (the LCS's input). A plain array: here a small typed array costs about a microsecond to make, several times the array. */
export type TokenIds = readonly number[];

/** `rouge_score`'s tokens of a text, as form ids (the same tokens as `rougeTokens`). */
export function rougeIds(text: string, stemming: boolean): TokenIds {
  const lower = text.toLowerCase();
  const length = lower.length;
  const table = stemming ? stemmedIds : plainIds;
  const out: number[] = [];
  let start = -1;
  let hash = 0;
  for (let i = 0; i < length; i++) {
    const c = lower.charCodeAt(i);
    if (isTokenChar(c)) {
      if (start < 0) {
        start = i;
        hash = FNV_OFFSET;
      }
      hash = Math.imul(hash ^ c, FNV_PRIME);
    } else if (start >= 0) {
      out.push(table.id(lower, start, i, hash));
      start = -1;
    }
  }
  if (start >= 0) out.push(table.id(lower, start, length, hash));
  return out;
}
