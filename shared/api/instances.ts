import { z } from 'zod';
import {
  AMBIGUITY_TYPES,
  ANSWERABILITY_LABELS,
  DOMAIN_SLUGS,
  IMPORT_FORMATS,
  INSTANCE_STATUSES,
  type AmbiguityType,
  type Answerability,
  type Domain,
  type DecompositionStyle,
  type InstanceStage,
  type InstanceStatus,
  type InterpretationStatus,
} from '../domain';
import { byId, id, type ImportIssue, none, op, type Page, paging, type PassageView, type Provenance, serverPath, sortDirection, startsJob } from './core';

/** Datasets, base questions and instances: browsing, import and export. */

export const INSTANCE_SORT_COLUMNS = [
  'id',
  'question',
  'source_id',
  'ambiguity_type',
  'status',
  'stage',
  'hops',
  'interpretation_count',
  'dataset',
  'updated_at',
  'domain',
  'relevance',
] as const;
export type InstanceSortColumn = (typeof INSTANCE_SORT_COLUMNS)[number];

export const InstanceFilter = z
  .object({
    datasets: z.array(id).max(100).default([]),
    types: z.array(z.enum(AMBIGUITY_TYPES)).default([]),
    statuses: z.array(z.enum(INSTANCE_STATUSES)).default([]),
    hops: z.array(z.number().int().min(0).max(64)).max(64).default([]),
    /** Topics (MARCH Table 7); 'none' for instances without one. */
    domains: z.array(z.enum([...DOMAIN_SLUGS, 'none'])).max(16).default([]),
    search: z.string().max(500).default(''),
  })
  .strict();
export type InstanceFilter = z.output<typeof InstanceFilter>;

export const InstanceQuery = InstanceFilter.extend({
  sort: z.enum(INSTANCE_SORT_COLUMNS).default('id'),
  direction: sortDirection.default('asc'),
  ...paging,
}).strict();
export type InstanceQuery = z.output<typeof InstanceQuery>;

/**
 * How a page of the instance table was read: walking a sort index from the start, sorting the
 * few matching rows, from the order counts (any offset, without walking the rows before it), or
 * through the full-text index. `fallback` says why the order counts were not used when they
 * were the plan (the page is the same either way, only slower).
 */
export type InstancePagePlan = 'walk-index' | 'filter-then-sort' | 'position' | 'search' | 'search-walk';

export interface InstancePage extends Page<InstanceRow> {
  plan: InstancePagePlan;
  fallback?: string;
}

export interface InstanceRow {
  id: number;
  baseQuestionId: number;
  datasetId: number;
  dataset: string;
  sourceId: string;
  question: string;
  ambiguityType: AmbiguityType;
  status: InstanceStatus;
  stage: InstanceStage;
  hops: number | null;
  interpretationCount: number;
  removedReason: string | null;
  updatedAt: string;
  domain: Domain | null;
  /** The instance's own label (the base question's, when it has none, is on the base question). */
  answerability: Answerability | null;
}

export const BASE_QUESTION_SORT_COLUMNS = ['id', 'question', 'source_id', 'answer', 'hops', 'dataset', 'relevance'] as const;
export type BaseQuestionSortColumn = (typeof BASE_QUESTION_SORT_COLUMNS)[number];

export const BaseQuestionFilter = z
  .object({
    datasets: z.array(id).max(100).default([]),
    hops: z.array(z.number().int().min(0).max(64)).max(64).default([]),
    /** URASys labels; 'unlabelled' for base questions without one. */
    answerability: z.array(z.enum([...ANSWERABILITY_LABELS, 'unlabelled'])).default([]),
    search: z.string().max(500).default(''),
  })
  .strict();
export type BaseQuestionFilter = z.output<typeof BaseQuestionFilter>;

export const BaseQuestionQuery = BaseQuestionFilter.extend({
  sort: z.enum(BASE_QUESTION_SORT_COLUMNS).default('id'),
  direction: sortDirection.default('asc'),
  ...paging,
}).strict();
export type BaseQuestionQuery = z.output<typeof BaseQuestionQuery>;

export interface BaseQuestionRow {
  id: number;
  datasetId: number;
  dataset: string;
  sourceId: string;
  question: string;
  hops: number | null;
  answer: string | null;
  instanceCount: number;
  answerability: Answerability | null;
}

export interface FacetCount<V> {
  value: V;
  label: string;
  count: number;
}

export interface InstanceFacets {
  total: number;
  datasets: FacetCount<number>[];
  types: FacetCount<AmbiguityType>[];
  statuses: FacetCount<InstanceStatus>[];
  hops: FacetCount<number | null>[];
  domains: FacetCount<Domain | 'none'>[];
}

export interface BaseQuestionFacets {
  total: number;
  datasets: FacetCount<number>[];
  hops: FacetCount<number | null>[];
  answerability: FacetCount<Answerability | 'unlabelled'>[];
}

export interface EvidenceView {
  id: number;
  rank: number;
  score: number | null;
  origin: string;
  passage: PassageView;
  provenance: Provenance | null;
}

export interface ShortAnswerView {
  text: string;
  aliases: string[];
  passageId: number | null;
  start: number | null;
  end: number | null;
  provenance: Provenance | null;
}

export interface InterpretationView {
  id: number;
  position: number;
  clarifiedQuestion: string | null;
  condition: string | null;
  status: InterpretationStatus;
  droppedReason: string | null;
  provenance: Provenance | null;
  conditionProvenance: Provenance | null;
  subQuestions: { question: string; answer: string | null; provenance: Provenance | null }[];
  evidence: EvidenceView[];
  /** Ranks in the instance's frozen evidence list. */
  citations: number[];
  shortAnswer: ShortAnswerView | null;
  /** The answer passage when it is not among the ranked evidence. */
  answerPassage: PassageView | null;
  extra: Record<string, unknown>;
}

export interface LongAnswerView {
  id: number;
  position: number;
  text: string;
  provenance: Provenance | null;
  citations: { passage: PassageView; interpretationId: number | null; start: number | null; end: number | null }[];
}

export interface InstanceDetail {
  id: number;
  baseQuestion: BaseQuestionRow;
  ambiguityType: AmbiguityType;
  status: InstanceStatus;
  stage: InstanceStage;
  removedStage: string | null;
  removedReason: string | null;
  evidence: EvidenceView[];
  interpretations: InterpretationView[];
  longAnswers: LongAnswerView[];
  filterVotes: { model: string; verdict: string; reason: string }[];
  extra: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
  /** Set in blind campaigns: the status and the pipeline's verdicts were withheld. */
  blind?: boolean;
}

export interface BaseQuestionDetail extends BaseQuestionRow {
  aliases: string[];
  answerable: boolean | null;
  decomposition: {
    position: number;
    sourceId: string | null;
    question: string;
    answer: string | null;
    style: DecompositionStyle;
    supportPosition: number | null;
  }[];
  paragraphs: { position: number; isSupporting: boolean; passage: PassageView }[];
  instances: { id: number; ambiguityType: AmbiguityType; status: InstanceStatus }[];
  extra: Record<string, unknown>;
  licence: string;
  attribution: string;
}

export interface DatasetSummary {
  id: number;
  name: string;
  sourceFormat: string;
  description: string;
  licence: string;
  attribution: string;
  url: string;
  baseQuestions: number;
  instances: number;
}

export interface ImportReport {
  file: string;
  format: string;
  dataset: string;
  read: number;
  imported: number;
  duplicates: number;
  rejected: number;
  /** Whether anything was written: false when invalid records made the whole file fail. */
  committed: boolean;
  errors: ImportIssue[];
  /** How many problems were found beyond the ones listed in `errors`. */
  moreErrors: number;
  rejectsFile: string | null;
  passagesCreated: number;
  /** How the gold citations of a CondAmbigQA file were linked to its fragments; null for other formats. */
  citationLinks: CitationLinkReport | null;
  seconds: number;
}

/**
 * Gold citations linked to the fragment they name: by the number in "N. Title" (1-based in the
 * question's fragment list), by title and text where no number is given, or not at all.
 */
export interface CitationLinkReport {
  byNumber: number;
  byTitleText: number;
  /** Citations that name no fragment: counted and listed, never added to the fragment list. */
  unmatched: number;
  /** Linked by their number although their title or text differs from the fragment's. */
  numberTextDisagree: number;
  /** The first 20 unmatched citations. */
  examples: { sourceId: string; title: string; reason: string }[];
}

export interface ExportReport {
  file: string;
  records: number;
  instances: number;
  baseQuestions: number;
  seconds: number;
}

export interface Attribution {
  name: string;
  licence: string;
  attribution: string;
  url: string;
  bundled: boolean;
}

export const ImportRequest = z
  .object({
    path: serverPath(),
    format: z.enum(IMPORT_FORMATS),
    dataset: z.string().trim().min(1).max(200).optional(),
    skipInvalid: z.boolean().default(false),
    /** With skipInvalid: where the invalid records go (default: FILE.rejects.jsonl). */
    rejectsFile: serverPath().optional(),
    /** The largest record read, in MB; a larger one is reported, not read. */
    maxRecordMb: z.number().positive().max(4096).default(16),
  })
  .strict();

export const EXPORT_FORMATS = ['jsonl'] as const;

export const ExportRequest = z
  .object({
    path: serverPath(),
    format: z.enum(EXPORT_FORMATS).default('jsonl'),
    datasets: z.array(z.string().min(1)).default([]),
  })
  .strict();

export const instanceOperations = {
  'dataset:list': op<DatasetSummary[]>()(none),
  'dataset:attributions': op<Attribution[]>()(none),
  'instance:list': op<InstancePage>()(InstanceQuery),
  'instance:facets': op<InstanceFacets>()(InstanceFilter),
  'instance:get': op<InstanceDetail>()(byId),
  'base-question:list': op<Page<BaseQuestionRow>>()(BaseQuestionQuery),
  'base-question:facets': op<BaseQuestionFacets>()(BaseQuestionFilter),
  'base-question:get': op<BaseQuestionDetail>()(byId),
  'dataset:import': startsJob<ImportReport>()('import', ImportRequest),
  'dataset:export': startsJob<ExportReport>()('export', ExportRequest),
  /** Imports the bundled demo data into a new, empty database; [] when there was nothing to do. */
  'dataset:seed-demo': op<ImportReport[]>()(none),
} as const;
