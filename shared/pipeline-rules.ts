import { fnv1a } from './fnv';
import type { VoteRule } from './pipeline';
import { countTokens, foldForMatching } from './text';

/**
 * Rules of the construction pipeline that need no database and no network: which model an
 * endpoint's name stands for, how `#1` placeholders in sub-questions are filled, which
 * interpretations a collision removes, whether a shortened answer may be used, and the stable
 * order in which `--limit` picks base questions, and how votes decide (when asking can stop, and
 * in which order to ask). Pure, so they are tested on their own.
 */

// ---- model identity ------------------------------------------------------------------------------

/** OpenRouter's variant suffixes: the same weights served another way (`:free`, `:nitro`, ...). */
const ROUTING_VARIANTS = new Set(['free', 'nitro', 'floor', 'online', 'extended', 'thinking', 'beta']);

/**
 * The model behind a name, as endpoints spell it differently: no provider prefix
 * (`openai/gpt-4.1` and `gpt-4.1`), no dated snapshot (`gpt-4.1-2025-04-14`, `claude-sonnet-4-20250514`),
 * no routing variant (`:free`), lower case. A size tag such as Ollama's `llama3:70b` is kept: it is
 * another model.
 */
export function modelIdentity(name: string): string {
  let id = name.trim().toLowerCase();
  id = id.slice(id.lastIndexOf('/') + 1);
  const colon = id.lastIndexOf(':');
  if (colon !== -1 && ROUTING_VARIANTS.has(id.slice(colon + 1))) id = id.slice(0, colon);
  id = id.replace(/-(\d{4}-\d{2}-\d{2}|\d{8})$/, '');
  return id;
}

// ---- sub-questions ----------------------------------------------------------------------------------

const PLACEHOLDER = /\[?#(\d+)\]?/g;

/** How an earlier sub-question reads as a noun phrase, when its answer is not known yet. */
function describe(question: string): string {
  return `the answer to "${question.trim().replace(/[?.!\s]+$/u, '')}"`;
}

/**
 * Sub-questions as retrieval can use them: every `#n` (a reference to the answer of step n)
 * replaced by that answer where it is known, else by a description of step n, so no query ever
 * carries a bare placeholder. References to missing or later steps are described as "an earlier
 * answer". Text without placeholders is returned unchanged.
 */
export function fillBridges(subQuestions: readonly string[], answers: readonly (string | null | undefined)[] = []): string[] {
  const filled: string[] = [];
  subQuestions.forEach((question, index) => {
    filled.push(
      question.replace(PLACEHOLDER, (_whole, n: string) => {
        const step = Number(n) - 1;
        if (step < 0 || step >= index) return 'an earlier answer';
        const known = answers[step]?.trim();
        return known ? known : describe(filled[step]!);
      }),
    );
  });
  return filled;
}

// ---- collisions -----------------------------------------------------------------------------------

export interface Collision {
  /** The interpretation removed (its position), and the earlier one it repeats. */
  position: number;
  sameAs: number;
  /** The normalised short answer both share. */
  answer: string;
}

/**
 * Interpretations whose normalised short answers repeat an earlier one's: the later of each
 * pair is removed, and `distinct` counts the answers that remain.
 */
export function planCollisions(interpretations: readonly { position: number; answer: string | null }[]): { collisions: Collision[]; distinct: number } {
  const first = new Map<string, number>();
  const collisions: Collision[] = [];
  for (const { position, answer } of interpretations) {
    const key = foldForMatching(answer ?? '');
    const earlier = first.get(key);
    if (earlier === undefined) first.set(key, position);
    else collisions.push({ position, sameAs: earlier, answer: key });
  }
  return { collisions, distinct: first.size };
}

// ---- shortening ------------------------------------------------------------------------------------

/** Why a shortened answer cannot be used (null: it can): too long still, or longer than before. */
export function shorteningProblem(shortened: string, previous: string, maxTokens: number, foundInPassage: boolean): string | null {
  const tokens = countTokens(shortened);
  if (!foundInPassage) return `"${shortened.slice(0, 80)}" is not a span of the answer's passage`;
  if (tokens > maxTokens) return `"${shortened.slice(0, 80)}" has ${tokens} tokens, more than ${maxTokens}`;
  if (tokens >= countTokens(previous)) return `"${shortened.slice(0, 80)}" is not shorter than the answer it replaces`;
  return null;
}

// ---- stable subsets ------------------------------------------------------------------------------------

/**
 * The key `--limit` orders base questions by: a hash of the dataset's name and the record's own
 * id, so the same N questions (a spread over the dataset rather than its first records) are
 * picked in the same order on every run and every machine, whatever order they were imported in.
 */
export function subsetKey(dataset: string, sourceId: string): string {
  return `${fnv1a(`${dataset}\u0000${sourceId}`).toString(16).padStart(8, '0')}\u0000${dataset}\u0000${sourceId}`;
}

/** The first `limit` items by their subset key. */
export function stableSubset<T extends { dataset: string; sourceId: string }>(items: readonly T[], limit: number): T[] {
  return items
    .map((item) => ({ item, key: subsetKey(item.dataset, item.sourceId) }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .slice(0, limit)
    .map((entry) => entry.item);
}

// ---- votes ------------------------------------------------------------------------------------------

/** Whether `yes` votes out of `total` configured voters pass the rule: every voter, a strict majority, or at least N. */
export function passes(rule: VoteRule, yes: number, total: number): boolean {
  if (total === 0) return false;
  if (rule === 'all') return yes === total;
  if (rule === 'majority') return yes * 2 > total;
  return yes >= rule.atLeast;
}

export type VoteOutcome = 'pass' | 'fail';

/**
 * The outcome once `yes` and `no` of `voters` have answered, if no answer of the voters not yet
 * asked can change it: 'pass' when it passes even if every open voter says no, 'fail' when it
 * fails even if every open voter says yes, null while it is open. Asking everyone and stopping
 * here give the same outcome, in any order (docs/pipeline-economy.md has the argument).
 */
export function decided(rule: VoteRule, yes: number, no: number, voters: number): VoteOutcome | null {
  const open = voters - yes - no;
  if (open < 0) throw new RangeError(`${yes} yes and ${no} no votes from ${voters} voters`);
  if (passes(rule, yes, voters)) return 'pass';
  if (!passes(rule, yes + open, voters)) return 'fail';
  return null;
}

/**
 * Unanimity over labels (a voting stage whose answer is one of several labels rather than yes or
 * no): decided 'fail' as soon as two answers differ, 'pass' once every voter has given the same.
 */
export function decidedUnanimous<L>(labels: readonly L[], voters: number): VoteOutcome | null {
  if (labels.some((l) => l !== labels[0])) return 'fail';
  return labels.length === voters ? 'pass' : null;
}

/** What the run has seen of one voter in one stage (and type): votes asked, how many rejected, and its mean cost per call. */
export interface VoterRecord {
  asked: number;
  rejected: number;
  /** Mean US dollars per call; null when the model has no price (then `meanTokens` ranks it). */
  meanUsd: number | null;
  meanTokens: number | null;
}

/** Laplace-smoothed share of this voter's answers that rejected. */
export const rejectionRate = (r: VoterRecord) => (r.rejected + 1) / (r.asked + 2);

/**
 * The order to ask voters in, so that a run whose rule stops at the first rejection spends least:
 * ascending cost over rejection rate (the classic ordering of independent filters, cheapest per
 * expected rejection first). Until every voter has `warmup` asked votes the configured order
 * stands; ties keep the higher rejection rate first, then the configured order. Costs compare in
 * dollars when every voter has a price, else in tokens.
 */
export function orderVoters<T>(voters: readonly T[], record: (voter: T) => VoterRecord | undefined, warmup: number): T[] {
  const records = voters.map((v) => record(v));
  if (records.some((r) => !r || r.asked < warmup)) return [...voters];
  const byUsd = records.every((r) => r!.meanUsd !== null);
  const cost = (r: VoterRecord) => (byUsd ? r.meanUsd! : (r.meanTokens ?? 1));
  return voters
    .map((voter, index) => ({ voter, index, r: records[index]! }))
    .sort((a, b) => cost(a.r) / rejectionRate(a.r) - cost(b.r) / rejectionRate(b.r) || rejectionRate(b.r) - rejectionRate(a.r) || a.index - b.index)
    .map((entry) => entry.voter);
}

/**
 * Whether an item asks every voter even where the outcome is decided earlier: a fixed share of
 * items, chosen by a hash of the item, whose votes give unbiased rejection rates for the order
 * (early exit hides what later voters would have said) and double as a check of early exit.
 */
export function asksEveryone(item: string, share: number): boolean {
  if (share <= 0) return false;
  if (share >= 1) return true;
  return fnv1a(item) / 2 ** 32 < share;
}

/**
 * Where an item's voting order comes from, by the item's place in its stage's list (in item order,
 * never in the order items finish): 'everyone' for the first `warmup` items, which ask every voter;
 * else the statistics frozen once the items before a boundary have all finished. Boundaries double
 * (warmup, 2·warmup, 4·warmup, ...: a handful of pauses over a long run), or, for a stage sent in
 * batches where each pause is a batch round trip, stay at the one after the warm-up. Boundary 0:
 * no statistics (the configured order).
 */
export function orderEpoch(index: number, warmup: number, growth: 'double' | 'once'): 'everyone' | number {
  if (index < warmup) return 'everyone';
  const first = Math.max(1, warmup);
  if (index < first) return 0;
  if (growth === 'once') return first;
  let boundary = first;
  while (boundary * 2 <= index) boundary *= 2;
  return boundary;
}

/**
 * Voters whose answer is already stored (free to ask) go first, in the order given; the others
 * follow in that order. The outcome does not depend on the order, so a cached answer that decides
 * saves every call after it, and a re-run over the same questions sends nothing.
 */
export function cachedFirst<T>(order: readonly T[], cached: (voter: T) => boolean): T[] {
  return [...order.filter(cached), ...order.filter((v) => !cached(v))];
}
