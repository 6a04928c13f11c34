import fs from 'node:fs';
import pLimit from 'p-limit';
import { findCorpusByName, listCorpora } from '../../../db/queries/corpora';
import { countEmbeddings, listModels } from '../../../db/queries/embeddings';
import { findDatasetByName } from '../../../db/queries/datasets';
import { detectionVoteCounts } from '../../../db/queries/detection-votes';
import { filterVoteCounts } from '../../../db/queries/filter-votes';
import { instancesWaiting, mergeInstanceSearchIndex } from '../../../db/queries/instances';
import { questionsToDetect, subsetCandidates } from '../../../db/queries/base-questions';
import { finishedInRun, markItem } from '../../../db/queries/pipeline-items';
import { callMeans } from '../../../db/queries/llm-calls';
import { finishRun, getRun, insertRun, markAbandonedRuns, reopenRun, saveRunSummary } from '../../../db/queries/runs';
import { settleGroup, type WritableDB } from '../../../db/sql';
import { AppError } from '../../../shared/api';
import { type PipelineStage } from '../../../shared/domain';
import { PipelineConfig, runStageOrder, withBaseUrlOverride, type PipelineProgress, type RunSummary, type StageCounts } from '../../../shared/pipeline';
import { stableSubset } from '../../../shared/pipeline-rules';
import { defaultModelFor, embedCorpus, OFFLINE_DIMENSIONS, offlineModelName } from '../retrieval/models';
import { EmbeddedRetriever, type Retriever } from '../retrieval/search';
import { emptyStats, LlmClient } from './llm';
import { currentPrompts } from './prompts';
import { retrievalWork } from './retrieval-work';
import { runStage } from './stages';
import type { InstanceItem, Outcome, QuestionItem, StageContext } from './stages/context';
import { VoteStats } from './stages/vote-stats';
import { withBreaks } from '../steps';

export { itemTrace, pipelineFunnel, pipelineRuns, pipelineStatus } from './funnel';

/**
 * A pipeline run: the chosen stages in order, each over every item waiting for it (items made
 * by an earlier stage of the same run included), many items at once. Progress streams with an
 * ETA; cancellation stops taking new items and aborts the calls in flight. The run, its config,
 * and per-stage accounting are stored.
 */

export interface RunOptions {
  /** The config file's JSON (validated here). */
  config: unknown;
  stages?: PipelineStage[];
  /**
   * Only the first N base questions by their stable subset key (a hash of dataset name and source
   * id), and their instances: the same questions, in the same order, on every run.
   */
  limit?: number;
  datasets?: string[];
  /** Stages whose calls skip the cache. */
  noCache?: PipelineStage[];
  signal?: AbortSignal;
  keys?: Record<string, string>;
  /** Another retrieval engine (then retrieval runs on this thread, through it). */
  retriever?: Retriever;
  onProgress?: (progress: PipelineProgress) => void;
  /** Lines worth telling the user as they happen (also kept in the run's summary as `log`). */
  onLog?: (line: string) => void;
  /** Take up this stored run again (its batches, its votes) under the same id, instead of starting a new one. */
  resume?: number;
}

export function parseConfig(json: unknown): PipelineConfig {
  const parsed = PipelineConfig.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new AppError('invalid_input', `Pipeline config ${issue.path.join('.') || '(top level)'}: ${issue.message}`);
  }
  return withBaseUrlOverride(parsed.data, process.env.AWB_BASE_URL);
}

export function readConfigFile(file: string): unknown {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    throw new AppError('not_found', `No pipeline config at ${file}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new AppError('invalid_input', `${file} is not valid JSON: ${(error as Error).message}`);
  }
}


/** Why the run stops taking new items: cancelled, or the cost ceiling reached (null: it goes on). */
function stopReason(options: RunOptions, llm: LlmClient): string | null {
  if (options.signal?.aborted) return 'Cancelled';
  return llm.ceiling.stopped;
}

export async function runPipeline(db: WritableDB, options: RunOptions): Promise<RunSummary> {
  const config = parseConfig(options.config);
  const order = runStageOrder(config.earlyExit.enabled);
  const chosen = options.stages?.length ? order.filter((s) => options.stages!.includes(s)) : order;
  const datasetIds = (options.datasets ?? []).map((name) => {
    const row = findDatasetByName(db, name);
    if (!row) throw new AppError('not_found', `No dataset named "${name}"`);
    return row.id;
  });
  let corpusId: number | null = null;
  if (config.retrieval.corpus) {
    const corpus = findCorpusByName(db, config.retrieval.corpus);
    if (!corpus) throw new AppError('not_found', `No corpus named "${config.retrieval.corpus}" (retrieval.corpus in the config)`);
    corpusId = corpus.id;
  }
  markAbandonedRuns(db);
  const log: string[] = [];
  const note = (line: string) => {
    if (log.includes(line)) return;
    log.push(line);
    options.onLog?.(line);
  };
  const runId = options.resume ?? insertRun(db, 'pipeline', { ...config, stages: chosen, limit: options.limit ?? null, datasets: options.datasets ?? [], noCache: options.noCache ?? [] });
  if (options.resume !== undefined) reopenRun(db, runId);
  const llm = new LlmClient(db, config, { runId, ...(options.signal ? { signal: options.signal } : {}), noCache: new Set(options.noCache ?? []), ...(options.keys ? { keys: options.keys } : {}), note });
  const retriever = options.retriever ?? new EmbeddedRetriever(db);
  const work = retrievalWork(db, retriever, { custom: options.retriever !== undefined });
  let rerank: RunSummary['rerank'] = null;
  let prepared: Promise<string | null> | null = null;
  const votes = new VoteStats((ids) => callMeans(db, ids));
  if (options.resume !== undefined) resumeVoteStats(db, runId, votes);
  const ctx: StageContext = {
    db, config, llm, prompts: currentPrompts(db), runId, retriever, work, corpusId, votes, note,
    // Vectors are made (or found) once, when the first item needs evidence.
    prepareRetrieval: () =>
      (prepared ??= prepareRetrieval(db, config, corpusId, options.retriever !== undefined, note, options.signal).then((setup) => {
        rerank = setup.rerank;
        return setup.evidenceModel;
      })),
  };
  // Batches a run left open (this one, resumed, or any other that died) are polled and read back first.
  llm.batcher?.recover();
  const counts: StageCounts[] = [];
  // --limit: the same base questions every time, by their stable key (not by import order).
  const subset = options.limit ? stableSubset(subsetCandidates(db, datasetIds), options.limit).map((c) => c.id) : null;
  const limit = 1_000_000_000;
  const voters = [
    ...config.detection.types.map((key) => ({ stage: 'detect', key, refs: config.detectors })),
    { stage: 'filter', key: '', refs: config.filters },
  ];
  const summary = (): Omit<RunSummary, 'id' | 'status' | 'startedAt' | 'finishedAt' | 'config'> => ({
    stages: counts.map((c) => {
      const s = llm.byStage.get(c.stage) ?? emptyStats();
      return {
        ...c, calls: s.calls, cachedCalls: s.cachedCalls, promptTokens: s.promptTokens, completionTokens: s.completionTokens, costUsd: s.costUsd,
        latencyMs: Math.round(s.latencyMs), queueMs: Math.round(s.queueMs), batchCalls: s.batchCalls, unpricedCalls: s.unpricedCalls,
      };
    }),
    calls: llm.stats.calls,
    cachedCalls: llm.stats.cachedCalls,
    promptTokens: llm.stats.promptTokens,
    completionTokens: llm.stats.completionTokens,
    costUsd: llm.stats.costUsd,
    unpricedCalls: llm.stats.unpricedCalls,
    error: null,
    retrieval: work.where,
    rerank,
    log: [...log],
    voting: votes.summary(voters),
  });

  let status: 'done' | 'failed' | 'cancelled' = 'done';
  let error: string | null = null;
  let lost: string | null = null;
  try {
    for (const stage of chosen) {
      const stopped = stopReason(options, llm);
      if (stopped) throw new AppError('cancelled', stopped);
      const items: (QuestionItem | InstanceItem)[] = stage === 'detect' ? questionsToDetect(db, datasetIds, limit, subset) : inItemOrder(instancesWaiting(db, order.slice(1, order.indexOf(stage)), stage, datasetIds, limit, subset));
      const entry: StageCounts = { stage, processed: 0, done: 0, failed: 0, removed: 0, calls: 0, cachedCalls: 0, promptTokens: 0, completionTokens: 0, costUsd: 0, latencyMs: 0, queueMs: 0 };
      counts.push(entry);
      await runItems(ctx, stage, items, entry, options, () => saveRunSummary(db, runId, summary()));
      saveRunSummary(db, runId, summary());
      const after = stopReason(options, llm);
      if (after) throw new AppError('cancelled', after);
    }
  } catch (e) {
    status = e instanceof AppError && e.code === 'cancelled' ? 'cancelled' : 'failed';
    error = (e as Error).message;
    if (status === 'failed') {
      llm.batcher?.stop();
      finishRun(db, runId, status, { ...summary(), error });
      throw e;
    }
  } finally {
    // The items' writes of the last turn are committed before the run is closed and returned; a
    // failure to do so is reported below (on a run that failed already, its own error says more).
    lost = settleGroup(db);
    llm.batcher?.stop();
    await work.close();
  }
  if (lost) {
    finishRun(db, runId, 'failed', { ...summary(), error: lost });
    throw new AppError('internal', lost);
  }
  finishRun(db, runId, status, { ...summary(), error });
  // The stages rewrote search rows in many small commits: merge them (best-effort), as an import
  // does. A cancelled run leaves that to the next bulk writer.
  if (status === 'done') await withBreaks(mergeInstanceSearchIndex(db));
  return getRun(db, runId)!;
}

/**
 * Instances by their question and type, not by id: ids are given as detection finishes, which
 * differs with concurrency and between runs, and the voting order is frozen at places of this list.
 */
function inItemOrder(items: InstanceItem[]): InstanceItem[] {
  return [...items].sort((a, b) => a.base_question_id - b.base_question_id || (a.ambiguity_type < b.ambiguity_type ? -1 : a.ambiguity_type > b.ambiguity_type ? 1 : 0));
}

/** One stage over its items, many at once (in a batched stage, as many as wait for batches). */
async function runItems(ctx: StageContext, stage: PipelineStage, items: (QuestionItem | InstanceItem)[], entry: StageCounts, options: RunOptions, save: () => void): Promise<void> {
  const { llm, config, db, runId } = ctx;
  const started = Date.now();
  let lastReport = 0;
  let lastSave = Date.now();
  const report = (force = false) => {
    const now = Date.now();
    if (!force && now - lastReport < 200) return;
    lastReport = now;
    const elapsed = (now - started) / 1000;
    options.onProgress?.({
      runId,
      stage,
      done: entry.processed,
      total: items.length,
      calls: llm.stats.calls,
      cachedCalls: llm.stats.cachedCalls,
      failedCalls: llm.stats.failedCalls,
      costUsd: llm.stats.costUsd,
      unpricedCalls: llm.stats.unpricedCalls,
      etaSeconds: entry.processed > 0 && elapsed > 0.5 ? ((items.length - entry.processed) * elapsed) / entry.processed : null,
      openBatches: llm.batcher?.inFlight ?? 0,
    });
    // A run that waits hours for batches keeps its summary current.
    if (now - lastSave > 30_000) {
      lastSave = now;
      save();
    }
  };
  report(true);
  const batched = config.batch.enabled && config.batch.stages.includes(stage);
  const slots = pLimit(batched ? Math.max(config.concurrency, config.batch.itemsInFlight) : config.concurrency);
  const tag = (item: QuestionItem | InstanceItem) => (stage === 'detect' ? `bq:${item.id}` : `inst:${item.id}`);
  // The voting order is frozen at fixed places of this list (in item order), never by what finished first.
  ctx.votes.plan(stage, items.map(tag), options.resume === undefined ? 0 : finishedInRun(db, runId, stage), config.earlyExit.warmup, batched ? 'once' : 'double');
  await Promise.all(
    items.map((item) =>
      slots(async () => {
        try {
          await runItem(ctx, stage, item, tag(item), entry, options);
        } finally {
          ctx.votes.finished(stage, tag(item));
        }
        report();
      }),
    ),
  );
  report(true);
}

/** One item of a stage, counted by its outcome (anything that goes wrong with the item alone fails the item, not the run). */
async function runItem(ctx: StageContext, stage: PipelineStage, item: QuestionItem | InstanceItem, tag: string, entry: StageCounts, options: RunOptions): Promise<void> {
  if (stopReason(options, ctx.llm)) return;
  let outcome: Outcome;
  try {
    outcome = await runStage(ctx, stage, item);
  } catch (error) {
    if (stopReason(options, ctx.llm) || (error instanceof AppError && error.code === 'cancelled')) return;
    // A missing corpus or vectors, a database constraint: this item fails.
    markItem(ctx.db, stage, tag, 'failed', ctx.runId, `${stage}: ${(error as Error).message}`);
    outcome = 'failed';
  }
  entry.processed++;
  entry[outcome === 'done' ? 'done' : outcome === 'failed' ? 'failed' : 'removed']++;
}

/** A resumed run replays the orders it recorded, and counts the votes it stored (those asked first count for the rates). */
function resumeVoteStats(db: WritableDB, runId: number, votes: VoteStats): void {
  votes.replay(getRun(db, runId)?.voting ?? []);
  for (const row of detectionVoteCounts(db, runId)) if (row.verdict !== 'not_needed') votes.count('detect', row.ambiguity_type, row.model, row.verdict === 'no', row.n, row.first === 1);
  for (const row of filterVoteCounts(db, runId)) if (row.verdict !== 'not_needed') votes.count('filter', '', row.model, row.verdict === 'misaligned', row.n, row.first === 1);
}

/**
 * Makes sure retrieval has vectors to search and re-rank with before the first item needs them.
 * A corpus with no vectors at all (freshly imported questions bring their paragraphs as a corpus
 * without any) is embedded with the offline embedder on first use, which needs no network, and
 * the run's log says so. With `rerank: offline`, evidence is searched and re-ranked with the
 * offline model's vectors; a corpus embedded only with another model is not embedded again (that
 * could take hours): its own model re-ranks, and the log says which. With an endpoint, search uses
 * the corpus's best-covering model and the endpoint re-ranks.
 */
async function prepareRetrieval(
  db: WritableDB,
  config: PipelineConfig,
  corpusId: number | null,
  customRetriever: boolean,
  note: (line: string) => void,
  signal: AbortSignal | undefined,
): Promise<{ evidenceModel: string | null; rerank: NonNullable<RunSummary['rerank']> }> {
  const rerank = config.rerank;
  const endpointRerank = rerank.provider === 'openai' ? ({ provider: 'openai', model: `${rerank.endpoint}/${rerank.model}`, lexical: false } as const) : null;
  if (customRetriever) return { evidenceModel: null, rerank: endpointRerank ?? { provider: 'offline', model: "the custom retriever's similarity", lexical: true } };
  const corpora = listCorpora(db).filter((c) => c.passages > 0 && (corpusId === null || c.id === corpusId));
  const models = listModels(db);
  const offline = models.filter((m) => m.provider === 'offline');
  // The offline model already in use (the one holding most vectors here), else the default one.
  const inUse = offline.map((m) => ({ m, n: countEmbeddings(db, m.id, corpusId) })).sort((a, b) => b.n - a.n)[0];
  const offlineName = inUse && inUse.n > 0 ? inUse.m.name : offlineModelName(OFFLINE_DIMENSIONS);
  const dimensions = inUse && inUse.n > 0 ? inUse.m.dimensions : OFFLINE_DIMENSIONS;
  for (const corpus of corpora) {
    if (signal?.aborted) throw new AppError('cancelled', 'Cancelled');
    if (models.some((m) => countEmbeddings(db, m.id, corpus.id) > 0)) continue;
    const report = await embedCorpus(db, { corpus: corpus.name, provider: 'offline', dimensions, ...(signal ? { signal } : {}) });
    note(`The corpus "${corpus.name}" had no vectors: embedded its ${report.embedded} passages with the offline embedder (${report.model}, lexical, no network) on first use, in ${report.seconds} s.`);
  }
  if (endpointRerank) {
    note(`Evidence is re-ranked by ${endpointRerank.model} (an embeddings endpoint).`);
    return { evidenceModel: null, rerank: endpointRerank };
  }
  const offlineRow = listModels(db).find((m) => m.name === offlineName);
  const covered = offlineRow !== undefined && corpora.every((c) => countEmbeddings(db, offlineRow.id, c.id) > 0);
  if (covered) {
    note(`Evidence is searched and re-ranked with the offline embedder ${offlineName} (lexical: hashed words and character n-grams).`);
    return { evidenceModel: offlineName, rerank: { provider: 'offline', model: offlineName, lexical: true } };
  }
  const own = defaultModelFor(db, corpusId);
  const model = own?.name ?? 'none';
  note(`Evidence is re-ranked with ${model}, the model the corpus was embedded with: not every corpus has offline vectors (embedding it with the offline provider adds them).`);
  return { evidenceModel: null, rerank: { provider: own?.provider === 'offline' ? 'offline' : 'openai', model, lexical: own?.lexical === 1 } };
}

