import type { ModelRef, VotingSummary } from '../../../../shared/pipeline';
import { orderEpoch, orderVoters, type VoterRecord } from '../../../../shared/pipeline-rules';
import { modelName } from './context';

/**
 * What the voting stages of a run have seen of each voter, and the statistics the order of asking
 * is taken from, frozen at fixed points of each stage's item list.
 *
 * Per stage, key and voter: votes asked, and the unbiased ones among them (asked first, or on an
 * item that asked everyone) with their rejections, which give the voter's rate; a voter asked only
 * after others said yes sees mostly items that pass, so its later votes would understate how often
 * it rejects. Costs per call are the means of the calls that answered those votes, read from the
 * call store (a cached answer costs what it cost when it was paid for), so a fully cached re-run
 * sees the same costs as the run that paid.
 *
 * The order must not depend on timing: with many items at once, which votes have come back when an
 * item starts depends on the machine. So a stage's items are numbered in item order, and an item's
 * order comes from the statistics of the items before its boundary (`orderEpoch`), taken once all
 * of those have finished and before any item past the boundary has counted a vote (those wait).
 */

interface StagePlan {
  epochs: Map<string, 'everyone' | number>;
  /** Items of the stage before this index have all finished (the run's earlier items for a resumed run). */
  prefix: number;
  finished: Set<number>;
  index: Map<string, number>;
  /** Boundaries not reached yet, ascending, with the items waiting for each. */
  pending: { boundary: number; waiters: (() => void)[] }[];
}

type Means = (ids: readonly number[]) => { tokens: number | null; usd: number | null };

export class VoteStats {
  private readonly seen = new Map<string, { asked: number; rejected: number }>();
  private readonly total = new Map<string, number>();
  private readonly skipped = new Map<string, number>();
  /** Per stage, key and voter: the calls that answered its votes (for its mean cost). */
  private readonly callIds = new Map<string, number[]>();
  private readonly plans = new Map<string, StagePlan>();
  /** Per stage and boundary: the voters' records as they stood there. */
  private readonly frozen = new Map<string, Map<string, VoterRecord>>();
  /** Per stage, key and boundary: the order used (recorded with the run, replayed on resume). */
  private readonly orders = new Map<string, string[]>();
  /** Exploring items whose early-exit outcome was checked against asking everyone. */
  checked = 0;

  constructor(private readonly means: Means) {}

  private static key(...parts: (string | number)[]): string {
    return parts.join('\u0000');
  }

  count(stage: string, key: string, model: string, rejected: boolean, n = 1, unbiased = true): void {
    const k = VoteStats.key(stage, key, model);
    this.total.set(k, (this.total.get(k) ?? 0) + n);
    if (!unbiased) return;
    const entry = this.seen.get(k) ?? { asked: 0, rejected: 0 };
    entry.asked += n;
    if (rejected) entry.rejected += n;
    this.seen.set(k, entry);
  }

  /** The call that answered a vote (cached or paid), for the voter's mean cost per call. */
  cost(stage: string, key: string, model: string, callId: number): void {
    const k = VoteStats.key(stage, key, model);
    const ids = this.callIds.get(k) ?? [];
    ids.push(callId);
    this.callIds.set(k, ids);
  }

  notNeeded(stage: string, key: string, n: number): void {
    const k = VoteStats.key(stage, key);
    this.skipped.set(k, (this.skipped.get(k) ?? 0) + n);
  }

  /** Orders a run recorded (a resumed run replays them rather than freezing new ones). */
  replay(recorded: readonly VotingSummary[]): void {
    for (const v of recorded) for (const e of v.epochs ?? []) this.orders.set(VoteStats.key(v.stage, v.key, e.from), [...e.order]);
  }

  /**
   * Numbers a stage's items in item order before any is worked on: `offset` items of the stage the
   * run already finished (a resumed run) come first. A stage sent in batches freezes its order once,
   * after the warm-up; otherwise at doubling boundaries.
   */
  plan(stage: string, items: readonly string[], offset: number, warmup: number, growth: 'double' | 'once'): void {
    const epochs = new Map<string, 'everyone' | number>();
    const index = new Map<string, number>();
    const boundaries = new Set<number>();
    items.forEach((item, i) => {
      const epoch = orderEpoch(offset + i, warmup, growth);
      epochs.set(item, epoch);
      index.set(item, offset + i);
      if (typeof epoch === 'number' && epoch > 0) boundaries.add(epoch);
    });
    const pending = [...boundaries].sort((a, b) => a - b).map((boundary) => ({ boundary, waiters: [] as (() => void)[] }));
    this.plans.set(stage, { epochs, prefix: offset, finished: new Set(), index, pending });
    this.advance(stage);
  }

  /** Where an item's order comes from (unplanned items: the configured order). */
  epochOf(stage: string, item: string): 'everyone' | number {
    return this.plans.get(stage)?.epochs.get(item) ?? 0;
  }

  /** Resolves once every item of the stage before `boundary` has finished and the statistics there are frozen. */
  reached(stage: string, boundary: number): Promise<void> {
    const entry = this.plans.get(stage)?.pending.find((p) => p.boundary === boundary);
    if (!entry) return Promise.resolve();
    return new Promise((resolve) => entry.waiters.push(resolve));
  }

  /** An item of the stage is done with (whatever its outcome, or if it was never started). */
  finished(stage: string, item: string): void {
    const plan = this.plans.get(stage);
    const i = plan?.index.get(item);
    if (!plan || i === undefined) return;
    plan.finished.add(i);
    this.advance(stage);
  }

  private advance(stage: string): void {
    const plan = this.plans.get(stage)!;
    while (plan.finished.delete(plan.prefix)) plan.prefix++;
    while (plan.pending.length && plan.pending[0]!.boundary <= plan.prefix) {
      const { boundary, waiters } = plan.pending.shift()!;
      this.freeze(stage, boundary);
      for (const wake of waiters) wake();
    }
  }

  /** The records of every voter of the stage as they stand now (called when a boundary is reached). */
  private freeze(stage: string, boundary: number): void {
    const records = new Map<string, VoterRecord>();
    const prefix = VoteStats.key(stage, '');
    for (const [k, entry] of this.seen) {
      if (!k.startsWith(prefix)) continue;
      const means = this.means(this.callIds.get(k) ?? []);
      records.set(k.slice(prefix.length), { ...entry, meanUsd: means.usd, meanTokens: means.tokens });
    }
    this.frozen.set(VoteStats.key(stage, boundary), records);
  }

  /** The order an item past `boundary` asks in: recorded, or by cost over rejection rate as frozen there. */
  orderAt(stage: string, key: string, boundary: number, voters: readonly string[], warmup: number): string[] {
    const k = VoteStats.key(stage, key, boundary);
    let order = this.orders.get(k);
    if (!order || order.length !== voters.length || !voters.every((v) => order!.includes(v))) {
      const records = this.frozen.get(VoteStats.key(stage, boundary));
      order = orderVoters(voters, (v) => records?.get(VoteStats.key(key, v)), warmup);
      this.orders.set(k, order);
    }
    return order;
  }

  /** What the run asked and skipped per stage and key, and the orders it froze (the last one first as `order`). */
  summary(voters: { stage: string; key: string; refs: readonly ModelRef[] }[]): VotingSummary[] {
    return voters.flatMap(({ stage, key, refs }) => {
      const names = refs.map(modelName);
      const asked = names.reduce((n, m) => n + (this.total.get(VoteStats.key(stage, key, m)) ?? 0), 0);
      if (asked === 0) return [];
      const prefix = VoteStats.key(stage, key, '');
      const epochs = [...this.orders]
        .filter(([k]) => k.startsWith(prefix))
        .map(([k, order]) => ({ from: Number(k.slice(prefix.length)), order }))
        .sort((a, b) => a.from - b.from);
      return [{ stage, key, order: epochs.at(-1)?.order ?? names, asked, notNeeded: this.skipped.get(VoteStats.key(stage, key)) ?? 0, epochs }];
    });
  }
}
