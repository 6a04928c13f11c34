import { z } from 'zod';
import { AMBIGUITY_TYPES, INSTANCE_STATUSES, type AmbiguityType } from '../domain';
import type { Protocol, Scale } from '../protocols';
import { byId, type ImportIssue, none, op, serverPath } from './core';
import type { InstanceDetail } from './instances';

/** Protocols, campaigns, judging, packs, judgments, agreement and adjudication. */

export interface CampaignView {
  id: number;
  uid: string;
  name: string;
  createdAt: string;
  blind: boolean;
  seed: number;
  perInstance: number;
  selection: Record<string, unknown>;
  protocol: { id: number; key: string; version: number; name: string; criteria: { id: string; label: string; scale: Scale }[] };
  annotators: string[];
  /** Instance ids, in the campaign's order. */
  items: number[];
  assignments: { instanceId: number; annotator: string; position: number }[];
  progress: { annotator: string; total: number; done: number; skipped: number; seconds: number }[];
}

export interface CampaignSummary {
  id: number;
  name: string;
  protocol: string;
  items: number;
  annotators: number;
  done: number;
  total: number;
  createdAt: string;
}

export const CampaignSelection = z
  .object({
    datasets: z.array(z.string()).optional(),
    types: z.array(z.enum(AMBIGUITY_TYPES)).optional(),
    statuses: z.array(z.enum(INSTANCE_STATUSES)).optional(),
    hops: z.array(z.number().int()).optional(),
    /** A stratified sample: this many instances of each ambiguity type (all when fewer). */
    perType: z.number().int().min(1).optional(),
    /** Or exactly these instances. */
    instanceIds: z.array(z.number().int().positive()).optional(),
    /** Only instances flagged for review (from a failed evaluation item) and not yet resolved. */
    flagged: z.boolean().optional(),
    /** Judge validation: people rate this evaluation run's long answers (set by `judge-validation:start`). */
    evalRun: z.number().int().positive().optional(),
  })
  .strict();
export type CampaignSelection = z.output<typeof CampaignSelection>;

export const CreateCampaignRequest = z
  .object({
    name: z.string().trim().min(1).max(200),
    protocol: z.union([z.string().min(1), z.number().int().positive()]),
    annotators: z.array(z.string().trim().min(1).max(100)).min(1).max(100),
    perInstance: z.number().int().min(1).optional(),
    seed: z.number().int().optional(),
    blind: z.boolean().optional(),
    selection: CampaignSelection.default({}),
  })
  .strict();

/** Where judging happens: a campaign in this database, or an offline pack file. */
export const JudgingSession = z.union([
  z.object({ campaignId: z.number().int().positive(), annotator: z.string().min(1) }).strict(),
  z.object({ pack: serverPath() }).strict(),
]);
export type JudgingSession = z.output<typeof JudgingSession>;

export interface JudgingQueue {
  campaign: { id: number | null; uid: string; name: string; blind: boolean };
  annotator: string;
  protocol: Protocol;
  /** Per item: how many criteria are decided, whether it is done or skipped, and whether any criterion has a comment. */
  items: { position: number; instanceId: number; question: string; ambiguityType: AmbiguityType; decided: number; done: boolean; skipped: boolean; commented: boolean }[];
  total: number;
  done: number;
  /** Items with a value, per criterion. */
  perCriterion: Record<string, number>;
  offline: boolean;
  /** A pack's results file, where each decision is appended (the file to hand back); null for a campaign. */
  resultsFile: string | null;
}

export interface JudgingItem {
  position: number;
  instance: InstanceDetail;
  values: Record<string, { value: string | null; comment: string }>;
  timeMs: number;
  skipped: boolean;
  /** Judge validation campaigns: the evaluation run's long answer, rated in place of the gold long answers. */
  evalAnswer?: { runId: number; itemId: number; longAnswer: string | null };
}

export interface AgreementRow {
  criterion: string;
  ambiguityType: AmbiguityType | 'all';
  /** Subset of instances: all, or split by instance status (MIRAGE's before vs after filtering). */
  subset: string;
  items: number;
  raters: number;
  yesRate: number | null;
  fleissKappa: number | null;
  kappaSe0: number | null;
  kappaCiLow: number | null;
  kappaCiHigh: number | null;
  pBar: number | null;
  strictAgreement: number | null;
  /** Items where more than half the ratings agree. */
  majorityAgreement: number | null;
  /** Mean share of an item's ratings that agree with its most common value. */
  majorityShare: number | null;
  krippendorffAlpha: number | null;
  krippendorffLevel: 'nominal' | 'ordinal';
  gwetAc1: number | null;
  weightedKappa: number | null;
  /** Why a value is null, by field. */
  undefinedReasons: Record<string, string>;
  prevalenceParadox: boolean;
}

export interface AgreementReport {
  campaign: { id: number; name: string; protocol: string };
  /** Per criterion: every item (`ambiguityType` "all"), then each ambiguity type. */
  rows: AgreementRow[];
  /** The same per instance status, when the campaign mixes statuses (MIRAGE Table 3). */
  statusRows: AgreementRow[];
  validity: { ambiguityType: AmbiguityType | 'all'; items: number; allValidRate: number | null; yesRates: Record<string, number | null> }[];
  pairwise: { criterion: string; raters: string[]; kappa: (number | null)[][]; weighted: boolean }[];
  adjudicated: number;
  conflicts: number;
  bootstrap: { resamples: number; seed: number };
  milliseconds: number;
}

export interface Disagreement {
  instanceId: number;
  question: string;
  ambiguityType: AmbiguityType;
  criterion: string;
  votes: { annotator: string; value: string | null; comment: string; conflict: boolean }[];
  adjudication: { value: string; reason: string; adjudicator: string } | null;
}

export interface PackExportReport {
  file: string;
  campaign: number;
  annotator: string;
  items: number;
  bytes: number;
  seconds: number;
}

export interface PackImportReport {
  file: string;
  campaign: number;
  annotator: string;
  events: number;
  imported: number;
  already: number;
  conflicts: number;
  skippedItems: number;
  incompleteLastLine: boolean;
  seconds: number;
}

export interface JudgmentImportReport {
  file: string;
  rows: number;
  imported: number;
  /** Rows already in the database, or equal to the annotator's current value: passed over. */
  already: number;
  /** Rows that changed a value the database held: kept with its history and flagged to resolve. */
  conflicts: number;
  committed: boolean;
  errors: ImportIssue[];
}

export const JUDGMENT_FORMATS = ['csv', 'jsonl'] as const;
export type JudgmentFormat = (typeof JUDGMENT_FORMATS)[number];

export const DecisionRequest = z
  .object({
    session: JudgingSession,
    instanceId: z.number().int().positive(),
    criterion: z.string().min(1),
    /** null clears the criterion. */
    value: z.string().nullable(),
    comment: z.string().max(10_000).default(''),
    /** Time on the item since it was shown or last decided, in milliseconds. */
    itemMs: z.number().min(0).max(86_400_000).default(0),
  })
  .strict();

export const AdjudicateRequest = z
  .object({
    campaignId: z.number().int().positive(),
    instanceId: z.number().int().positive(),
    criterion: z.string().min(1),
    value: z.string().min(1),
    reason: z.string().trim().min(1, 'give a reason'),
    adjudicator: z.string().trim().min(1),
  })
  .strict();

export const annotationOperations = {
  'protocol:list': op<Protocol[]>()(none),
  'protocol:get': op<Protocol>()(byId),
  'protocol:versions': op<Protocol[]>()(z.object({ key: z.string().min(1) }).strict()),
  'protocol:save': op<Protocol>()(z.object({ document: z.unknown() }).strict()),
  /** A protocol as a JSON document: `key`, `key@version` or its number. */
  'protocol:document': op<unknown>()(z.object({ reference: z.string().trim().min(1) }).strict()),
  'campaign:list': op<CampaignSummary[]>()(none),
  'campaign:get': op<CampaignView>()(byId),
  'campaign:preview': op<{ items: number; perType: Record<string, number> }>()(z.object({ selection: CampaignSelection.default({}), seed: z.number().int().optional() }).strict()),
  'campaign:create': op<CampaignView>()(CreateCampaignRequest),
  'judging:queue': op<JudgingQueue>()(z.object({ session: JudgingSession }).strict()),
  'judging:item': op<JudgingItem>()(z.object({ session: JudgingSession, position: z.number().int().min(0) }).strict()),
  'judging:decide': op<JudgingItem>()(DecisionRequest),
  'judging:undo': op<{ instanceId: number; criterion: string; position: number } | null>()(z.object({ session: JudgingSession }).strict()),
  'judging:skip': op<{ ok: true }>()(z.object({ session: JudgingSession, instanceId: z.number().int().positive(), itemMs: z.number().min(0).default(0) }).strict()),
  'pack:export': op<PackExportReport>()(z.object({ campaignId: z.number().int().positive(), annotator: z.string().min(1), path: serverPath() }).strict()),
  'pack:import': op<PackImportReport>()(z.object({ path: serverPath(), campaignId: z.number().int().positive().optional() }).strict()),
  'judgment:export': op<{ file: string; rows: number }>()(z.object({ campaignId: z.number().int().positive(), format: z.enum(JUDGMENT_FORMATS), path: serverPath() }).strict()),
  /** Without a format, the file's extension tells (.csv, .jsonl or .ndjson). */
  'judgment:import': op<JudgmentImportReport>()(
    z.object({ campaignId: z.number().int().positive(), format: z.enum(JUDGMENT_FORMATS).optional(), path: serverPath() }).strict(),
  ),
  'agreement:get': op<AgreementReport>()(z.object({ campaignId: z.number().int().positive(), resamples: z.number().int().min(0).max(100_000).default(1000), seed: z.number().int().default(1) }).strict()),
  'agreement:disagreements': op<Disagreement[]>()(z.object({ campaignId: z.number().int().positive() }).strict()),
  'agreement:adjudicate': op<Disagreement[]>()(AdjudicateRequest),
} as const;
