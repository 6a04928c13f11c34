import type { ModelRef, VotingSummary } from '../../../../shared/pipeline';
import { asksEveryone, orderVoters, type VoteOutcome, type VoterRecord } from '../../../../shared/pipeline-rules';
import type { CallStats } from '../llm';
import { modelName, type StageContext } from './context';

/**
 * Asking voters until the outcome is decided (early exit), for every voting stage: detection,
 * the filter, and any stage that adds voters with a rule. A stage gives its voters, how to ask one,
 * which answer rejects, and its rule as a pure `decide` (shared/pipeline-rules.ts); this asks
 * `earlyExit.wave` voters at a time, in the order the run's own statistics favour, and stops once
 * the rule is decided (on any outcome, or only on a rejection where later stages read every vote).
 * The voters not asked come back as `notNeeded`, for the stage to record as such. With early exit
 * off, or for the share of items that explore, every voter is asked at once, as before.
 */

export interface Ballot<R> {
  ref: ModelRef;
  /** 1 for the first voter asked (voters of one wave share a position range in their order). */
  position: number;
  result: R;
}

export interface Tally<R> {
  /** The voters asked, in the order asked. */
  asked: Ballot<R>[];
  /** The voters not asked because the outcome was decided, in the order they would have been. */
  notNeeded: ModelRef[];
  /** The outcome (null when an asked call failed: the stage fails the item). */
  outcome: VoteOutcome | null;
  /** Whether the item asked everyone (early exit off, or an exploring item). */
  everyone: boolean;
}

type Answer<V> = { ok: true; value: V } | { ok: false };

export interface Election<V, R extends Answer<V>> {
  stage: string;
  /** What the statistics are kept per within the stage (the ambiguity type), or '' for one set. */
  key: string;
  /** The item's tag: which items explore is fixed by it. */
  item: string;
  voters: readonly ModelRef[];
  ask(ref: ModelRef): Promise<R>;
  /** Whether an answer counts against passing (for the voters' rejection rates). */
  rejects(value: V): boolean;
  /** The rule: the outcome from the answers so far, if no open voter can change it. */
  decide(values: V[], voters: number): VoteOutcome | null;
  /** Stop on any decided outcome, or only on a decided rejection (a later stage reads every vote of what passes). */
  stopOn: 'any' | 'fail';
}

export async function voteInOrder<V, R extends Answer<V>>(ctx: StageContext, election: Election<V, R>): Promise<Tally<R>> {
  const { earlyExit } = ctx.config;
  const byStats = earlyExit.enabled && earlyExit.order === 'stats';
  const record = (ref: ModelRef) => ctx.votes.record(election.stage, election.key, modelName(ref));
  // The first `warmup` items of each stage and key ask everyone, so every voter has that many unbiased votes
  // (counted as items start: in a batched stage every item starts before any vote is back).
  const warming = byStats && ctx.votes.warmupItem(election.stage, election.key, earlyExit.warmup);
  const everyone = !earlyExit.enabled || warming || asksEveryone(`${election.stage}|${election.key}|${election.item}`, earlyExit.explore);
  const order = byStats ? orderVoters(election.voters, record, earlyExit.warmup) : [...election.voters];
  const wave = everyone ? order.length : earlyExit.wave;
  const asked: Ballot<R>[] = [];
  let outcome: VoteOutcome | null = null;
  while (asked.length < order.length) {
    const next = order.slice(asked.length, asked.length + wave);
    const results = await Promise.all(next.map((ref) => election.ask(ref)));
    results.forEach((result, i) => asked.push({ ref: next[i]!, position: asked.length + 1, result }));
    if (results.some((r) => !r.ok)) return { asked, notNeeded: [], outcome: null, everyone };
    outcome = election.decide(values(asked), order.length);
    if (outcome && (election.stopOn === 'any' || outcome === 'fail')) break;
  }
  // A voter's answer counts for its rate only when nothing asked before it decided that it be asked.
  for (const ballot of asked) ctx.votes.count(election.stage, election.key, modelName(ballot.ref), election.rejects((ballot.result as { value: V }).value), 1, everyone || ballot.position <= wave);
  if (everyone && earlyExit.enabled) checkAgainstEarlyExit(ctx, election, asked, outcome);
  const notNeeded = order.slice(asked.length);
  ctx.votes.notNeeded(election.stage, election.key, notNeeded.length);
  return { asked, notNeeded, outcome, everyone };
}

const values = <V>(ballots: Ballot<Answer<V>>[]) => ballots.map((b) => (b.result as { value: V }).value);

/**
 * An exploring item asked everyone: replaying its answers one voter at a time must reach the same
 * outcome as the early exit would have. A difference is a bug in a rule; the run's log says so.
 */
function checkAgainstEarlyExit<V, R extends Answer<V>>(ctx: StageContext, election: Election<V, R>, asked: Ballot<R>[], outcome: VoteOutcome | null): void {
  const all = values(asked);
  for (let n = 1; n <= all.length; n++) {
    const early = election.decide(all.slice(0, n), all.length);
    if (early && (election.stopOn === 'any' || early === 'fail')) {
      if (early !== outcome) ctx.note(`early exit check failed: ${election.stage} ${election.key} of ${election.item} decided ${early} after ${n} of ${all.length} votes, but asking everyone gives ${outcome}`);
      ctx.votes.checked++;
      return;
    }
  }
  ctx.votes.checked++;
}

/**
 * Per stage, key and voter: votes asked in this run, and the unbiased ones among them (asked first,
 * or on an item that asked everyone) with their rejections, which give the voter's rate; costs per
 * call from the client's accounting. A voter asked only after others said yes sees mostly items
 * that pass, so its later votes would understate how often it rejects.
 */
export class VoteStats {
  private readonly seen = new Map<string, { asked: number; rejected: number }>();
  private readonly total = new Map<string, number>();
  private readonly warming = new Map<string, number>();
  private readonly skipped = new Map<string, number>();
  /** Exploring items whose early-exit outcome was checked against asking everyone. */
  checked = 0;

  constructor(private readonly callsOf: (stage: string, model: string) => CallStats | undefined) {}

  private static key(stage: string, key: string, model: string): string {
    return `${stage}\u0000${key}\u0000${model}`;
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

  /** Whether one more item of this stage and key is among the first `warmup`, which ask everyone. */
  warmupItem(stage: string, key: string, warmup: number): boolean {
    const k = `${stage}\u0000${key}`;
    const started = this.warming.get(k) ?? 0;
    if (started >= warmup) return false;
    this.warming.set(k, started + 1);
    return true;
  }

  notNeeded(stage: string, key: string, n: number): void {
    const k = `${stage}\u0000${key}`;
    this.skipped.set(k, (this.skipped.get(k) ?? 0) + n);
  }

  record(stage: string, key: string, model: string): VoterRecord | undefined {
    const entry = this.seen.get(VoteStats.key(stage, key, model));
    if (!entry) return undefined;
    const calls = this.callsOf(stage, model);
    const sent = calls?.calls ?? 0;
    return {
      ...entry,
      meanUsd: sent > 0 && calls!.costUsd > 0 ? calls!.costUsd / sent : null,
      meanTokens: sent > 0 ? (calls!.promptTokens + calls!.completionTokens) / sent : null,
    };
  }

  /** What the run asked and skipped per stage and key, and the order it would ask the voters in now. */
  summary(voters: { stage: string; key: string; refs: readonly ModelRef[] }[], warmup: number, byStats: boolean): VotingSummary[] {
    return voters.flatMap(({ stage, key, refs }) => {
      const names = refs.map(modelName);
      const asked = names.reduce((n, m) => n + (this.total.get(VoteStats.key(stage, key, m)) ?? 0), 0);
      if (asked === 0) return [];
      const order = byStats ? orderVoters(names, (m) => this.record(stage, key, m), warmup) : names;
      return [{ stage, key, order, asked, notNeeded: this.skipped.get(`${stage}\u0000${key}`) ?? 0 }];
    });
  }
}
