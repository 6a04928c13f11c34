import fs from 'node:fs';
import { z } from 'zod';
import { getEvalItem, insertEvalItems, itemIdsToRun, saveItemDone, saveItemFailed } from '../../../db/queries/eval-items';
import { addEvalRunCounts, getEvalRun, insertEvalRun, markAbandonedEvalRuns, refreshEvalRunTotals, saveEvalRunSummary, setEvalRunStatus } from '../../../db/queries/eval-runs';
import { itemUsage, runHasCalls } from '../../../db/queries/llm-calls';
import { settleGroup, transaction, type WritableDB } from '../../../db/sql';
import { AppError, type EvalProgress, type EvalRunSummary, type EvalStartRequest } from '../../../shared/api';
import { METHOD_INFO } from '../../../shared/eval/methods';
import type { EvalGold } from '../../../shared/eval/types';
import { BatchMode, Budget, DETECTABLE_TYPES, EarlyExit, Endpoint, Price, withBaseUrlOverride, type ModelRef, type PipelineConfig } from '../../../shared/pipeline';
import { LlmClient } from '../pipeline/llm';
import { EmbeddedRetriever, type Retriever } from '../retrieval/search';
import { ItemFailure, ItemRun, usableMode, type RunEnv } from './context';
import { scoreOutput, type ReaderChoice } from './item-metrics';
import { runMethod } from './methods';
import { currentEvalPrompts } from './prompts';
import { aggregates, evalRunSummary } from './results';
import { loadSource } from './sources';
import { checkGoldConditions, methodNotes, resolveOptions, runSettings, type StoredOptions } from './run-settings';

/**
 * The evaluation runner: a method × a model × a release split or a dataset. A run is created
 * with all its items (their gold frozen), then worked through with `concurrency` items at once.
 * Each finished item is stored with its trace in one transaction; a killed or cancelled run is
 * resumed by its id: done items are kept, and every call whose answer was stored comes from the
 * cache (answers share one commit per turn of the event loop, so a kill can lose the last turn's).
 */

/** Endpoints and prices, as in a pipeline config (other keys of such a file are ignored). */
const EndpointsConfig = z.object({
  endpoints: z.record(z.string().min(1), Endpoint).refine((e) => Object.keys(e).length > 0, { message: 'name at least one endpoint' }),
  prices: z.record(z.string(), Price).default({}),
});
type EndpointsConfig = z.output<typeof EndpointsConfig>;

export function readEndpoints(config: unknown, configPath: string | undefined): EndpointsConfig {
  let value = config;
  if (configPath !== undefined) {
    let text: string;
    try {
      text = fs.readFileSync(configPath, 'utf8');
    } catch {
      throw new AppError('not_found', `No config at ${configPath}`);
    }
    try {
      value = JSON.parse(text) as unknown;
    } catch (error) {
      throw new AppError('invalid_input', `${configPath} is not valid JSON: ${(error as Error).message}`);
    }
  }
  const parsed = EndpointsConfig.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new AppError('invalid_input', `Evaluation config ${issue.path.join('.') || '(top level)'}: ${issue.message}`);
  }
  return parsed.data;
}

export type { StoredOptions } from './run-settings';

function refs(options: StoredOptions): [string, ModelRef][] {
  return [
    ['model', options.model],
    ...(options.judge ? [['judge', options.judge] as [string, ModelRef]] : []),
    ...(options.reader?.kind === 'llm' ? [['reader', options.reader.model] as [string, ModelRef]] : []),
  ];
}

function llmConfig(endpoints: EndpointsConfig, options: StoredOptions): PipelineConfig {
  const config: PipelineConfig = {
    endpoints: endpoints.endpoints,
    detectors: [options.model],
    generator: options.model,
    filters: [options.model],
    // Each evaluation call sends its own temperature (null: none); this is the fallback.
    temperature: options.temperature ?? 0,
    maxTokens: options.maxTokens,
    detection: { types: [...DETECTABLE_TYPES], rule: 'all' },
    clarify: { minInterpretations: 2 },
    retrieval: { corpus: options.corpus ?? null, mode: options.retrieval, k: options.k ?? 10 },
    rerank: { provider: 'offline' },
    shortenOver: 10,
    filter: { rule: 'all' },
    concurrency: options.concurrency,
    prices: endpoints.prices,
    earlyExit: EarlyExit.parse({ enabled: false }),
    batch: BatchMode.parse({}),
    budget: Budget.parse({}),
  };
  return withBaseUrlOverride(config, process.env.AWB_BASE_URL);
}

/** Creates a run and its items; nothing is called yet. */
export function createEvalRun(db: WritableDB, request: EvalStartRequest): number {
  const endpoints = readEndpoints(request.config, request.configPath);
  const { config: _config, configPath: _path, ...asked } = request;
  for (const [what, ref] of refs(asked)) {
    if (!endpoints.endpoints[ref.endpoint]) throw new AppError('invalid_input', `${what}: no endpoint named "${ref.endpoint}" in the config (${Object.keys(endpoints.endpoints).join(', ')})`);
  }
  if (METHOD_INFO[asked.method].retrieves && !asked.corpus && !asked.method.startsWith('condqa')) {
    throw new AppError('invalid_input', `${METHOD_INFO[asked.method].label} searches a corpus: name one (corpus).`);
  }
  const mode = usableMode(db, asked.corpus ?? null, asked.retrieval);
  const source = loadSource(db, asked);
  checkGoldConditions(asked.method, source);
  const { options, notes } = resolveOptions(db, asked, source);
  const prompts = currentEvalPrompts(db);
  const id = insertEvalRun(db, {
    method: options.method,
    model: `${options.model.endpoint}/${options.model.model}`,
    endpoint: endpoints,
    sourceKind: source.kind,
    source: source.label,
    releaseId: source.releaseId,
    split: source.split,
    datasetId: source.datasetId,
    corpus: options.corpus ?? null,
    retrievalMode: METHOD_INFO[options.method].retrieves ? mode.mode : null,
    k: METHOD_INFO[options.method].retrieves ? (options.k ?? null) : null,
    options,
    promptVersions: Object.fromEntries([...prompts].map(([name, p]) => [name, `${name}@v${p.version}`])),
  });
  insertEvalItems(
    db,
    id,
    source.items.map((item, position) => ({ position, key: item.key, instanceId: item.instanceId, ambiguityType: item.ambiguityType, question: item.gold.question, gold: item.gold })),
  );
  if (mode.note) notes.unshift(mode.note);
  if (notes.length) saveEvalRunSummary(db, id, { notes });
  return id;
}

export interface ExecuteOptions {
  signal?: AbortSignal | undefined;
  keys?: Readonly<Record<string, string>> | undefined;
  retriever?: Retriever | undefined;
  onProgress?: ((progress: EvalProgress, session: { done: number; total: number }) => void) | undefined;
  /** Endpoints to use instead of the stored ones (a resume on another machine, say). */
  endpoints?: EndpointsConfig | undefined;
}

/** Runs in this process right now (others left "running" ended with their process). */
const active = new Set<number>();

/**
 * Finished items are written in batches, one transaction each (a commit per item would cost more
 * than the item's own work against a fast endpoint). A kill loses at most the last batch, whose
 * calls are in the call log already (a batch commits the answers' group first), so the resume
 * repeats none of them. The run's done and failed counts move with each batch (a failed item
 * tried again leaves "failed").
 */
class ItemWrites {
  private pending: (() => void)[] = [];
  private timer: NodeJS.Timeout | null = null;
  private counted = { done: 0, failed: 0 };

  constructor(
    private readonly db: WritableDB,
    private readonly runId: number,
  ) {}

  save(write: () => void, before: string, after: 'done' | 'failed'): void {
    this.pending.push(write);
    this.counted[after]++;
    if (before === 'done' || before === 'failed') this.counted[before]--;
    if (this.pending.length >= 64) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), 100);
  }

  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.pending;
    const counted = this.counted;
    this.pending = [];
    this.counted = { done: 0, failed: 0 };
    if (batch.length)
      transaction(this.db, () => {
        batch.forEach((write) => write());
        addEvalRunCounts(this.db, this.runId, counted.done, counted.failed);
      });
  }
}

/** What running one item needs: the run's environment, its stored options, where results go. */
interface ItemContext {
  env: RunEnv;
  stored: StoredOptions;
  fellBack: boolean;
  writes: ItemWrites;
  signal: AbortSignal | undefined;
}

/** One item: the method, then its scores, saved as done; or the reason it failed, saved as failed. Returns whether it ended (not cancelled) and failed. */
async function runItem(ctx: ItemContext, itemId: number): Promise<'done' | 'failed' | 'cancelled'> {
  const { env, stored } = ctx;
  const db = env.db;
  const method = stored.method;
  const item = getEvalItem(db, itemId)!;
  const run = new ItemRun(env, itemId, JSON.parse(item.gold) as EvalGold);
  if (ctx.fellBack) run.notes.push(`${stored.retrieval} retrieval fell back to BM25: the corpus has no vectors`);
  let methodCalls: number | null = null;
  const usage = () => {
    const u = itemUsage(db, run.tag, run.callIds.slice(0, methodCalls ?? run.callIds.length));
    return { latencyMs: u.latencyMs + run.retrievalMs, calls: u.calls, promptTokens: u.promptTokens, completionTokens: u.completionTokens, costUsd: u.costUsd, notes: run.notes };
  };
  try {
    const out = await runMethod(method, run);
    methodCalls = run.callIds.length;
    const spent = usage();
    const reader = stored.reader as ReaderChoice | undefined;
    const conditional = method.startsWith('condqa') ? { condition: method === 'condqa' } : undefined;
    const scores = await scoreOutput(run, out, { reader, judge: stored.judge, retrieves: METHOD_INFO[method].retrieves, conditional, readerTimeoutMs: stored.readerTimeoutMs });
    scores.metrics = { ...run.methodMetrics, ...scores.metrics };
    // A method that gave no short answers of its own is stored with none (its answer count says null).
    const result = { longAnswer: out.longAnswer, shortAnswers: out.shortAnswers ?? [], citations: out.citations, interpretations: out.interpretations, retrieved: out.retrieved, ...scores, ...spent };
    ctx.writes.save(() => saveItemDone(db, itemId, result, run.steps), item.status, 'done');
    return 'done';
  } catch (error) {
    if (ctx.signal?.aborted || (error instanceof AppError && error.code === 'cancelled')) return 'cancelled';
    const reason = error instanceof ItemFailure ? error.message : `${method}: ${(error as Error).message ?? String(error)}`;
    const spent = usage();
    ctx.writes.save(() => saveItemFailed(db, itemId, reason, run.steps, spent), item.status, 'failed');
    return 'failed';
  }
}

/** The LLM client of one session of a run: fresh calls only in the run's first session (a resume takes what this run already got from the cache). */
function sessionClient(db: WritableDB, runId: number, stored: StoredOptions, endpoints: EndpointsConfig, prompts: ReturnType<typeof currentEvalPrompts>, options: ExecuteOptions): LlmClient {
  return new LlmClient(db, llmConfig(endpoints, stored), {
    runId,
    ...(options.signal ? { signal: options.signal } : {}),
    noCache: new Set(stored.noCache && !runHasCalls(db, runId) ? [...prompts.keys()].map((n) => `eval.${n}`) : []),
    ...(options.keys ? { keys: options.keys } : {}),
  });
}

/** Works through a run's remaining items. */
export async function executeEvalRun(db: WritableDB, runId: number, options: ExecuteOptions = {}): Promise<EvalRunSummary> {
  const row = getEvalRun(db, runId);
  if (!row) throw new AppError('not_found', `No evaluation run ${runId}`);
  if (active.has(runId)) throw new AppError('conflict', `Evaluation run ${runId} is already running`);
  const stored = JSON.parse(row.options) as StoredOptions;
  const settings = runSettings(stored);
  const prompts = currentEvalPrompts(db);
  const llm = sessionClient(db, runId, stored, options.endpoints ?? (JSON.parse(row.endpoint) as EndpointsConfig), prompts, options);
  active.add(runId);
  markAbandonedEvalRuns(db, [...active]);
  setEvalRunStatus(db, runId, 'running', null);
  const notes = new Set((JSON.parse(row.summary) as { notes?: string[] }).notes ?? []);
  const mode = usableMode(db, stored.corpus ?? null, stored.retrieval);
  if (mode.note) notes.add(mode.note);
  const env: RunEnv = {
    db,
    llm,
    prompts,
    retriever: options.retriever ?? new EmbeddedRetriever(db),
    model: stored.model,
    corpus: stored.corpus ?? null,
    requestedMode: stored.retrieval,
    mode: mode.mode,
    hyde: stored.hyde,
    k: settings.k ?? 10,
    settings,
    signal: options.signal,
  };
  const ids = itemIdsToRun(db, runId);
  const counts = { done: 0, failed: 0 };
  const started = Date.now();
  let lastReport = 0;
  const report = (force = false) => {
    const now = Date.now();
    if (!force && now - lastReport < 200) return;
    lastReport = now;
    const elapsed = (now - started) / 1000;
    const s = llm.stats;
    const etaSeconds = counts.done > 0 && elapsed > 0.5 ? ((ids.length - counts.done) * elapsed) / counts.done : null;
    options.onProgress?.(
      { runId, done: row.done + counts.done, total: row.total, failed: counts.failed, calls: s.calls, cachedCalls: s.cachedCalls, costUsd: s.costUsd, etaSeconds },
      { done: counts.done, total: ids.length },
    );
  };
  const ctx: ItemContext = { env, stored, fellBack: Boolean(mode.note), writes: new ItemWrites(db, runId), signal: options.signal };

  let status: 'done' | 'failed' | 'cancelled' = 'done';
  let error: string | null = null;
  try {
    report(true);
    let next = 0;
    const worker = async () => {
      while (next < ids.length && !options.signal?.aborted) {
        const outcome = await runItem(ctx, ids[next++]!);
        if (outcome === 'cancelled') continue;
        counts.done++;
        if (outcome === 'failed') counts.failed++;
        report();
      }
    };
    await Promise.all(Array.from({ length: Math.min(stored.concurrency, ids.length) }, worker));
    if (options.signal?.aborted) status = 'cancelled';
    report(true);
  } catch (e) {
    status = 'failed';
    error = (e as Error).message;
  } finally {
    // The last batch of items, then the answers' last group commit (a failed group's answers were written again, its other writes were not).
    const lost: string[] = [];
    try {
      ctx.writes.flush();
    } catch (e) {
      lost.push((e as Error).message);
    }
    const group = settleGroup(db);
    if (group) lost.push(group);
    if (lost.length) {
      status = 'failed';
      error = [...(error === null ? [] : [error]), ...lost].join('; ');
    }
    active.delete(runId);
    refreshEvalRunTotals(db, runId, llm.stats.cachedCalls);
    saveEvalRunSummary(db, runId, { ...aggregates(db, runId), notes: [...notes, ...methodNotes(db, runId)] });
    setEvalRunStatus(db, runId, status, error ?? (status === 'cancelled' ? 'Cancelled; resume the run to finish it.' : null));
  }
  if (status === 'failed') throw new AppError('internal', `Evaluation run ${runId} failed: ${error}`);
  return evalRunSummary(db, runId);
}

export { compareEvalRuns, evalRunSummaries, evalRunSummary, evalTables } from './results';
