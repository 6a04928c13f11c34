import { z } from 'zod';
import type { RoundFunnel } from '../construction';
import { ANSWERABILITY_LABELS, DOMAIN_SLUGS, LABEL_KINDS, ROUND_STATUSES, type Answerability, type Domain, type LabelKind, type RoundStatus } from '../domain';
import { endpointsConfig, id, none, op, type Provenance, serverPath, startsJob } from './core';
import type { CampaignView } from './annotation';

/**
 * The other papers' construction workflows (issue 25): CondAmbigQA's rounds (draft, review,
 * re-draft the rejected with their feedback), the labelling stage and hand labels (URASys
 * answerability, MARCH topics), clarification turns, and the QA layer beside a corpus.
 */

const configChoice = {
  /** A pipeline config (or its path): endpoints, generator and prices, plus the optional construction, labelling and qaIndex blocks. */
  config: endpointsConfig().optional(),
  configPath: serverPath().optional(),
};
const oneConfig = (r: { config?: unknown; configPath?: string | undefined }) => (r.config === undefined) !== (r.configPath === undefined);
const ONE_CONFIG = { message: 'give either config or configPath' };

export const RoundReview = z
  .object({
    annotators: z.array(z.string().trim().min(1).max(100)).min(1).max(100),
    perInstance: z.number().int().min(1).optional(),
    /** Reviewers do not see the pipeline's verdicts or each other (feedback goes back as "reviewer N"). */
    blind: z.boolean().default(true),
    name: z.string().trim().min(1).max(200).optional(),
  })
  .strict();

export const RoundStartRequest = z
  .object({ dataset: z.string().min(1), ...configChoice, limit: z.number().int().positive().optional(), noCache: z.boolean().default(false), review: RoundReview.optional() })
  .strict()
  .refine(oneConfig, ONE_CONFIG);

export const RoundNextRequest = z
  .object({ dataset: z.string().min(1), ...configChoice, noCache: z.boolean().default(false), review: RoundReview.optional() })
  .strict()
  .refine(oneConfig, ONE_CONFIG);

export const LabelStartRequest = z
  .object({
    kind: z.enum(LABEL_KINDS),
    datasets: z.array(z.string().min(1)).default([]),
    ...configChoice,
    limit: z.number().int().positive().optional(),
    /** Label again questions that already have a label (by default they are passed over). */
    relabel: z.boolean().default(false),
    noCache: z.boolean().default(false),
  })
  .strict()
  .refine(oneConfig, ONE_CONFIG);

const target = z.object({ instanceId: id.optional(), baseQuestionId: id.optional() });
const oneTarget = (r: { instanceId?: number | undefined; baseQuestionId?: number | undefined }) => (r.instanceId === undefined) !== (r.baseQuestionId === undefined);
const ONE_TARGET = { message: 'give either instanceId or baseQuestionId' };

export const ClarificationTurnInput = z
  .object({
    systemQuestion: z.string().trim().min(1).max(4000),
    userReply: z.string().trim().min(1).max(4000).nullable().default(null),
    clarifiedQuestion: z.string().trim().min(1).max(4000),
    /** The interpretation (its position, from 0) the clarified question selects. */
    interpretation: z.number().int().min(0).nullable().default(null),
  })
  .strict();

export const QaIndexBuildRequest = z
  .object({ corpus: z.string().min(1), ...configChoice, limit: z.number().int().positive().optional(), noCache: z.boolean().default(false) })
  .strict()
  .refine(oneConfig, ONE_CONFIG);

/** What a drafting job (round:start, round:next) did. */
export interface RoundReport {
  dataset: string;
  runId: number | null;
  /** Decisions applied from the review campaigns. */
  accepted: number;
  rejected: number;
  /** Rejected after the last round: removed with their feedback. */
  removed: number;
  /** Still in review (undecided, or rejected without feedback: see `skipped`). */
  pending: number;
  drafted: number;
  failed: number;
  /** Items not taken up, or decisions not applied, each with why. */
  skipped: { item: string; reason: string }[];
  /** Items whose drafting failed, with the reason (they are taken up again by the next run). */
  failures: { item: string; reason: string }[];
  campaign: { id: number; name: string; items: number } | null;
  costUsd: number;
}

export interface RoundListRow {
  instanceId: number;
  question: string;
  round: number;
  status: RoundStatus;
  campaignId: number | null;
  feedback: string | null;
  decidedBy: string | null;
  flags: string[];
  costUsd: number;
  llmMs: number;
  reviewMs: number;
  createdAt: string;
  decidedAt: string | null;
}

export interface LabelReport {
  kind: LabelKind;
  runId: number;
  labelled: number;
  noConsensus: number;
  failed: number;
  /** Votes not asked because the outcome was already decided (early exit). */
  votesSaved: number;
  counts: Record<string, number>;
  failures: { item: string; reason: string }[];
  costUsd: number;
}

export interface LabelVoteView {
  kind: LabelKind;
  model: string;
  verdict: 'voted' | 'not_needed';
  label: string | null;
  reason: string;
}

export interface LabelView {
  baseQuestionId: number;
  instanceId: number | null;
  /** The label in force: the instance's own, else its base question's; `from` says which. */
  answerability: { label: Answerability; provenance: Provenance | null; from: 'instance' | 'base-question' } | null;
  domain: { domain: Domain; label: string; provenance: Provenance | null } | null;
  votes: LabelVoteView[];
  clarificationTurns: { systemQuestion: string; userReply: string | null; clarifiedQuestion: string; interpretation: number | null; provenance: Provenance | null }[];
}

export interface QaIndexReport {
  corpus: string;
  layer: string;
  runId: number;
  passages: number;
  pairs: number;
  paraphrases: number;
  /** Pairs whose answer was found in their source passage. */
  grounded: number;
  failed: number;
  failures: { item: string; reason: string }[];
  costUsd: number;
  embedded: number;
}

export interface QaIndexView {
  corpus: string;
  layer: string | null;
  passages: number;
  sources: number;
  pairs: number;
  paraphrases: number;
  grounded: number;
  promptVersions: string[];
}

export type ConstructionOperation = keyof typeof constructionOperations;

export const constructionOperations = {
  /** Round 1 for every base question of the dataset not yet drafted (failed drafts again). */
  'round:start': startsJob<RoundReport>()('round', RoundStartRequest),
  /** A review campaign (protocol condambigqa-review) over the items drafted in a round. */
  'round:review': op<CampaignView>()(z.object({ dataset: z.string().min(1), round: z.number().int().min(1).optional() }).extend(RoundReview.shape).strict()),
  /** Applies the reviews, re-drafts the rejected items with their feedback, removes those out of rounds. */
  'round:next': startsJob<RoundReport>()('round', RoundNextRequest),
  'round:list': op<RoundListRow[]>()(
    z
      .object({
        dataset: z.string().min(1).optional(),
        instanceId: id.optional(),
        round: z.number().int().min(1).optional(),
        status: z.enum(ROUND_STATUSES).optional(),
        limit: z.number().int().min(1).max(10_000).default(500),
      })
      .strict(),
  ),
  'round:funnel': op<RoundFunnel>()(z.object({ dataset: z.string().min(1) }).strict()),
  /** The labelling stage: answerability or topic per base question, by the labelling models' consensus. */
  'label:start': startsJob<LabelReport>()('label', LabelStartRequest),
  'label:get': op<LabelView>()(target.strict().refine(oneTarget, ONE_TARGET)),
  'answerability:set': op<LabelView>()(
    target.extend({ label: z.enum(ANSWERABILITY_LABELS).nullable(), note: z.string().max(1000).default('') }).strict().refine(oneTarget, ONE_TARGET),
  ),
  'domain:set': op<LabelView>()(z.object({ instanceId: id, domain: z.enum(DOMAIN_SLUGS).nullable(), note: z.string().max(1000).default('') }).strict()),
  /** MARCH Table 7's labels, in its order, with the paper's ratios. */
  'domain:list': op<{ slug: Domain; label: string; paperPercent: number }[]>()(none),
  'clarification:set': op<LabelView>()(z.object({ instanceId: id, turns: z.array(ClarificationTurnInput).max(20) }).strict()),
  /** URASys's ask-and-augment layer: question-answer pairs per passage, with paraphrases, as a corpus beside this one. */
  'qa-index:build': startsJob<QaIndexReport>()('qa-index', QaIndexBuildRequest),
  'qa-index:get': op<QaIndexView>()(z.object({ corpus: z.string().min(1) }).strict()),
} as const;
