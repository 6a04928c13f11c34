/**
 * Splits: named fractions drawn with a seed and stratified by ambiguity type, or each source's
 * own split. The draw depends only on the seed and the instances' stable keys, never on database
 * ids or insertion order, so the same selection and seed give the same splits anywhere.
 */

export const SPLIT_NAME = /^[a-z][a-z0-9_]{0,39}$/;

/** Parses `train=0.8,test=0.2`; throws with a readable message. */
export function parseSplitSpec(text: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const part of text.split(',').map((s) => s.trim()).filter(Boolean)) {
    const m = /^([^=]+)=(.+)$/.exec(part);
    if (!m) throw new Error(`"${part}" is not NAME=FRACTION`);
    const name = m[1]!.trim();
    const value = Number(m[2]);
    if (!Number.isFinite(value)) throw new Error(`"${m[2]}" is not a number`);
    out[name] = value;
  }
  return out;
}

/** Why a set of fractions is not usable, or null. */
export function splitProblem(fractions: Record<string, number>): string | null {
  const names = Object.keys(fractions);
  if (!names.length) return 'name at least one split';
  for (const name of names) {
    if (!SPLIT_NAME.test(name)) return `split name "${name}" must be lower-case letters, digits and _ (starting with a letter)`;
    const f = fractions[name]!;
    if (!(f > 0 && f <= 1)) return `split "${name}" needs a fraction above 0 and at most 1`;
  }
  const sum = names.reduce((a, n) => a + fractions[n]!, 0);
  if (Math.abs(sum - 1) > 1e-6) return `the fractions add up to ${Number(sum.toFixed(6))}, not 1`;
  return null;
}

/** Splits `n` items by the fractions (largest remainder; ties to the earlier split). */
export function allocate(n: number, fractions: readonly number[]): number[] {
  const exact = fractions.map((f) => f * n);
  const counts = exact.map(Math.floor);
  let left = n - counts.reduce((a, b) => a + b, 0);
  const order = exact.map((e, i) => ({ i, r: e - Math.floor(e) })).sort((a, b) => b.r - a.r || a.i - b.i);
  for (const { i } of order) {
    if (left <= 0) break;
    counts[i]!++;
    left--;
  }
  return counts;
}

/** A 53-bit hash of the seed and a key (FNV-1a over UTF-16 units, two lanes, then mixed). */
export function seededKeyHash(seed: number, key: string): number {
  let h1 = 0x811c9dc5 ^ (seed >>> 0);
  let h2 = 0x01000193 ^ Math.imul(seed >>> 0, 0x9e3779b1);
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x5bd1e995);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 0x85ebca6b) ^ Math.imul(h2 ^ (h2 >>> 13), 0xc2b2ae35);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 0x27d4eb2d) ^ h1;
  return (h1 >>> 0) * 2 ** 21 + ((h2 >>> 0) & 0x1fffff);
}

/**
 * Assigns every item to a split, stratified by group (ambiguity type): within each group the items
 * are ordered by their seeded key hash and cut by the allocated counts. `groups[i]` is item i's
 * group index and `hashes[i]` its hash; returns the split index per item.
 */
export function assignSplits(groups: Uint8Array, hashes: Float64Array, count: number, fractions: readonly number[]): Uint8Array {
  const out = new Uint8Array(count);
  const sizes = new Map<number, number>();
  for (let i = 0; i < count; i++) sizes.set(groups[i]!, (sizes.get(groups[i]!) ?? 0) + 1);
  const byGroup = new Map<number, { items: Uint32Array; length: number }>();
  for (const [group, size] of sizes) byGroup.set(group, { items: new Uint32Array(size), length: 0 });
  for (let i = 0; i < count; i++) {
    const list = byGroup.get(groups[i]!)!;
    list.items[list.length++] = i;
  }
  for (const { items } of byGroup.values()) {
    // Ties (equal hashes) keep the items' own order, which is the order of their keys.
    const sorted = sortByHash(items, hashes);
    const counts = allocate(sorted.length, fractions);
    let at = 0;
    counts.forEach((c, split) => {
      for (let k = 0; k < c; k++) out[sorted[at++]!] = split;
    });
  }
  return out;
}

const DIGIT_BITS = 11;
const DIGITS = 1 << DIGIT_BITS;

/**
 * Items (positions, ascending) ordered by their hash, ties in position order: a least-significant
 * digit radix sort of the 53-bit hashes, five passes of 11 bits. It is stable, so it gives the
 * order of a comparison sort on (hash, position), in linear time (a release plans a million).
 */
export function sortByHash(items: Uint32Array, hashes: Float64Array): Uint32Array {
  const n = items.length;
  // The hash in two integer halves, per item: 32 low bits and 21 high bits.
  const low = new Uint32Array(n);
  const high = new Uint32Array(n);
  for (let k = 0; k < n; k++) {
    const h = hashes[items[k]!]!;
    if (!(Number.isInteger(h) && h >= 0 && h < 2 ** 53)) throw new Error(`split hash ${h} is not a seededKeyHash (an integer in [0, 2^53))`);
    low[k] = h % 2 ** 32;
    high[k] = Math.floor(h / 2 ** 32);
  }
  // Slots (indices into low and high) are sorted, then mapped back to items.
  let from = new Uint32Array(n);
  for (let k = 0; k < n; k++) from[k] = k;
  let to = new Uint32Array(n);
  const count = new Uint32Array(DIGITS);
  for (let pass = 0; pass < 5; pass++) {
    const half = pass < 3 ? low : high;
    const shift = (pass < 3 ? pass : pass - 3) * DIGIT_BITS;
    count.fill(0);
    for (let k = 0; k < n; k++) count[(half[from[k]!]! >>> shift) & (DIGITS - 1)]!++;
    let sum = 0;
    for (let d = 0; d < DIGITS; d++) {
      const c = count[d]!;
      count[d] = sum;
      sum += c;
    }
    for (let k = 0; k < n; k++) {
      const s = from[k]!;
      to[count[(half[s]! >>> shift) & (DIGITS - 1)]!++] = s;
    }
    [from, to] = [to, from];
  }
  const out = new Uint32Array(n);
  for (let k = 0; k < n; k++) out[k] = items[from[k]!]!;
  return out;
}

/** The split an instance keeps in source mode: its base question's `extra.split`, else its dataset. */
export function sourceSplitName(sourceSplit: string | null, dataset: string): string {
  const raw = (sourceSplit ?? dataset).toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_+|_+$/g, '');
  const name = /^[a-z]/.test(raw) ? raw : `s_${raw}`;
  return name.slice(0, 40) || 'data';
}
