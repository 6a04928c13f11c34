import { z } from 'zod';
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
    /**
     * The endpoint's Batch API: `openai` (upload a JSONL file to /files, create a job at /batches,
     * lines with custom_id, method, url and body), `custom-id-body` (the same without method and url,
     * as Together AI takes them), or `none` (this endpoint has none: its calls go synchronously).
     */
    batch: z.enum(['openai', 'custom-id-body', 'none']).default('openai'),
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

/**
 * US dollars per million tokens. `batchInput`/`batchOutput` price calls sent through a Batch API
 * (half the synchronous price where not given, as OpenAI and Together charge); `cachedInput` prices
 * the prompt tokens a provider reports as read from its prompt cache (the input price where not given).
 */
export const Price = z
  .object({
    input: z.number().min(0),
    output: z.number().min(0),
    batchInput: z.number().min(0).optional(),
    batchOutput: z.number().min(0).optional(),
    cachedInput: z.number().min(0).optional(),
  })
  .strict();
export type Price = z.output<typeof Price>;

/**
 * Calls skipped because their answer cannot change what the run keeps: votes once the rule has
 * decided, answers once an instance cannot reach two supported ones, merges of instances that
 * collide (merge runs after shorten and collide, from the answers as the answer stage left them).
 * `enabled: false` asks everything, as before. `wave` voters are asked at once; `order: 'stats'`
 * asks the cheapest per expected rejection first, from the run's own votes after `warmup` votes
 * each; `explore` is the share of items that ask every voter anyway.
 */
export const EarlyExit = z
  .object({
    enabled: z.boolean().default(true),
    wave: z.number().int().min(1).max(64).default(1),
    order: z.enum(['stats', 'config']).default('stats'),
    warmup: z.number().int().min(0).default(30),
    explore: z.number().min(0).max(1).default(0.02),
  })
  .strict();
export type EarlyExit = z.output<typeof EarlyExit>;

/**
 * Sending stages' calls through the endpoints' Batch APIs (half price, answers within 24 hours):
 * requests are queued, written as JSONL files of at most `maxRequests` lines, uploaded, polled every
 * `pollSeconds`, and read back; what a batch did not answer is sent again once in a batch
 * (`resubmit`), then synchronously (`fallback: 'sync'`) or not at all (`fallback: 'fail'`: the item
 * fails with the provider's reason). A batch still open after `maxWaitHours` is cancelled and what it
 * finished is kept.
 */
export const BatchMode = z
  .object({
    enabled: z.boolean().default(false),
    stages: z.array(z.enum(PIPELINE_STAGES)).default([...PIPELINE_STAGES]),
    maxRequests: z.number().int().min(1).max(50_000).default(50_000),
    maxBytes: z.number().int().min(1024).max(200_000_000).default(150_000_000),
    pollSeconds: z.number().min(0.01).default(60),
    maxWaitHours: z.number().positive().default(26),
    /** Wait this long after the last request before sending a partly filled batch. */
    idleFlushMs: z.number().int().min(1).default(2_000),
    /** Items worked on at once in a batched stage (each waits only for its answer). */
    itemsInFlight: z.number().int().min(1).max(1_000_000).default(100_000),
    fallback: z.enum(['sync', 'fail']).default('sync'),
    resubmit: z.number().int().min(0).max(3).default(1),
  })
  .strict();
export type BatchMode = z.output<typeof BatchMode>;

/** A ceiling on what one run may spend: the run stops before a call or batch would pass it. */
export const Budget = z
  .object({ maxUsd: z.number().positive().nullable().default(null), maxTokens: z.number().int().positive().nullable().default(null) })
  .strict();
export type Budget = z.output<typeof Budget>;

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
    earlyExit: EarlyExit.default(EarlyExit.parse({})),
    batch: BatchMode.default(BatchMode.parse({})),
    budget: Budget.default(Budget.parse({})),
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

/**
 * The stages in the order a run takes them. With early exit, merge moves after shortening and
 * collisions: they do not read the long answer, and merge writes from the answers as the answer
 * stage left them, so every output is the same, and instances that collide are never merged.
 */
export function runStageOrder(earlyExit: boolean): PipelineStage[] {
  if (!earlyExit) return [...PIPELINE_STAGES];
  return PIPELINE_STAGES.filter((s) => s !== 'merge').flatMap((s) => (s === 'collide' ? ['collide', 'merge'] : [s])) as PipelineStage[];
}

/** The order a run takes the stages in with the default config (early exit on): every list of stages shows them so. */
export const RUN_STAGES: readonly PipelineStage[] = runStageOrder(true);
export * from './pipeline-runs';

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

/**
 * Dollars spent where some calls may have had no price (a model missing from the price table): an
 * unpriced call is never counted as free. "unknown" when no call had a price, else "≥$X" (what the
 * priced calls cost is a floor); `long` adds how many calls were unpriced.
 */
export function formatCost(usd: number, unpricedCalls = 0, long = false): string {
  if (!unpricedCalls) return formatUsd(usd);
  const note = long ? `${unpricedCalls.toLocaleString('en-US')} call${unpricedCalls === 1 ? '' : 's'} unpriced` : '';
  if (usd === 0) return long ? `unknown (${note})` : 'unknown';
  return long ? `≥ ${formatUsd(usd)}, ${note}` : `≥${formatUsd(usd)}`;
}
