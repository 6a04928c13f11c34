import { z } from 'zod';
import type { Protocol, Scale } from './protocols';
import type { Funnel, ItemTrace, PromptTemplate, RunSummary } from './pipeline';
import {
  AMBIGUITY_TYPES,
  IMPORT_FORMATS,
  INSTANCE_STATUSES,
  PIPELINE_STAGES,
  type AmbiguityType,
  type DecompositionStyle,
  type InstanceStage,
  type InstanceStatus,
  type InterpretationStatus,
  type ProvenanceSource,
} from './domain';

/**
 * The one API of the workbench. Every operation is declared here once, as `domain:verb` with a
 * runtime schema for its input and a type for its output. The services implement `Handlers`;
 * Electron IPC and `awb serve` both expose it through `dispatch`, and the renderer calls it
 * through one client, so the desktop app and the browser mode run the same code.
 */

// ---- results and errors ----------------------------------------------------------------------

export type ErrorCode = 'invalid_input' | 'not_found' | 'conflict' | 'unknown_operation' | 'cancelled' | 'internal';

export interface ApiError {
  code: ErrorCode;
  message: string;
  details?: unknown;
}

export type Result<T> = { ok: true; value: T } | { ok: false; error: ApiError };

/** An error a handler throws on purpose; it crosses the boundary with its code and message. */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'AppError';
  }
}

// ---- shared shapes -------------------------------------------------------------------------------

export interface Page<Row> {
  rows: Row[];
  offset: number;
}

export interface Provenance {
  source: ProvenanceSource;
  detail: string;
  model: string | null;
  promptVersion: string | null;
  call: string | null;
}

export interface PassageView {
  id: number;
  corpus: string;
  sourceId: string | null;
  title: string;
  text: string;
}

const id = z.number().int().positive();
const sortDirection = z.enum(['asc', 'desc']);

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
  'relevance',
] as const;
export type InstanceSortColumn = (typeof INSTANCE_SORT_COLUMNS)[number];

export const InstanceFilter = z
  .object({
    datasets: z.array(id).max(100).default([]),
    types: z.array(z.enum(AMBIGUITY_TYPES)).default([]),
    statuses: z.array(z.enum(INSTANCE_STATUSES)).default([]),
    hops: z.array(z.number().int().min(0).max(64)).max(64).default([]),
    search: z.string().max(500).default(''),
  })
  .strict();
export type InstanceFilter = z.output<typeof InstanceFilter>;

const paging = {
  offset: z.number().int().min(0).default(0),
  limit: z.number().int().min(1).max(500).default(100),
};

export const InstanceQuery = InstanceFilter.extend({
  sort: z.enum(INSTANCE_SORT_COLUMNS).default('id'),
  direction: sortDirection.default('asc'),
  ...paging,
}).strict();
export type InstanceQuery = z.output<typeof InstanceQuery>;

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
}

export const BASE_QUESTION_SORT_COLUMNS = ['id', 'question', 'source_id', 'answer', 'hops', 'dataset', 'relevance'] as const;
export type BaseQuestionSortColumn = (typeof BASE_QUESTION_SORT_COLUMNS)[number];

export const BaseQuestionFilter = z
  .object({
    datasets: z.array(id).max(100).default([]),
    hops: z.array(z.number().int().min(0).max(64)).max(64).default([]),
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
}

export interface BaseQuestionFacets {
  total: number;
  datasets: FacetCount<number>[];
  hops: FacetCount<number | null>[];
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

export interface Stats {
  datasets: number;
  base_questions: number;
  passages: number;
  corpora: number;
  instances: number;
  instances_by_type: Record<AmbiguityType, number>;
  instances_by_status: Record<InstanceStatus, number>;
  interpretations: number;
  long_answers: number;
}

export interface AppInfo {
  name: string;
  version: string;
  mode: 'desktop' | 'browser';
  databasePath: string;
  schemaVersion: number;
  sqlite: string;
  sqliteVec: string;
  node: string;
  /** The offline pack the app was opened with (`npm start -- FILE`), if any. */
  pack: string | null;
}

export interface ImportIssue {
  /** File and place: `data.jsonl: line 12` or `data.json: line 40, element [3]`. */
  location: string;
  /** The field, as a path such as `paragraphs[2].title`; empty for whole-record problems. */
  field: string;
  message: string;
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
  more_errors: number;
  rejects_file: string | null;
  passages_created: number;
  seconds: number;
}

export interface ExportReport {
  file: string;
  records: number;
  instances: number;
  base_questions: number;
  seconds: number;
}

// ---- retrieval --------------------------------------------------------------------------------

export const SEARCH_MODES = ['bm25', 'dense', 'hybrid'] as const;
export type SearchMode = (typeof SEARCH_MODES)[number];

export interface SearchHit {
  rank: number;
  /** BM25 score, cosine similarity, or RRF score, by mode. */
  score: number;
  passage: PassageView;
  bm25: { rank: number; score: number } | null;
  dense: { rank: number; score: number } | null;
}

export interface SearchResult {
  query: string;
  mode: SearchMode;
  k: number;
  corpus: string | null;
  model: string | null;
  /** True when the dense model is the offline lexical embedder, not a semantic one. */
  lexicalModel: boolean | null;
  /** The words the BM25 query used. */
  terms: string[];
  hits: SearchHit[];
  notes: string[];
  milliseconds: number;
}

export const SearchRequestSchema = z
  .object({
    query: z.string().max(4000),
    mode: z.enum(SEARCH_MODES).default('hybrid'),
    k: z.number().int().min(1).max(200).default(10),
    corpus: z.string().optional(),
    model: z.string().optional(),
    hyde: z.string().max(8000).optional(),
    rrfK: z.number().positive().max(10_000).default(60),
  })
  .strict();

export interface CorpusSummary {
  id: number;
  name: string;
  passages: number;
  models: { name: string; dimensions: number; lexical: boolean; vectors: number }[];
}

export interface ConstraintCues {
  query: string;
  literal: string | null;
  total_hits: number;
  kl_divergence: number | null;
  relax_delta_ratio: number;
  constraints: { kind: 'number' | 'date' | 'quoted'; text: string; hits_without: number }[];
  top_k: number;
}

export interface GeometryCues {
  passages: number;
  dispersion: number;
  separation: number | null;
  state: 'ambiguous' | 'uncertain' | 'unambiguous';
  thresholds: { variance: number; separation: number };
  model: string;
}

export interface AmbiguityCues {
  constraint: ConstraintCues;
  geometry: GeometryCues | null;
}

export const CuesRequestSchema = z
  .object({
    query: z.string().min(1).max(4000),
    corpus: z.string().optional(),
    model: z.string().optional(),
    k: z.number().int().min(2).max(100).default(10),
    varianceThreshold: z.number().min(0).default(0.25),
    separationThreshold: z.number().min(-1).max(1).default(0.1),
  })
  .strict();

export const CORPUS_FORMATS = ['musique', 'jsonl', 'dpr-tsv', 'wikipedia-jsonl'] as const;
export type CorpusFormat = (typeof CORPUS_FORMATS)[number];

export const CorpusImportRequest = z
  .object({
    path: z.string().min(1),
    format: z.enum(CORPUS_FORMATS),
    corpus: z.string().trim().min(1).max(200).optional(),
    skipInvalid: z.boolean().default(false),
  })
  .strict();

export const EmbedRequest = z.object({ corpus: z.string().min(1) }).strict();

// ---- annotation ---------------------------------------------------------------------------------

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
  assignments: { instance_id: number; annotator: string; position: number }[];
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
  z.object({ pack: z.string().min(1) }).strict(),
]);
export type JudgingSession = z.output<typeof JudgingSession>;

export interface JudgingQueue {
  campaign: { id: number | null; uid: string; name: string; blind: boolean };
  annotator: string;
  protocol: Protocol;
  items: { position: number; instanceId: number; question: string; ambiguityType: AmbiguityType; decided: number; done: boolean; skipped: boolean }[];
  total: number;
  done: number;
  /** Items with a value, per criterion. */
  perCriterion: Record<string, number>;
  offline: boolean;
}

export interface JudgingItem {
  position: number;
  instance: InstanceDetail;
  values: Record<string, { value: string | null; comment: string }>;
  timeMs: number;
  skipped: boolean;
}

export interface AgreementRow {
  criterion: string;
  ambiguity_type: AmbiguityType | 'all';
  /** Subset of instances: all, or split by instance status (MIRAGE's before vs after filtering). */
  subset: string;
  items: number;
  raters: number;
  yes_rate: number | null;
  fleiss_kappa: number | null;
  kappa_se0: number | null;
  kappa_ci_low: number | null;
  kappa_ci_high: number | null;
  p_bar: number | null;
  strict_agreement: number | null;
  /** Items where more than half the ratings agree. */
  majority_agreement: number | null;
  /** Mean share of an item's ratings that agree with its most common value. */
  majority_share: number | null;
  krippendorff_alpha: number | null;
  krippendorff_level: 'nominal' | 'ordinal';
  gwet_ac1: number | null;
  weighted_kappa: number | null;
  /** Why a value is null, by field. */
  undefined_reasons: Record<string, string>;
  prevalence_paradox: boolean;
}

export interface AgreementReport {
  campaign: { id: number; name: string; protocol: string };
  /** Per criterion: every item (`ambiguity_type` "all"), then each ambiguity type. */
  rows: AgreementRow[];
  /** The same per instance status, when the campaign mixes statuses (MIRAGE Table 3). */
  status_rows: AgreementRow[];
  validity: { ambiguity_type: AmbiguityType | 'all'; items: number; all_valid_rate: number | null; yes_rates: Record<string, number | null> }[];
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
  skipped_items: number;
  incomplete_last_line: boolean;
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

export const PipelineStartRequest = z
  .object({
    /** The config itself, or the path of a config file. */
    config: z.unknown().optional(),
    configPath: z.string().min(1).optional(),
    stages: z.array(z.enum(PIPELINE_STAGES)).default([]),
    limit: z.number().int().positive().optional(),
    datasets: z.array(z.string().min(1)).default([]),
    /** Fresh calls for the stages run, ignoring the cache. */
    noCache: z.boolean().default(false),
  })
  .strict()
  .refine((r) => (r.config === undefined) !== (r.configPath === undefined), { message: 'give either config or configPath' });

export const JOB_KINDS = ['import', 'export', 'corpus-import', 'embed', 'pipeline'] as const;
export type JobKind = (typeof JOB_KINDS)[number];

export interface Job {
  id: string;
  kind: JobKind;
  title: string;
  state: 'running' | 'done' | 'failed' | 'cancelled';
  done: number;
  total: number | null;
  unit: string;
  startedAt: string;
  etaSeconds: number | null;
  /** What the job is doing now, e.g. the pipeline stage and its calls. */
  detail: string | null;
  result: unknown;
  error: ApiError | null;
}

export interface Attribution {
  name: string;
  licence: string;
  attribution: string;
  url: string;
  bundled: boolean;
}

// ---- the operations --------------------------------------------------------------------------

interface Operation<Input extends z.ZodType, Output> {
  input: Input;
  /** Phantom: carries the output type. */
  output?: Output;
}

function op<Output>() {
  return <Input extends z.ZodType>(input: Input): Operation<Input, Output> => ({ input });
}

const none = z.object({}).strict().default({});
const byId = z.object({ id }).strict();

export const ImportRequest = z
  .object({
    path: z.string().min(1),
    format: z.enum(IMPORT_FORMATS),
    dataset: z.string().trim().min(1).max(200).optional(),
    skipInvalid: z.boolean().default(false),
  })
  .strict();

export const ExportRequest = z
  .object({
    path: z.string().min(1),
    datasets: z.array(z.string().min(1)).default([]),
  })
  .strict();

export const operations = {
  'app:info': op<AppInfo>()(none),
  'stats:get': op<Stats>()(none),
  'datasets:list': op<DatasetSummary[]>()(none),
  'about:attributions': op<Attribution[]>()(none),
  'instances:list': op<Page<InstanceRow>>()(InstanceQuery),
  'instances:facets': op<InstanceFacets>()(InstanceFilter),
  'instances:get': op<InstanceDetail>()(byId),
  'base-questions:list': op<Page<BaseQuestionRow>>()(BaseQuestionQuery),
  'base-questions:facets': op<BaseQuestionFacets>()(BaseQuestionFilter),
  'base-questions:get': op<BaseQuestionDetail>()(byId),
  'import:start': op<{ jobId: string }>()(ImportRequest),
  'export:start': op<{ jobId: string }>()(ExportRequest),
  'search:run': op<SearchResult>()(SearchRequestSchema),
  'search:cues': op<AmbiguityCues>()(CuesRequestSchema),
  'corpora:list': op<CorpusSummary[]>()(none),
  'corpus:import': op<{ jobId: string }>()(CorpusImportRequest),
  'corpus:embed': op<{ jobId: string }>()(EmbedRequest),
  'protocols:list': op<Protocol[]>()(none),
  'protocols:get': op<Protocol>()(byId),
  'protocols:versions': op<Protocol[]>()(z.object({ key: z.string().min(1) }).strict()),
  'protocols:save': op<Protocol>()(z.object({ document: z.unknown() }).strict()),
  'campaigns:list': op<CampaignSummary[]>()(none),
  'campaigns:get': op<CampaignView>()(byId),
  'campaigns:preview': op<{ items: number; perType: Record<string, number> }>()(z.object({ selection: CampaignSelection.default({}), seed: z.number().int().optional() }).strict()),
  'campaigns:create': op<CampaignView>()(CreateCampaignRequest),
  'judge:queue': op<JudgingQueue>()(z.object({ session: JudgingSession }).strict()),
  'judge:item': op<JudgingItem>()(z.object({ session: JudgingSession, position: z.number().int().min(0) }).strict()),
  'judge:decide': op<JudgingItem>()(DecisionRequest),
  'judge:undo': op<{ instanceId: number; criterion: string; position: number } | null>()(z.object({ session: JudgingSession }).strict()),
  'judge:skip': op<{ ok: true }>()(z.object({ session: JudgingSession, instanceId: z.number().int().positive(), itemMs: z.number().min(0).default(0) }).strict()),
  'packs:export': op<PackExportReport>()(z.object({ campaignId: z.number().int().positive(), annotator: z.string().min(1), path: z.string().min(1) }).strict()),
  'packs:import': op<PackImportReport>()(z.object({ path: z.string().min(1), campaignId: z.number().int().positive().optional() }).strict()),
  'judgments:export': op<{ file: string; rows: number }>()(z.object({ campaignId: z.number().int().positive(), format: z.enum(JUDGMENT_FORMATS), path: z.string().min(1) }).strict()),
  'judgments:import': op<JudgmentImportReport>()(z.object({ campaignId: z.number().int().positive(), format: z.enum(JUDGMENT_FORMATS), path: z.string().min(1) }).strict()),
  'agreement:get': op<AgreementReport>()(z.object({ campaignId: z.number().int().positive(), resamples: z.number().int().min(0).max(100_000).default(1000), seed: z.number().int().default(1) }).strict()),
  'disagreements:list': op<Disagreement[]>()(z.object({ campaignId: z.number().int().positive() }).strict()),
  'adjudications:save': op<Disagreement[]>()(AdjudicateRequest),
  'pipeline:start': op<{ jobId: string }>()(PipelineStartRequest),
  'pipeline:validate': op<{ ok: true; detectors: number; filters: number; endpoints: string[] } | { ok: false; message: string }>()(z.object({ config: z.unknown() }).strict()),
  'pipeline:defaults': op<{ example: unknown; last: unknown }>()(none),
  'pipeline:status': op<{ stages: { stage: string; done: number; failed: number }[]; runs: RunSummary[] }>()(none),
  'pipeline:funnel': op<Funnel>()(z.object({ datasets: z.array(z.string()).default([]) }).strict()),
  'pipeline:failures': op<{ item: string; stage: string; reason: string | null; question: string }[]>()(z.object({ stage: z.enum(PIPELINE_STAGES).optional(), limit: z.number().int().min(1).max(1000).default(200) }).strict()),
  'pipeline:trace': op<ItemTrace>()(z.object({ item: z.string().regex(/^(bq|inst):\d+$/, 'an item is bq:ID or inst:ID') }).strict()),
  'pipeline:prompts': op<PromptTemplate[]>()(none),
  'pipeline:prompt-history': op<PromptTemplate[]>()(z.object({ stage: z.string().min(1) }).strict()),
  'pipeline:prompt-save': op<PromptTemplate>()(z.object({ stage: z.string().min(1), system: z.string(), user: z.string() }).strict()),
  'pipeline:prices': op<{ model: string; input: number; output: number }[]>()(none),
  'pipeline:price-set': op<{ model: string; input: number; output: number }[]>()(
    z.object({ model: z.string().trim().min(1), input: z.number().min(0).nullable(), output: z.number().min(0).nullable() }).strict(),
  ),
  'jobs:list': op<Job[]>()(none),
  'jobs:get': op<Job>()(z.object({ id: z.string() }).strict()),
  'jobs:cancel': op<Job>()(z.object({ id: z.string() }).strict()),
} as const;

export type Operations = typeof operations;
export type OperationName = keyof Operations;
/** What a caller sends (defaults may be left out). */
export type Input<K extends OperationName> = z.input<Operations[K]['input']>;
/** What a handler receives (validated, defaults filled in). */
export type ParsedInput<K extends OperationName> = z.output<Operations[K]['input']>;
export type Output<K extends OperationName> = Operations[K] extends Operation<z.ZodType, infer O> ? O : never;

export type Handlers = { [K in OperationName]: (input: ParsedInput<K>) => Output<K> | Promise<Output<K>> };

export function isOperation(name: string): name is OperationName {
  return Object.hasOwn(operations, name);
}

function describeZodError(error: z.ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.length ? issue.path.join('.') : 'input'}: ${issue.message}`)
    .join('; ');
}

/**
 * Validates the input, runs the handler and turns every outcome into data. Both transports call
 * this, so an error looks the same over IPC and over HTTP.
 */
export async function dispatch(handlers: Handlers, name: string, input: unknown): Promise<Result<unknown>> {
  if (!isOperation(name)) return { ok: false, error: { code: 'unknown_operation', message: `No operation named ${name}` } };
  const parsed = operations[name].input.safeParse(input ?? {});
  if (!parsed.success) {
    return { ok: false, error: { code: 'invalid_input', message: `${name}: ${describeZodError(parsed.error)}` } };
  }
  try {
    const handler = handlers[name] as (input: unknown) => unknown;
    return { ok: true, value: await handler(parsed.data) };
  } catch (error) {
    if (error instanceof AppError) {
      return { ok: false, error: { code: error.code, message: error.message, details: error.details } };
    }
    return { ok: false, error: { code: 'internal', message: (error as Error).message ?? String(error) } };
  }
}

// ---- events ------------------------------------------------------------------------------------

export interface Events {
  'job:progress': Job;
  'job:done': Job;
  'data:changed': { reason: string };
}
export type EventName = keyof Events;
export interface EventMessage<K extends EventName = EventName> {
  name: K;
  payload: Events[K];
}

/** What the preload exposes as `window.awb` in the desktop app. */
export interface WindowApi {
  invoke(name: string, input: unknown): Promise<Result<unknown>>;
  subscribe(listener: (message: EventMessage) => void): () => void;
  /** Opens a native file dialog; null when cancelled. */
  pickFile(options: { save: boolean; title: string }): Promise<string | null>;
  /** Desktop only: API keys, kept encrypted by the OS keychain (Electron safeStorage). */
  apiKeys?: {
    names(): Promise<string[]>;
    set(name: string, value: string | null): Promise<string[]>;
  };
}
