import { describe, expect, it } from 'vitest';
import { draw, MARCH_PROFILE, profileDetect, profileFilter } from '../../electron/dev/fake-profile';
import { CostCeiling, PriceTable } from '../../electron/services/pipeline/budget';
import type { VoteRule } from '../../shared/pipeline';
import { formatCost, runStageOrder, RUN_STAGES } from '../../shared/pipeline';
import { asksEveryone, cachedFirst, decided, decidedUnanimous, orderEpoch, orderVoters, passes, rejectionRate, type VoterRecord } from '../../shared/pipeline-rules';

/** Early exit's rules, the fake's MARCH profile and the price table, each against values computed another way. */

describe('decided', () => {
  const rules: VoteRule[] = ['all', 'majority', { atLeast: 1 }, { atLeast: 2 }, { atLeast: 3 }];
  it('is pass or fail exactly when every way the open voters can answer gives that outcome (brute force, up to five voters)', () => {
    let checked = 0;
    for (const rule of rules) {
      for (let voters = 1; voters <= 5; voters++) {
        for (let yes = 0; yes <= voters; yes++) {
          for (let no = 0; yes + no <= voters; no++) {
            const open = voters - yes - no;
            // Every completion: k of the open voters say yes.
            const outcomes = new Set(Array.from({ length: open + 1 }, (_, k) => passes(rule, yes + k, voters)));
            const expected = outcomes.size === 2 ? null : outcomes.has(true) ? 'pass' : 'fail';
            expect(decided(rule, yes, no, voters), `${JSON.stringify(rule)} ${yes}/${no}/${voters}`).toBe(expected);
            checked++;
          }
        }
      }
    }
    expect(checked).toBe(5 * (3 + 6 + 10 + 15 + 21));
  });

  it('decides unanimity at the first rejection and a pass only with every vote', () => {
    expect(decided('all', 0, 1, 4)).toBe('fail');
    expect(decided('all', 3, 0, 4)).toBeNull();
    expect(decided('all', 4, 0, 4)).toBe('pass');
    expect(decided('majority', 3, 0, 4)).toBe('pass');
    expect(() => decided('all', 3, 2, 4)).toThrow(RangeError);
  });

  it('decides a unanimous label at the first disagreement', () => {
    expect(decidedUnanimous(['a', 'b'], 3)).toBe('fail');
    expect(decidedUnanimous(['a', 'a'], 3)).toBeNull();
    expect(decidedUnanimous(['a', 'a', 'a'], 3)).toBe('pass');
  });
});

describe('the order voters are asked in', () => {
  const rec = (asked: number, rejected: number, meanUsd: number | null, meanTokens: number | null = 100): VoterRecord => ({ asked, rejected, meanUsd, meanTokens });

  it('keeps the configured order until every voter has its warm-up votes', () => {
    const records: Record<string, VoterRecord> = { a: rec(40, 1, 1), b: rec(29, 20, 0.1) };
    expect(orderVoters(['a', 'b'], (v) => records[v], 30)).toEqual(['a', 'b']);
    expect(orderVoters(['a', 'c'], (v) => records[v], 0)).toEqual(['a', 'c']);
  });

  it('asks first the voter with the lowest cost per expected rejection, which minimises the expected cost of a unanimous vote', () => {
    const records: Record<string, VoterRecord> = { cheapLenient: rec(100, 10, 0.1), dearStrict: rec(100, 90, 2), cheapStrict: rec(100, 60, 0.15) };
    const order = orderVoters(Object.keys(records), (v) => records[v], 30);
    expect(order).toEqual(['cheapStrict', 'cheapLenient', 'dearStrict']);
    // Independently: the expected cost of asking until the first rejection, over every order.
    const expectedCost = (o: string[]) => {
      let cost = 0;
      let reached = 1;
      for (const v of o) {
        cost += reached * records[v]!.meanUsd!;
        reached *= 1 - rejectionRate(records[v]!);
      }
      return cost;
    };
    const permutations = (xs: string[]): string[][] => (xs.length <= 1 ? [xs] : xs.flatMap((x, i) => permutations([...xs.slice(0, i), ...xs.slice(i + 1)]).map((p) => [x, ...p])));
    const best = Math.min(...permutations(Object.keys(records)).map(expectedCost));
    expect(expectedCost(order)).toBeCloseTo(best, 12);
  });

  it('ranks by tokens when a voter has no price, and breaks ties by the higher rate, then the configured order', () => {
    const records: Record<string, VoterRecord> = { a: rec(50, 10, null, 400), b: rec(50, 10, 0.5, 100) };
    expect(orderVoters(['a', 'b'], (v) => records[v], 30)).toEqual(['b', 'a']);
    const tied: Record<string, VoterRecord> = { a: rec(50, 10, 1), b: rec(50, 10, 1) };
    expect(orderVoters(['b', 'a'], (v) => tied[v], 30)).toEqual(['b', 'a']);
  });

  it('picks a fixed share of items to ask everyone, by hash', () => {
    const items = Array.from({ length: 20_000 }, (_, i) => `detect|semantic|bq:${i}`);
    const share = items.filter((i) => asksEveryone(i, 0.02)).length / items.length;
    expect(share).toBeGreaterThan(0.017);
    expect(share).toBeLessThan(0.023);
    expect(items.filter((i) => asksEveryone(i, 0.02))).toEqual(items.filter((i) => asksEveryone(i, 0.02)));
    expect([asksEveryone('x', 0), asksEveryone('x', 1)]).toEqual([false, true]);
  });
});

describe('where an item takes its voting order from', () => {
  it('asks everyone on the warm-up items, then freezes the statistics at doubling places of the item list (once, for a batched stage)', () => {
    const epochs = (growth: 'double' | 'once') => [0, 29, 30, 59, 60, 119, 120, 239, 240, 10_000].map((i) => orderEpoch(i, 30, growth));
    expect(epochs('double')).toEqual(['everyone', 'everyone', 30, 30, 60, 60, 120, 120, 240, 7680]);
    expect(epochs('once')).toEqual(['everyone', 'everyone', 30, 30, 30, 30, 30, 30, 30, 30]);
    // Without a warm-up: the first item has no statistics (the configured order), then boundaries 1, 2, 4, ...
    expect([0, 1, 2, 3, 4, 7, 8].map((i) => orderEpoch(i, 0, 'double'))).toEqual([0, 1, 2, 2, 4, 4, 8]);
    // Every boundary is at most the item's own place: an item never waits for itself or a later one.
    for (let i = 0; i < 5000; i += 7) {
      const e = orderEpoch(i, 30, 'double');
      if (typeof e === 'number') expect(e).toBeLessThanOrEqual(i);
    }
  });

  it('puts voters with a cached answer first, each group in the order given', () => {
    expect(cachedFirst(['a', 'b', 'c', 'd'], (v) => v === 'c' || v === 'd')).toEqual(['c', 'd', 'a', 'b']);
    expect(cachedFirst(['a', 'b'], () => false)).toEqual(['a', 'b']);
  });
});

describe('stage order and costs as shown', () => {
  it('lists the stages in the order a run takes them', () => {
    expect(RUN_STAGES).toEqual(['detect', 'clarify', 'decompose', 'retrieve', 'answer', 'shorten', 'collide', 'merge', 'filter']);
    expect(runStageOrder(false)).toEqual(['detect', 'clarify', 'decompose', 'retrieve', 'answer', 'merge', 'shorten', 'collide', 'filter']);
  });

  it('never shows calls without a price as free', () => {
    expect([formatCost(0), formatCost(0.5), formatCost(0, 3), formatCost(0.5, 3)]).toEqual(['$0', '$0.5000', 'unknown', '≥$0.5000']);
    expect([formatCost(0, 1, true), formatCost(0.5, 3, true)]).toEqual(['unknown (1 call unpriced)', '≥ $0.5000, 3 calls unpriced']);
  });
});

describe("the fake's MARCH profile", () => {
  const questions = Array.from({ length: 6000 }, (_, i) => `question ${i}?`);
  const detectors = ['det-1', 'det-2', 'det-3', 'det-4'];

  it("keeps MARCH's share of question-type pairs under four detectors' full agreement (Table 2: 38.4%, 34.8%, 47.1%)", () => {
    for (const [type, paper] of [['semantic', 0.384], ['syntactic', 0.348], ['constraint', 0.471]] as const) {
      const kept = questions.filter((q) => detectors.every((d) => profileDetect(MARCH_PROFILE, q, type, d))).length / questions.length;
      // The profile's own expectation: a·0.97⁴ plus the false agreements of the rest, 0.35·0.25·0.15·0.10.
      const expected = paper + (1 - MARCH_PROFILE.ambiguous[type]) * 0.35 * 0.25 * 0.15 * 0.1;
      expect(Math.abs(kept - expected), type).toBeLessThan(0.02);
    }
  });

  it("keeps MARCH's share at a unanimous filter (51.0%)", () => {
    const kept = questions.filter((q) => ['fil-1', 'fil-2', 'fil-3'].every((f) => profileFilter(MARCH_PROFILE, q, 'semantic', f))).length / questions.length;
    expect(Math.abs(kept - 0.51)).toBeLessThan(0.02);
  });

  it('draws the same value for the same keys, uniformly', () => {
    expect(draw('a', 'b')).toBe(draw('a', 'b'));
    const mean = Array.from({ length: 10_000 }, (_, i) => draw(String(i))).reduce((a, b) => a + b, 0) / 10_000;
    expect(Math.abs(mean - 0.5)).toBeLessThan(0.01);
  });
});

describe('prices and the cost ceiling', () => {
  const table = new PriceTable([{ model: 'gen', input: 2, output: 8 }], { fil: { input: 1, output: 2, batchInput: 0.4, batchOutput: 0.9, cachedInput: 0.25 } });

  it('prices batch calls at the batch price, or half the synchronous one, and cached prompt tokens at the cached price', () => {
    expect(table.cost('gen', 'sync', 1_000_000, 1_000_000)).toBe(10);
    expect(table.cost('gen', 'batch', 1_000_000, 1_000_000)).toBe(5);
    expect(table.cost('fil', 'batch', 1_000_000, 1_000_000)).toBeCloseTo(1.3, 12);
    expect(table.cost('fil', 'sync', 1_000_000, 0, 400_000)).toBeCloseTo(0.6 + 0.1, 12);
    expect(table.cost('unknown', 'sync', 10, 10)).toBeNull();
  });

  it('refuses a reservation that would pass the ceiling, saying what was spent, and stays stopped', () => {
    let spent = 4.5;
    const ceiling = new CostCeiling({ maxUsd: 5, maxTokens: null }, () => ({ usd: spent, tokens: 0 }));
    const first = ceiling.reserve({ usd: 0.4, tokens: 10 });
    expect(() => ceiling.reserve({ usd: 0.2, tokens: 10 })).toThrow(/cost ceiling reached: \$4\.50 spent and \$0\.4000 reserved by calls in flight, of \$5\.00/);
    ceiling.release(first);
    spent = 1;
    expect(() => ceiling.reserve({ usd: 0.01, tokens: 1 })).toThrow(/cost ceiling reached/);
  });
});
