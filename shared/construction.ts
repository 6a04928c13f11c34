import { z } from 'zod';
import type { SchemaOutput } from './pipeline';
import { Endpoint, ModelRef, Price, VoteRule } from './pipeline';
import { foldForMatching } from './text';

/**
 * CondAmbigQA-style construction in rounds (paper 003, §3.3), the labelling stage and the QA
 * layer: their configuration and the rules they apply, pure so they can be tested alone.
 *
 * The config is a pipeline config (one file works for both): its endpoints, generator and prices
 * are used, other pipeline keys are passed over, and three blocks of its own may be added.
 */

export const ConstructionSettings = z
  .object({
    /** Interpretations a draft must keep after merging, or the item fails its round. */
    minInterpretations: z.number().int().min(2).max(10).default(2),
    /** Rounds an item gets; one still rejected after the last is removed with its feedback. */
    maxRounds: z.number().int().min(1).max(10).default(3),
    /** Drop interpretations the check rates of low credibility (the paper leaves this to people). */
    dropLow: z.boolean().default(false),
  })
  .strict();

export const LabellingSettings = z
  .object({
    answerability: z.object({ rule: VoteRule.default('all') }).strict().default({ rule: 'all' }),
    /** Fifteen labels: unanimity would leave many questions untagged, so a majority decides by default. */
    domain: z.object({ rule: VoteRule.default('majority') }).strict().default({ rule: 'majority' }),
  })
  .strict();

export const QaIndexSettings = z
  .object({
    /** Question-answer pairs written per passage (URASys's m). */
    perPassage: z.number().int().min(1).max(20).default(3),
    /** Paraphrases per question (URASys's k), each a row sharing the answer. */
    paraphrases: z.number().int().min(0).max(10).default(2),
  })
  .strict();

export const ConstructionConfig = z.looseObject({
  endpoints: z.record(z.string().min(1), Endpoint).refine((e) => Object.keys(e).length > 0, { message: 'name at least one endpoint' }),
  generator: ModelRef,
  /** The labelling stage's models; the pipeline's detectors when absent, else the generator alone. */
  labellers: z.array(ModelRef).min(1).optional(),
  detectors: z.array(ModelRef).optional(),
  temperature: z.number().min(0).max(2).default(0),
  maxTokens: z.number().int().min(16).max(32_768).default(1024),
  concurrency: z.number().int().min(1).max(1024).default(16),
  prices: z.record(z.string(), Price).default({}),
  construction: ConstructionSettings.default({ minInterpretations: 2, maxRounds: 3, dropLow: false }),
  labelling: LabellingSettings.default({ answerability: { rule: 'all' }, domain: { rule: 'majority' } }),
  qaIndex: QaIndexSettings.default({ perPassage: 3, paraphrases: 2 }),
});
export type ConstructionConfig = z.output<typeof ConstructionConfig>;

/** The models that label: the config's labellers, else its detectors, else the generator. */
export function labellersOf(config: ConstructionConfig): ModelRef[] {
  return config.labellers ?? config.detectors ?? [config.generator];
}

// ---- a draft: three steps, merged and checked -------------------------------------------------------

/** One condition-answer-citation tuple as a round writes it (citations: ranks in the frozen list). */
export interface Tuple {
  condition: string;
  answers: string[];
  citations: number[];
  /** From step 1: what the interpretation assumes, and its answer statements. */
  preconditions: string[];
  statements: string[];
  reason: string;
  /** The check (step 2) rated it of low credibility. */
  lowCredibility: boolean;
}

export interface Draft {
  tuples: Tuple[];
  /** Step 2's flags for reviewers: interpretations no ambiguity point tells apart, low credibility. */
  flags: string[];
}

/** Fragment numbers outside 1..n, each named with where it was cited, for the step's message. */
export function citationProblems(step: string, fragments: number, cited: readonly { where: string; fragments: readonly number[] }[]): string[] {
  const problems: string[] = [];
  for (const { where, fragments: numbers } of cited) {
    for (const n of numbers) if (!Number.isInteger(n) || n < 1 || n > fragments) problems.push(`${step}: ${where} cites fragment ${n}; this question has ${fragments} fragment${fragments === 1 ? '' : 's'}`);
  }
  return problems;
}

/** Every fragment number a step's answer cites, with where. */
export function citedFragments(name: 'condition_draft' | 'condition_check', value: SchemaOutput<'condition_draft'> | SchemaOutput<'condition_check'>): { where: string; fragments: number[] }[] {
  if (name === 'condition_draft') {
    return (value as SchemaOutput<'condition_draft'>).interpretations.flatMap((interpretation, i) =>
      [...interpretation.preconditions, ...interpretation.answers].map((c) => ({ where: `interpretation ${i + 1}`, fragments: c.fragments })),
    );
  }
  const check = value as SchemaOutput<'condition_check'>;
  return [
    ...check.ambiguity_points.flatMap((p, i) => p.impacts.map((impact) => ({ where: `ambiguity point ${i + 1}`, fragments: impact.fragments }))),
    ...check.assessments.flatMap((a) => [...a.strengths, ...a.weaknesses].map((c) => ({ where: `the assessment of interpretation ${a.interpretation}`, fragments: c.fragments }))),
  ];
}

/**
 * CondAmbigQA's merging step as a rule, not a call: tuples whose conditions read the same after
 * normalisation become one, their answers and citations united in order (with citations as
 * fragment numbers, a union is exact). Empty answers and conditions are left out first.
 */
export function mergeTuples(tuples: readonly Tuple[]): Tuple[] {
  const merged: Tuple[] = [];
  const byKey = new Map<string, Tuple>();
  for (const tuple of tuples) {
    const answers = tuple.answers.map((a) => a.trim()).filter(Boolean);
    const key = foldForMatching(tuple.condition);
    if (!key) continue;
    const same = byKey.get(key);
    if (!same) {
      const copy = { ...tuple, answers: [...new Set(answers)], citations: [...new Set(tuple.citations)] };
      byKey.set(key, copy);
      merged.push(copy);
      continue;
    }
    same.answers = [...new Set([...same.answers, ...answers])];
    same.citations = [...new Set([...same.citations, ...tuple.citations])];
    same.preconditions = [...new Set([...same.preconditions, ...tuple.preconditions])];
    same.statements = [...new Set([...same.statements, ...tuple.statements])];
    same.lowCredibility = same.lowCredibility && tuple.lowCredibility;
  }
  return merged;
}

/** Why a merged draft cannot be written (null: it can). */
export function draftProblem(tuples: readonly Tuple[], minInterpretations: number): string | null {
  const empty = tuples.findIndex((t) => t.answers.length === 0);
  if (empty !== -1) return `condition_cite: interpretation ${empty + 1} has no answer in the fragments`;
  if (tuples.length < minInterpretations) {
    return `condition_cite: ${tuples.length} distinct condition${tuples.length === 1 ? '' : 's'} after merging; a round needs at least ${minInterpretations}`;
  }
  return null;
}

// ---- review: the decision rule ---------------------------------------------------------------------

export interface ReviewVote {
  annotator: string;
  decision: string | null;
  feedback: string;
}

export type RoundDecision =
  | { outcome: 'accepted'; by: string }
  | { outcome: 'rejected'; by: string; feedback: string }
  | { outcome: 'needs_feedback'; by: string }
  | { outcome: 'pending' };

/**
 * How a reviewed item's round ends: an adjudicated decision wins; else it is accepted when every
 * reviewer who decided accepted (and someone did); rejected when someone rejected with feedback
 * (the feedback goes back to the model, each reviewer's under their name, or "reviewer N" when
 * the campaign is blind); a rejection without feedback cannot be sent back and waits.
 */
export function decideReview(votes: readonly ReviewVote[], adjudication: { value: string; reason: string; adjudicator: string } | null, blind: boolean): RoundDecision {
  if (adjudication) {
    return adjudication.value === 'accept'
      ? { outcome: 'accepted', by: `adjudicated by ${adjudication.adjudicator}` }
      : { outcome: 'rejected', by: `adjudicated by ${adjudication.adjudicator}`, feedback: adjudication.reason };
  }
  const decided = votes.filter((v) => v.decision === 'accept' || v.decision === 'reject');
  if (decided.length === 0) return { outcome: 'pending' };
  const rejecting = decided.filter((v) => v.decision === 'reject');
  if (rejecting.length === 0) return { outcome: 'accepted', by: decided.map((v) => v.annotator).join(', ') };
  const named = (v: ReviewVote) => (blind ? `reviewer ${votes.indexOf(v) + 1}` : v.annotator);
  const withFeedback = rejecting.filter((v) => v.feedback.trim() !== '');
  if (withFeedback.length === 0) return { outcome: 'needs_feedback', by: rejecting.map(named).join(', ') };
  return {
    outcome: 'rejected',
    by: rejecting.map(named).join(', '),
    feedback: withFeedback.map((v) => (withFeedback.length > 1 ? `${named(v)}: ${v.feedback.trim()}` : v.feedback.trim())).join('\n'),
  };
}

// ---- the funnel per round ----------------------------------------------------------------------------

export interface RoundFunnelRow {
  round: number;
  /** Items drafted in this round (a round row past drafting), and those still failing or being drafted. */
  drafted: number;
  drafting: number;
  reviewed: number;
  accepted: number;
  rejected: number;
  /** Drafted, not yet decided. */
  pending: number;
  /** accepted / reviewed in this round; null before any decision. */
  acceptance: number | null;
  /** Accepted through this round / items started (the paper's 40% → 85%). */
  cumulativeAcceptance: number | null;
  costUsd: number;
  tokens: number;
  costPerItem: number | null;
  llmMsPerItem: number | null;
  reviewMsPerItem: number | null;
}

export interface RoundFunnel {
  dataset: string;
  /** Construction instances of the dataset (items started). */
  items: number;
  accepted: number;
  removed: number;
  building: number;
  rounds: RoundFunnelRow[];
  /** CondAmbigQA's reported acceptance, for comparison: 40% after round 1, 85% after round 3. */
  reference: { round: number; acceptance: number }[];
  /** Over all rounds: cost and time per accepted item. */
  costPerAccepted: number | null;
}

export const PAPER_ACCEPTANCE = [
  { round: 1, acceptance: 0.4 },
  { round: 3, acceptance: 0.85 },
];

/** The funnel from per-round, per-status totals. */
export function roundFunnel(
  dataset: string,
  items: { total: number; accepted: number; removed: number; building: number },
  totals: readonly { round: number; status: string; n: number; cost_usd: number; prompt_tokens: number; completion_tokens: number; llm_ms: number; review_ms: number }[],
): RoundFunnel {
  const rounds = [...new Set(totals.map((t) => t.round))].sort((a, b) => a - b);
  let acceptedSoFar = 0;
  const rows = rounds.map((round) => {
    const of = totals.filter((t) => t.round === round);
    const count = (status: string) => of.filter((t) => t.status === status).reduce((a, t) => a + t.n, 0);
    const sum = (key: 'cost_usd' | 'prompt_tokens' | 'completion_tokens' | 'llm_ms' | 'review_ms') => of.reduce((a, t) => a + (t[key] ?? 0), 0);
    const accepted = count('accepted');
    const rejected = count('rejected');
    const drafting = count('drafting');
    const drafted = of.reduce((a, t) => a + t.n, 0) - drafting;
    acceptedSoFar += accepted;
    const reviewed = accepted + rejected;
    const per = (value: number, n: number) => (n > 0 ? value / n : null);
    return {
      round,
      drafted,
      drafting,
      reviewed,
      accepted,
      rejected,
      pending: drafted - reviewed,
      acceptance: per(accepted, reviewed),
      cumulativeAcceptance: per(acceptedSoFar, items.total),
      costUsd: sum('cost_usd'),
      tokens: sum('prompt_tokens') + sum('completion_tokens'),
      costPerItem: per(sum('cost_usd'), drafted),
      llmMsPerItem: per(sum('llm_ms'), drafted),
      reviewMsPerItem: per(sum('review_ms'), reviewed),
    };
  });
  const cost = rows.reduce((a, r) => a + r.costUsd, 0);
  return {
    dataset,
    items: items.total,
    accepted: items.accepted,
    removed: items.removed,
    building: items.building,
    rounds: rows,
    reference: PAPER_ACCEPTANCE,
    costPerAccepted: items.accepted > 0 ? cost / items.accepted : null,
  };
}

// ---- consensus of labelling models ---------------------------------------------------------------------

export type ConsensusState = { state: 'decided'; label: string } | { state: 'none'; reason: string } | { state: 'open' };

/**
 * Where a multi-class vote stands after some of `total` models voted, under the detection rule:
 * decided once a label has enough votes, `none` once no label can get them any more (the
 * remaining votes are then not needed: the early exit), open otherwise.
 */
export function labelConsensus(rule: z.output<typeof VoteRule>, votes: readonly string[], total: number): ConsensusState {
  const needed = rule === 'all' ? total : rule === 'majority' ? Math.floor(total / 2) + 1 : rule.atLeast;
  const counts = new Map<string, number>();
  for (const v of votes) counts.set(v, (counts.get(v) ?? 0) + 1);
  const left = total - votes.length;
  for (const [label, n] of counts) if (n >= needed) return { state: 'decided', label };
  const best = Math.max(0, ...counts.values());
  if (best + left < needed || needed > total) {
    const ruleText = typeof rule === 'string' ? rule : `at least ${rule.atLeast}`;
    return { state: 'none', reason: `no consensus under rule "${ruleText}"` };
  }
  return { state: 'open' };
}

// ---- topic and answerability tables (MARCH Table 7, URASys labels) ----------------------------------

export interface DomainTableRow {
  slug: string;
  label: string;
  /** Instances per ambiguity type. */
  counts: Record<string, number>;
  total: number;
  /** Share of the tagged instances, 0-1 (untagged ones are left out, as Table 7 has no such row). */
  ratio: number | null;
}

export interface LabelTables {
  types: string[];
  domains: DomainTableRow[];
  /** Instances with no topic yet. */
  untagged: number;
  answerability: Record<string, number>;
}

/** The domain table (Table 7's rows, in its order, then any other value) and the answerability counts. */
export function labelTables(
  rows: readonly { ambiguity_type: string; domain: string | null; answerability: string | null; n: number }[],
  domains: readonly { slug: string; label: string }[],
): LabelTables {
  const types = [...new Set(rows.map((r) => r.ambiguity_type))].sort();
  const tagged = rows.filter((r) => r.domain !== null).reduce((a, r) => a + r.n, 0);
  const table = domains.map((d) => {
    const counts: Record<string, number> = Object.fromEntries(types.map((t) => [t, 0]));
    for (const r of rows) if (r.domain === d.slug) counts[r.ambiguity_type] = (counts[r.ambiguity_type] ?? 0) + r.n;
    const total = Object.values(counts).reduce((a, b) => a + b, 0);
    return { slug: d.slug, label: d.label, counts, total, ratio: tagged ? total / tagged : null };
  });
  const answerability: Record<string, number> = {};
  for (const r of rows) answerability[r.answerability ?? 'unlabelled'] = (answerability[r.answerability ?? 'unlabelled'] ?? 0) + r.n;
  return { types, domains: table, untagged: rows.filter((r) => r.domain === null).reduce((a, r) => a + r.n, 0), answerability };
}
