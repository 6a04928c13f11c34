import type { ModelRef, SchemaName } from '../../../../shared/pipeline';
import { asksEveryone, cachedFirst, type VoteOutcome } from '../../../../shared/pipeline-rules';
import type { LlmRequest } from '../llm';
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

type Answer<V> = { ok: true; value: V; callId: number } | { ok: false };

export interface Election<V, R extends Answer<V>> {
  stage: string;
  /** What the statistics are kept per within the stage (the ambiguity type), or '' for one set. */
  key: string;
  /** The item's tag (`bq:12`, `inst:5`): its place in the stage's list. */
  item: string;
  /** What picks the items that explore, the same in every run (a question and type, never an instance id). */
  identity: string;
  voters: readonly ModelRef[];
  ask(ref: ModelRef): Promise<R>;
  /** The request `ask` would send this voter (to find the voters whose answer is already in the cache). */
  request?(ref: ModelRef): LlmRequest<SchemaName>;
  /** Whether an answer counts against passing (for the voters' rejection rates). */
  rejects(value: V): boolean;
  /** The rule: the outcome from the answers so far, if no open voter can change it. */
  decide(values: V[], voters: number): VoteOutcome | null;
  /** Stop on any decided outcome, or only on a decided rejection (a later stage reads every vote of what passes). */
  stopOn: 'any' | 'fail';
}

export async function voteInOrder<V, R extends Answer<V>>(ctx: StageContext, election: Election<V, R>): Promise<Tally<R>> {
  const { earlyExit } = ctx.config;
  const order = await orderOf(ctx, election);
  const everyone = order.everyone;
  const wave = everyone ? order.voters.length : earlyExit.wave;
  const asked: Ballot<R>[] = [];
  let outcome: VoteOutcome | null = null;
  while (asked.length < order.voters.length) {
    const next = order.voters.slice(asked.length, asked.length + wave);
    const results = await Promise.all(next.map((ref) => election.ask(ref)));
    results.forEach((result, i) => asked.push({ ref: next[i]!, position: asked.length + 1, result }));
    if (results.some((r) => !r.ok)) return { asked, notNeeded: [], outcome: null, everyone };
    outcome = election.decide(values(asked), order.voters.length);
    if (outcome && (election.stopOn === 'any' || outcome === 'fail')) break;
  }
  // A voter's answer counts for its rate only when nothing asked before it decided that it be asked.
  for (const ballot of asked) {
    const result = ballot.result as Extract<Answer<V>, { ok: true }>;
    ctx.votes.count(election.stage, election.key, modelName(ballot.ref), election.rejects(result.value), 1, everyone || ballot.position <= wave);
    ctx.votes.cost(election.stage, election.key, modelName(ballot.ref), result.callId);
  }
  if (everyone && earlyExit.enabled) checkAgainstEarlyExit(ctx, election, asked, outcome);
  const notNeeded = order.voters.slice(asked.length);
  ctx.votes.notNeeded(election.stage, election.key, notNeeded.length);
  return { asked, notNeeded, outcome, everyone };
}

/**
 * The order one item asks its voters in, the same however many items run at once and however
 * often the run is repeated: the configured order, or the order the statistics frozen at the
 * item's boundary give (waiting until every item before it has finished), with the voters whose
 * answer was in the cache when the run started moved first. Whether the item asks everyone: early
 * exit off, a warm-up item, or an exploring one.
 */
async function orderOf<V, R extends Answer<V>>(ctx: StageContext, election: Election<V, R>): Promise<{ voters: ModelRef[]; everyone: boolean }> {
  const { earlyExit } = ctx.config;
  if (!earlyExit.enabled) return { voters: [...election.voters], everyone: true };
  const epoch = earlyExit.order === 'stats' ? ctx.votes.epochOf(election.stage, election.item) : 0;
  const everyone = epoch === 'everyone' || asksEveryone(`${election.stage}|${election.key}|${election.identity}`, earlyExit.explore);
  let voters = [...election.voters];
  if (typeof epoch === 'number' && epoch > 0) {
    // Exploring items wait too: what they count must not reach the statistics of an earlier boundary.
    await ctx.votes.reached(election.stage, epoch);
    const names = voters.map(modelName);
    voters = ctx.votes.orderAt(election.stage, election.key, epoch, names, earlyExit.warmup).map((name) => voters[names.indexOf(name)]!);
  }
  if (everyone || !election.request) return { voters, everyone };
  const answered = ctx.llm.answeredBefore(voters.map((ref) => election.request!(ref)));
  return { voters: cachedFirst(voters, (ref) => answered[voters.indexOf(ref)]!), everyone };
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
