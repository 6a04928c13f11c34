import { z } from 'zod';
import type { LabelTables } from './construction';
import { CONSTRUCTION_PROMPT_NAMES, CONSTRUCTION_SCHEMAS } from './construction-schemas';
import { PIPELINE_STAGES, type PipelineStage } from './domain';
import { modelIdentity } from './pipeline-rules';

/**
 * The construction pipeline's configuration and the shapes the model must answer in. The config
 * is a JSON file (`resources/pipeline.example.json` is a complete one); everything here is
 * validated before a run starts, so a bad config costs no call.
 */

export const STRUCTURED_OUTPUT_MODES = ['json_schema', 'json_object', 'text'] as const;

export const Endpoint = z
  .object({
    /** An OpenAI-compatible base URL, e.g. https://openrouter.ai/api/v1 or http://localhost:11434/v1. */
    baseURL: z.string().url(),
    /** The environment variable that holds the API key (local servers accept any key). */
    apiKeyEnv: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/).default('OPENAI_API_KEY'),
    maxInFlight: z.number().int().min(1).max(1024).default(8),
    requestsPerMinute: z.number().int().positive().nullable().default(null),
    tokensPerMinute: z.number().int().positive().nullable().default(null),
    /** How answers are asked for: a strict JSON schema, JSON mode, or plain text with JSON in it. */
    structuredOutput: z.enum(STRUCTURED_OUTPUT_MODES).default('json_schema'),
    timeoutMs: z.number().int().min(100).default(60_000),
    retries: z.number().int().min(0).max(10).default(4),
  })
  .strict();
export type Endpoint = z.output<typeof Endpoint>;

export const ModelRef = z.object({ endpoint: z.string().min(1), model: z.string().min(1) }).strict();
export type ModelRef = z.output<typeof ModelRef>;

export const DETECTABLE_TYPES = ['semantic', 'syntactic', 'constraint'] as const;
export type DetectableType = (typeof DETECTABLE_TYPES)[number];

/** How votes combine: every voter, a strict majority, or at least N. */
export const VoteRule = z.union([z.literal('all'), z.literal('majority'), z.object({ atLeast: z.number().int().min(1) }).strict()]);
export type VoteRule = z.output<typeof VoteRule>;

export const Price = z.object({ input: z.number().min(0), output: z.number().min(0) }).strict();

/**
 * The embedding model that re-ranks an interpretation's pooled evidence by its clarified question
 * (MARCH re-ranks with a semantic embedding model): the offline embedder (lexical: hashed words and
 * character n-grams, no network), or a model behind any OpenAI-compatible embeddings endpoint named
 * in `endpoints`.
 */
export const Rerank = z.discriminatedUnion('provider', [
  z.object({ provider: z.literal('offline') }).strict(),
  z
    .object({
      provider: z.literal('openai'),
      endpoint: z.string().min(1),
      model: z.string().min(1),
      dimensions: z.number().int().min(1).max(8192).optional(),
    })
    .strict(),
]);
export type Rerank = z.output<typeof Rerank>;

/** `clarify.minReadings` is the older name of `clarify.minInterpretations`; both are read. */
const Clarify = z.preprocess(
  (value) => {
    if (value && typeof value === 'object' && 'minReadings' in value && !('minInterpretations' in value)) {
      const { minReadings, ...rest } = value as Record<string, unknown>;
      return { ...rest, minInterpretations: minReadings };
    }
    return value;
  },
  z.object({ minInterpretations: z.number().int().min(2).max(10).default(2) }).strict(),
);

export const PipelineConfig = z
  .object({
    endpoints: z.record(z.string().min(1), Endpoint).refine((e) => Object.keys(e).length > 0, { message: 'name at least one endpoint' }),
    detectors: z.array(ModelRef).min(1),
    generator: ModelRef,
    filters: z.array(ModelRef).min(1),
    temperature: z.number().min(0).max(2).default(0),
    maxTokens: z.number().int().min(16).max(32_768).default(512),
    detection: z
      .object({ types: z.array(z.enum(DETECTABLE_TYPES)).min(1).default([...DETECTABLE_TYPES]), rule: VoteRule.default('all') })
      .strict()
      .default({ types: [...DETECTABLE_TYPES], rule: 'all' }),
    clarify: Clarify.default({ minInterpretations: 2 }),
    retrieval: z
      .object({ corpus: z.string().min(1).nullable().default(null), mode: z.enum(['bm25', 'dense', 'hybrid']).default('hybrid'), k: z.number().int().min(1).max(100).default(10) })
      .strict()
      .default({ corpus: null, mode: 'hybrid', k: 10 }),
    rerank: Rerank.default({ provider: 'offline' }),
    /** Short answers longer than this many tokens are shortened. */
    shortenOver: z.number().int().min(1).default(10),
    filter: z.object({ rule: VoteRule.default('all') }).strict().default({ rule: 'all' }),
    /** Items worked on at once (each endpoint also caps its own requests in flight). */
    concurrency: z.number().int().min(1).max(1024).default(64),
    /** US dollars per million tokens, by model name. */
    prices: z.record(z.string(), Price).default({}),
  })
  .strict()
  .superRefine((config, ctx) => {
    const refs: [string, ModelRef][] = [
      ...config.detectors.map((d, i) => [`detectors.${i}`, d] as [string, ModelRef]),
      ['generator', config.generator],
      ...config.filters.map((f, i) => [`filters.${i}`, f] as [string, ModelRef]),
    ];
    for (const [where, ref] of refs) {
      if (!config.endpoints[ref.endpoint]) ctx.addIssue({ code: 'custom', path: [...where.split('.'), 'endpoint'], message: `no endpoint named "${ref.endpoint}"` });
    }
    if (config.rerank.provider === 'openai' && !config.endpoints[config.rerank.endpoint]) {
      ctx.addIssue({ code: 'custom', path: ['rerank', 'endpoint'], message: `no endpoint named "${config.rerank.endpoint}"` });
    }
    const generator = modelIdentity(config.generator.model);
    config.filters.forEach((f, i) => {
      if (modelIdentity(f.model) === generator) {
        const same = f.model === config.generator.model;
        const what = same
          ? `"${f.model}" is the generator`
          : `"${f.model}" (endpoint ${f.endpoint}) and the generator "${config.generator.model}" (endpoint ${config.generator.endpoint}) are the same model`;
        ctx.addIssue({
          code: 'custom',
          path: ['filters', i, 'model'],
          message: `the filter model ${what} (compared as "${generator}": provider prefix, snapshot date and routing variant left out); a model may not judge its own output`,
        });
      }
    });
  });
export type PipelineConfig = z.output<typeof PipelineConfig>;

/** `AWB_BASE_URL`, when set, points every endpoint at one server. */
export function withBaseUrlOverride(config: PipelineConfig, override: string | undefined): PipelineConfig {
  if (!override) return config;
  return { ...config, endpoints: Object.fromEntries(Object.entries(config.endpoints).map(([name, e]) => [name, { ...e, baseURL: override }])) };
}

// ---- what the model answers --------------------------------------------------------------------

/** The 18 syntactic phenomena the syntactic detector may name (MARCH, Figure 6), by number. */
export const SYNTACTIC_PHENOMENA = [
  'prepositional-phrase attachment',
  'relative-clause attachment',
  'coordination scope',
  'comparative attachment or ellipsis',
  'quantifier or negation scope',
  'dangling or misplaced modifier',
  'genitive-chain attachment',
  'complement or adjunct',
  'gerund or participle',
  'ellipsis or gapping',
  'if-clause attachment',
  'right-node raising',
  'stacked or coordinated adjectives',
  'inclusive or exclusive "or"',
  'adverbial attachment',
  'focus and the scope of "only"',
  'apposition or restriction',
  'degree and comparative subdeletion',
] as const;

const verdict = z.object({ ambiguous: z.boolean(), reason: z.string() }).strict();

export const STAGE_SCHEMAS = {
  detect_semantic: verdict,
  detect_syntactic: z.object({ ambiguous: z.boolean(), phenomena: z.array(z.number().int().min(1).max(18)), reason: z.string() }).strict(),
  detect_constraint: verdict,
  clarify: z.object({ clarified_questions: z.array(z.string().trim().min(5)) }).strict(),
  decompose: z.object({ sub_questions: z.array(z.string().trim().min(3)).min(1) }).strict(),
  short_answer: z.object({ answer: z.string(), passage: z.number().int().min(0) }).strict(),
  long_answer: z.object({ long_answer: z.string().trim().min(1), citations: z.array(z.object({ interpretation: z.number().int().min(1), passage: z.number().int().min(1) }).strict()) }).strict(),
  shorten: z.object({ answer: z.string().trim().min(1) }).strict(),
  filter: z.object({ aligned: z.boolean(), reason: z.string() }).strict(),
  ...CONSTRUCTION_SCHEMAS,
} as const;
export type SchemaName = keyof typeof STAGE_SCHEMAS;
export type SchemaOutput<K extends SchemaName> = z.output<(typeof STAGE_SCHEMAS)[K]>;
export const SCHEMA_NAMES = Object.keys(STAGE_SCHEMAS) as SchemaName[];

/**
 * The prompt templates: one per call kind, except clarification, which has one per ambiguity type
 * (interpret a name, resolve a parse, generalise a constraint), all answering the `clarify` schema.
 */
export const PROMPT_NAMES = [
  'detect_semantic',
  'detect_syntactic',
  'detect_constraint',
  'clarify_semantic',
  'clarify_syntactic',
  'clarify_constraint',
  'decompose',
  'short_answer',
  'long_answer',
  'shorten',
  'filter',
  ...CONSTRUCTION_PROMPT_NAMES,
] as const;
export type PromptName = (typeof PROMPT_NAMES)[number];

/** The schema a prompt's answer must fit. */
export function schemaOfPrompt(name: PromptName): SchemaName {
  return name.startsWith('clarify_') ? 'clarify' : (name as SchemaName);
}

/**
 * The JSON Schema of an answer, as sent with `response_format`: range and length keywords are left
 * out (strict structured output refuses them on several servers; our own validation checks them).
 */
export function responseJsonSchema(schema: z.ZodType): Record<string, unknown> {
  const strip = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(strip);
    if (node && typeof node === 'object') {
      return Object.fromEntries(
        Object.entries(node as Record<string, unknown>)
          .filter(([key]) => !['$schema', 'minimum', 'maximum', 'minLength', 'minItems', 'maxItems'].includes(key))
          .map(([key, value]) => [key, strip(value)]),
      );
    }
    return node;
  };
  return strip(z.toJSONSchema(schema)) as Record<string, unknown>;
}

const schemaCache = new Map<SchemaName, Record<string, unknown>>();

/** A stage's answer schema for `response_format`, made once. */
export function jsonSchemaFor(name: SchemaName): Record<string, unknown> {
  let schema = schemaCache.get(name);
  if (!schema) schemaCache.set(name, (schema = responseJsonSchema(STAGE_SCHEMAS[name])));
  return schema;
}

// ---- runs, progress and the funnel ---------------------------------------------------------------

export { PIPELINE_STAGES, type PipelineStage };

export interface StageCounts {
  stage: PipelineStage;
  /** Items this run took up, and how they ended. */
  processed: number;
  done: number;
  failed: number;
  removed: number;
  calls: number;
  cachedCalls: number;
  promptTokens: number;
  completionTokens: number;
  costUsd: number;
  /** Summed over the calls this stage sent: the endpoints' answering time, and the time queued before sending. */
  latencyMs: number;
  queueMs: number;
}

export interface PipelineProgress {
  runId: number;
  stage: PipelineStage | null;
  done: number;
  total: number;
  calls: number;
  cachedCalls: number;
  failedCalls: number;
  costUsd: number;
  etaSeconds: number | null;
}

export interface RunSummary {
  id: number;
  status: 'running' | 'done' | 'failed' | 'cancelled';
  startedAt: string;
  finishedAt: string | null;
  stages: StageCounts[];
  calls: number;
  cachedCalls: number;
  promptTokens: number;
  completionTokens: number;
  costUsd: number;
  error: string | null;
  /** Where cues and evidence were computed: a worker thread, or the run's own thread. */
  retrieval: 'worker' | 'in-thread' | null;
  /** The embedding model that re-ranked evidence (null: the run retrieved nothing). */
  rerank: { provider: 'offline' | 'openai'; model: string; lexical: boolean } | null;
  /** What the run decided on its own and the user should know (e.g. embedding a corpus on first use). */
  log: string[];
  config: unknown;
}

/** One line of the funnel (MARCH Table 2, top): per ambiguity type and overall. */
export interface FunnelRow {
  step: string;
  counts: Record<string, number>;
  total: number;
}

export interface Funnel {
  types: string[];
  rows: FunnelRow[];
  /** Of the instances kept: mean hops and mean question length in words, per type. */
  averageHops: Record<string, number | null>;
  averageQuestionWords: Record<string, number | null>;
  /** Of the instances kept: topics per type (MARCH Table 7) and answerability (URASys). */
  labels?: LabelTables;
}

export interface CallTrace {
  id: number;
  stage: string | null;
  endpoint: string;
  model: string;
  status: 'ok' | 'error';
  error: string | null;
  messages: { role: string; content: string }[];
  response: string | null;
  promptTokens: number | null;
  completionTokens: number | null;
  /** The endpoint's time to answer, from sending the request (after any wait for a slot). */
  latencyMs: number | null;
  /** Time spent waiting for a slot and the per-minute limits before sending. */
  queueMs: number | null;
  costUsd: number | null;
  createdAt: string;
}

export interface ItemTrace {
  item: string;
  stages: { stage: string; status: string; reason: string | null; rawOutput: string | null }[];
  calls: CallTrace[];
}

export interface PromptTemplate {
  id: number;
  /** The prompt's name (one of PROMPT_NAMES; the column is called stage). */
  stage: PromptName;
  version: number;
  system: string;
  user: string;
  builtIn: boolean;
  createdAt: string;
}

/** Dollars: "$0" when nothing was spent, "<$0.0001" rather than a misleading "$0.0000" for a few cheap calls. */
export function formatUsd(v: number): string {
  if (v === 0) return '$0';
  if (v < 0.0001) return '<$0.0001';
  return `$${v < 1 ? v.toFixed(4) : v.toFixed(2)}`;
}
