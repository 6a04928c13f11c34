/**
 * A ratings matrix read once into typed arrays, so that the agreement report can take every
 * subset of items (all, each ambiguity type, each status) without copying ratings or counting
 * strings again: each rating becomes its category's index, each item its pattern of category
 * counts (numbered in order of first appearance), and a subset's patterns are gathered from the
 * items' pattern numbers. The patterns of a subset come out exactly as `toPatterns` would build
 * them from the subset's rows (same vectors, same order, same weights), so every statistic and
 * bootstrap draw on them is the same.
 */

import { kappaFromTable, type KappaWeights, type Patterns, type RatingMatrix, type Value } from './agreement';

export interface EncodedRatings {
  categories: readonly string[];
  items: number;
  /** Columns per item in `codes`: the longest row. */
  stride: number;
  /** Each rating's category index, item by item; −1 for a missing rating or past a short row's end. */
  codes: Int32Array;
  /** Ratings per item. */
  rated: Int32Array;
  /** Each item's pattern (an index into `vectors`); −1 for an item without ratings. */
  pattern: Int32Array;
  /** The distinct count vectors, in order of first appearance. */
  vectors: number[][];
  /** Per pattern, the category more than half its ratings chose, or −1. */
  majority: Int32Array;
}

/** The q lowest digits of an exact integer in base `radix`, lowest first (exact: each step divides a multiple of the radix). */
function digits(key: number, radix: number, q: number): number[] {
  const out = new Array<number>(q);
  for (let j = 0; j < q; j++) {
    const digit = key % radix;
    out[j] = digit;
    key = (key - digit) / radix;
  }
  return out;
}

/**
 * Numbers count vectors in order of first appearance. A vector is keyed by its counts read as a
 * number in base `radix` (the key grows by radix^c with each rating of category c); while those
 * keys stay small, a table indexed by the key numbers them, else a Map does, by that number while
 * it is exact and else by the counts spelled out (a long scale rated by many).
 */
function patternNumberer(q: number, radix: number) {
  const vectors: number[][] = [];
  const place = Array.from({ length: q }, (_, c) => radix ** c);
  const small = radix ** q <= 1 << 20;
  const exact = radix ** q <= Number.MAX_SAFE_INTEGER;
  const slots = small ? new Int32Array(radix ** q).fill(-1) : null;
  const byKey = new Map<number | string, number>();
  return {
    vectors,
    place,
    /** The pattern of the item whose category indexes are codes[from, to) (−1 for missing), its key given. */
    number(key: number, codes: Int32Array, from: number, to: number): number {
      if (slots && slots[key]! >= 0) return slots[key]!;
      let counts: number[] | null = null;
      let mapKey: number | string = key;
      if (!exact) {
        counts = new Array<number>(q).fill(0);
        for (let r = from; r < to; r++) if (codes[r]! >= 0) counts[codes[r]!]!++;
        mapKey = counts.join(',');
      }
      let at = slots ? -1 : (byKey.get(mapKey) ?? -1);
      if (at < 0) {
        at = vectors.push(counts ?? digits(key, radix, q)) - 1;
        if (slots) slots[key] = at;
        else byKey.set(mapKey, at);
      }
      return at;
    },
  };
}

/** Reads a ratings matrix (one row per item) on a scale with these categories; a rating outside them is refused as `toPatterns` refuses it. */
export function encodeRatings(matrix: RatingMatrix, categories: readonly string[]): EncodedRatings {
  const q = categories.length;
  const items = matrix.length;
  let stride = 0;
  for (const row of matrix) if (row.length > stride) stride = row.length;
  const codes = new Int32Array(items * stride).fill(-1);
  const rated = new Int32Array(items);
  const pattern = new Int32Array(items);
  // The category of a rating as `toPatterns` finds it (the last category of that name).
  const index = q > 8 ? new Map(categories.map((c, i) => [c, i])) : null;
  const patterns = patternNumberer(q, stride + 1);
  const place = patterns.place;
  for (let i = 0; i < items; i++) {
    const row = matrix[i]!;
    let n = 0;
    let key = 0;
    for (let r = 0; r < row.length; r++) {
      const rating = row[r]!;
      if (rating === null) continue;
      let c = q - 1;
      if (index) c = index.get(rating) ?? -1;
      else while (c >= 0 && categories[c] !== rating) c--;
      if (c < 0) throw new Error(`Rating ${JSON.stringify(rating)} is not one of the categories ${categories.join(', ')}`);
      codes[i * stride + r] = c;
      key += place[c]!;
      n++;
    }
    rated[i] = n;
    pattern[i] = n === 0 ? -1 : patterns.number(key, codes, i * stride, (i + 1) * stride);
  }
  const majority = Int32Array.from(patterns.vectors, (vector) => {
    const n = vector.reduce((a, b) => a + b, 0);
    return vector.findIndex((c) => c > n / 2);
  });
  return { categories, items, stride, codes, rated, pattern, vectors: patterns.vectors, majority };
}

/** Every item, in order: the subset "all". */
export const allItems = (items: number): Int32Array => Int32Array.from({ length: items }, (_, i) => i);

/** The patterns of the items at `indexes` (in that order), as `toPatterns` builds them from those rows. */
export function subsetPatterns(e: EncodedRatings, indexes: Int32Array): Patterns {
  const local = new Int32Array(e.vectors.length).fill(-1);
  const counts: number[][] = [];
  const weights: number[] = [];
  let items = 0;
  for (let k = 0; k < indexes.length; k++) {
    const g = e.pattern[indexes[k]!]!;
    if (g < 0) continue;
    items++;
    const at = local[g]!;
    if (at < 0) {
      local[g] = counts.length;
      counts.push(e.vectors[g]!);
      weights.push(1);
    } else weights[at]!++;
  }
  return { categories: e.categories, counts, weights, items };
}

/** The most ratings any item at `indexes` has (Fleiss' n, raters per item). */
export function mostRatings(e: EncodedRatings, indexes: Int32Array): number {
  let most = 0;
  for (let k = 0; k < indexes.length; k++) most = Math.max(most, e.rated[indexes[k]!]!);
  return most;
}

/**
 * Cohen's kappa for every ordered pair of the first `columns` columns over the items at
 * `indexes` both raters rated: [a][b] as `cohenKappa(column a, column b)` computes it, the
 * diagonal null. One pass over the items per column a fills the contingency tables of a with
 * every later column (a column past the end of the rows is all missing).
 */
export function pairKappas(e: EncodedRatings, indexes: Int32Array, columns: number, weights: KappaWeights): ((Value & { items: number }) | null)[][] {
  const q = e.categories.length;
  const { codes, stride } = e;
  const out = Array.from({ length: columns }, () => new Array<(Value & { items: number }) | null>(columns).fill(null));
  const tables = new Int32Array(columns * q * q);
  for (let a = 0; a < columns; a++) {
    tables.fill(0);
    const last = Math.min(columns, stride);
    for (let k = 0; a < last && k < indexes.length; k++) {
      const at = indexes[k]! * stride;
      const x = codes[at + a]!;
      if (x < 0) continue;
      for (let b = a + 1; b < last; b++) {
        const y = codes[at + b]!;
        if (y >= 0) tables[(b * q + x) * q + y]!++;
      }
    }
    for (let b = a + 1; b < columns; b++) {
      const table = (transposed: boolean) => Array.from({ length: q }, (_, x) => Array.from({ length: q }, (__, y) => tables[(b * q + (transposed ? y : x)) * q + (transposed ? x : y)]!));
      out[a]![b] = kappaOfTable(table(false), weights);
      out[b]![a] = kappaOfTable(table(true), weights);
    }
  }
  return out;
}

/** `cohenKappa`'s result from its contingency table. */
function kappaOfTable(table: number[][], weights: KappaWeights): Value & { items: number } {
  const n = table.reduce((s, row) => s + row.reduce((x, y) => x + y, 0), 0);
  if (n === 0) return { value: null, reason: 'the two raters share no item', items: 0 };
  return { ...kappaFromTable(table, weights), items: n };
}
