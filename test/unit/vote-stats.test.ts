import { describe, expect, it } from 'vitest';
import { VoteStats } from '../../electron/services/pipeline/stages/vote-stats';

/**
 * The statistics the voting order is frozen from: an item past a boundary waits until every item
 * before it has finished, whatever order they finish in, and the order frozen there sees the votes
 * of those items only. A resumed run replays the orders it recorded.
 */

// Every call costs the same: the order is by rejection rate alone.
const flat = () => ({ tokens: 100, usd: 0.001 });
const items = Array.from({ length: 10 }, (_, i) => `bq:${i}`);
const settled = async (p: Promise<void>) => {
  let done = false;
  void p.then(() => (done = true));
  // Two turns of the microtask queue: enough for a resolved promise's callbacks to run.
  await Promise.resolve();
  await Promise.resolve();
  return done;
};

describe('VoteStats', () => {
  it('opens a boundary only when every item before it has finished, in whatever order they finish', async () => {
    const stats = new VoteStats(flat);
    stats.plan('detect', items, 0, 2, 'double');
    expect(items.map((i) => stats.epochOf('detect', i))).toEqual(['everyone', 'everyone', 2, 2, 4, 4, 4, 4, 8, 8]);
    const two = stats.reached('detect', 2);
    stats.finished('detect', 'bq:1');
    expect(await settled(two)).toBe(false);
    stats.finished('detect', 'bq:0');
    expect(await settled(two)).toBe(true);
    const four = stats.reached('detect', 4);
    stats.finished('detect', 'bq:3');
    expect(await settled(four)).toBe(false);
    stats.finished('detect', 'bq:2');
    expect(await settled(four)).toBe(true);
  });

  it('freezes the order from the votes of the items before the boundary, not from votes counted after it', () => {
    const stats = new VoteStats(flat);
    stats.plan('filter', items, 0, 2, 'double');
    // The warm-up items: b rejects both, a neither.
    for (const rejected of [false, false]) stats.count('filter', '', 'a', rejected);
    for (const rejected of [true, true]) stats.count('filter', '', 'b', rejected);
    stats.finished('filter', 'bq:0');
    stats.finished('filter', 'bq:1');
    expect(stats.orderAt('filter', '', 2, ['a', 'b'], 2)).toEqual(['b', 'a']);
    // Later votes turn the rates around; the order frozen at 2 stays, the next boundary sees them.
    for (let i = 0; i < 10; i++) stats.count('filter', '', 'a', true);
    for (let i = 0; i < 10; i++) stats.count('filter', '', 'b', false);
    expect(stats.orderAt('filter', '', 2, ['a', 'b'], 2)).toEqual(['b', 'a']);
    stats.finished('filter', 'bq:2');
    stats.finished('filter', 'bq:3');
    expect(stats.orderAt('filter', '', 4, ['a', 'b'], 2)).toEqual(['a', 'b']);
  });

  it('numbers a resumed run after the items it had finished, and replays the orders it recorded', async () => {
    const stats = new VoteStats(flat);
    stats.replay([{ stage: 'detect', key: 'semantic', order: ['c', 'a', 'b'], asked: 9, notNeeded: 3, epochs: [{ from: 4, order: ['c', 'a', 'b'] }] }]);
    stats.plan('detect', ['bq:7', 'bq:8', 'bq:9'], 5, 2, 'double');
    expect(['bq:7', 'bq:8', 'bq:9'].map((i) => stats.epochOf('detect', i))).toEqual([4, 4, 4]);
    // Boundary 4 lies among the items the run had finished: open at once.
    expect(await settled(stats.reached('detect', 4))).toBe(true);
    expect(stats.orderAt('detect', 'semantic', 4, ['a', 'b', 'c'], 2)).toEqual(['c', 'a', 'b']);
  });
});
