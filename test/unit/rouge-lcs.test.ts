import { describe, expect, it } from 'vitest';
import { lcsLength, rougeL, rougeLsumTokens, rougeTokens } from '../../shared/eval/rouge';
import { rougeIds } from '../../shared/eval/rouge-tokens';
import { seededRandom } from '../../shared/statistics';

/**
 * ROUGE-L computes its LCS bit-parallel and looks tokens up in a hash table of its own
 * (shared/eval/rouge.ts, rouge-tokens.ts). Both are checked here against the plain algorithms of
 * Google's `rouge_score`, written out cell by cell below, on random token lists: short and long
 * sentences (past the 32 positions of one machine word), few and many distinct tokens (ties in
 * the backtracking).
 */

/** `rouge_score`'s `_lcs_table`. */
function lcsTable(ref: readonly string[], can: readonly string[]): number[][] {
  const t = Array.from({ length: ref.length + 1 }, () => new Array<number>(can.length + 1).fill(0));
  for (let i = 1; i <= ref.length; i++) {
    for (let j = 1; j <= can.length; j++) t[i]![j] = ref[i - 1] === can[j - 1] ? t[i - 1]![j - 1]! + 1 : Math.max(t[i - 1]![j]!, t[i]![j - 1]!);
  }
  return t;
}

/** `rouge_score`'s `_backtrack_norec`: the reference positions on one LCS. */
function lcsIndices(ref: readonly string[], can: readonly string[]): number[] {
  const t = lcsTable(ref, can);
  const out: number[] = [];
  let i = ref.length;
  let j = can.length;
  while (i > 0 && j > 0) {
    if (ref[i - 1] === can[j - 1]) {
      out.unshift(i - 1);
      i--;
      j--;
    } else if (t[i]![j - 1]! > t[i - 1]![j]!) j--;
    else i--;
  }
  return out;
}

/** `rouge_score`'s `_summary_level_lcs`: hits over the union of each reference sentence's LCS with every candidate sentence. */
function summaryLevel(reference: readonly string[][], candidate: readonly string[][]): { precision: number; recall: number } {
  const m = reference.reduce((a, s) => a + s.length, 0);
  const n = candidate.reduce((a, s) => a + s.length, 0);
  if (m === 0 || n === 0) return { precision: 0, recall: 0 };
  const count = (sentences: readonly string[][]) => {
    const out = new Map<string, number>();
    for (const s of sentences) for (const t of s) out.set(t, (out.get(t) ?? 0) + 1);
    return out;
  };
  const inRef = count(reference);
  const inCan = count(candidate);
  let hits = 0;
  for (const r of reference) {
    const union = [...new Set(candidate.flatMap((c) => lcsIndices(r, c)))].sort((a, b) => a - b);
    for (const index of union) {
      const token = r[index]!;
      if (inCan.get(token)! > 0 && inRef.get(token)! > 0) {
        hits++;
        inCan.set(token, inCan.get(token)! - 1);
        inRef.set(token, inRef.get(token)! - 1);
      }
    }
  }
  return { precision: hits / n, recall: hits / m };
}

const random = seededRandom(2026);
const pick = (vocabulary: number, length: number) => Array.from({ length }, () => `t${Math.floor(random() * vocabulary)}`);
const sentences = (vocabulary: number, longest: number) => Array.from({ length: 1 + Math.floor(random() * 4) }, () => pick(vocabulary, Math.floor(random() * (longest + 1))));

describe('ROUGE-L against the plain algorithms', () => {
  it('the LCS length equals the full table, across word boundaries', () => {
    for (let k = 0; k < 600; k++) {
      const vocabulary = [2, 5, 40][k % 3]!;
      const a = pick(vocabulary, Math.floor(random() * 130));
      const b = pick(vocabulary, Math.floor(random() * 130));
      const t = lcsTable(a, b);
      expect(lcsLength(a, b)).toBe(t[a.length]![b.length]!);
    }
  });

  it('rougeLsum marks the same LCS as the backtracking of the full table, ties included', () => {
    let checked = 0;
    for (let k = 0; k < 1500; k++) {
      const vocabulary = [2, 4, 12, 60][k % 4]!;
      const longest = [6, 31, 33, 70][(k >> 2) % 4]!;
      const reference = sentences(vocabulary, longest);
      const candidate = sentences(vocabulary, longest);
      const expected = summaryLevel(reference, candidate);
      const got = rougeLsumTokens(reference, candidate);
      expect([got.precision, got.recall]).toEqual([expected.precision, expected.recall]);
      if (expected.recall > 0 && expected.recall < 1) checked++;
    }
    // Most cases are partial matches, where the choice among several LCS shows.
    expect(checked).toBeGreaterThan(1000);
  });

  it('rougeL over whole texts equals the F-measure of the full table', () => {
    for (let k = 0; k < 200; k++) {
      const a = pick(8, 1 + Math.floor(random() * 150));
      const b = pick(8, 1 + Math.floor(random() * 150));
      const lcs = lcsTable(a, b)[a.length]![b.length]!;
      const p = lcs / b.length;
      const r = lcs / a.length;
      const f = p + r > 0 ? (2 * p * r) / (p + r) : 0;
      expect(rougeL(b.join(' '), [a.join(' ')], { variant: 'rougeL', stemming: false })).toBe(f);
    }
  });
});

describe('ROUGE token ids', () => {
  it('give two tokens the same id exactly when rouge_score gives them the same stemmed form', () => {
    const pieces = ['Running', 'runs', 'ran', 'U.S.A.', 'co-op', '1990s', 'İstanbul', 'straße', 'ﬁne', 'relational', 'relate', 'x', 'X', '—', 'a1b2'];
    // Enough distinct tokens that the table grows and rehashes several times.
    const texts = Array.from({ length: 400 }, (_, k) => [...pick(9000, 20), ...pieces.filter(() => random() < 0.3)].join(random() < 0.5 ? ' ' : ', ') + ` w${k}`);
    for (const stemming of [true, false]) {
      const formOf = new Map<number, string>();
      for (const text of texts) {
        const forms = rougeTokens(text, stemming);
        const ids = rougeIds(text, stemming);
        expect(ids).toHaveLength(forms.length);
        ids.forEach((id, i) => {
          const seen = formOf.get(id);
          if (seen === undefined) formOf.set(id, forms[i]!);
          else expect(seen).toBe(forms[i]);
        });
      }
      // And distinct forms never share an id.
      expect(new Set(formOf.values()).size).toBe(formOf.size);
      expect(formOf.size).toBeGreaterThan(4000);
    }
  });
});
