import fs from 'node:fs';
import path from 'node:path';
import { deletePrice, listPrices, setPrice } from '../../../db/queries/model-prices';
import { failedItems } from '../../../db/queries/pipeline-items';
import { getRun, lastRunConfig, listRuns } from '../../../db/queries/runs';
import { runBatches, type BatchRow } from '../../../db/queries/llm-batches';
import { AppError } from '../../../shared/api';
import type { PipelineStage } from '../../../shared/domain';
import type { BatchSummary, PipelineProgress, Price } from '../../../shared/pipeline';
import { costPerKept } from './cost';
import type { Handlers } from '../../../shared/api';
import { PIPELINE_STAGES } from '../../../shared/domain';
import { formatCost } from '../../../shared/pipeline';
import { appRoot } from '../paths';
import type { Workbench } from '../workbench';
import { currentPrompts, promptHistory, savePrompt } from './prompts';
import { itemTrace, parseConfig, pipelineFunnel, pipelineStatus, readConfigFile, runPipeline } from './run';

type PipelineOperation =
  | 'pipeline:start'
  | 'pipeline:validate'
  | 'pipeline:defaults'
  | 'pipeline:status'
  | 'pipeline:funnel'
  | 'pipeline:failures'
  | 'pipeline:trace'
  | 'pipeline:prompts'
  | 'pipeline:prompt-history'
  | 'pipeline:prompt-save'
  | 'pipeline:prices'
  | 'pipeline:price-set'
  | 'pipeline:show'
  | 'pipeline:resume';

/** Settings a run keeps in its stored config, not part of the config file itself. */
const RUN_KEYS = ['stages', 'limit', 'datasets', 'noCache'];

/** The config with a run's own cost ceiling, where one is given. */
function withCeiling(config: unknown, maxUsd: number | undefined): unknown {
  if (maxUsd === undefined) return config;
  const c = config as { budget?: Record<string, unknown> };
  return { ...c, budget: { ...(c.budget ?? {}), maxUsd } };
}

function progressText(p: PipelineProgress): string {
  const batches = p.openBatches ? ` · waiting for ${p.openBatches} batch${p.openBatches === 1 ? '' : 'es'}` : '';
  return `${p.stage} · ${p.calls} calls, ${p.cachedCalls} cached · ${formatCost(p.costUsd, p.unpricedCalls)}${batches}`;
}

function batchSummary(b: BatchRow): BatchSummary {
  return {
    id: b.id, stage: b.stage, endpoint: b.endpoint, model: b.model, state: b.ingested_at ? `${b.state}, read back` : b.state, providerBatchId: b.provider_batch_id,
    requests: b.requests, completed: b.completed, failed: b.failed, attempt: b.attempt, submittedAt: b.submitted_at, finishedAt: b.finished_at,
  };
}

export function pipelineHandlers(workbench: Workbench): Pick<Handlers, PipelineOperation> {
  const db = workbench.db;
  return {
    'pipeline:start': (request) => {
      const config = withCeiling(request.config ?? readConfigFile(path.resolve(request.configPath!)), request.maxUsd);
      parseConfig(config); // refuse a bad config before a job exists
      return workbench.writerJob('pipeline', `Pipeline${request.stages.length ? `: ${request.stages.join(', ')}` : ''}`, 'items', (writer, control) =>
        runPipeline(writer, {
            config,
            stages: request.stages,
            ...(request.limit ? { limit: request.limit } : {}),
            datasets: request.datasets,
            // Without chosen stages the run takes every stage, so every stage skips the cache.
            ...(request.noCache ? { noCache: request.stages.length ? request.stages : [...PIPELINE_STAGES] } : {}),
            signal: control.signal,
            keys: workbench.apiKeys,
            onProgress: (p) => control.progress(p.done, p.total, progressText(p)),
        }),
      );
    },
    'pipeline:resume': ({ run, maxUsd }) => {
      const stored = getRun(db, run);
      if (!stored) throw new AppError('not_found', `No pipeline run ${run}`);
      if (stored.status === 'running') throw new AppError('conflict', `Run ${run} is running: it cannot be resumed while it runs`);
      const { stages, limit, datasets, noCache, ...config } = stored.config as Record<string, unknown> & { stages?: PipelineStage[]; limit?: number | null; datasets?: string[]; noCache?: PipelineStage[] };
      const withLimit = withCeiling(config, maxUsd);
      parseConfig(withLimit);
      return workbench.writerJob('pipeline', `Pipeline: resume run ${run}`, 'items', (writer, control) =>
        runPipeline(writer, {
          config: withLimit,
          resume: run,
          stages: stages ?? [],
          ...(limit ? { limit } : {}),
          datasets: datasets ?? [],
          ...(noCache?.length ? { noCache } : {}),
          signal: control.signal,
          keys: workbench.apiKeys,
          onProgress: (p) => control.progress(p.done, p.total, progressText(p)),
        }),
      );
    },
    'pipeline:show': ({ run }) => {
      const summary = run === undefined ? listRuns(db, 1)[0] : getRun(db, run);
      if (!summary) throw new AppError('not_found', run === undefined ? 'No pipeline run yet' : `No pipeline run ${run}`);
      const prices = ((summary.config as { prices?: Record<string, Price> }).prices ?? {}) as Record<string, Price>;
      return { ...summary, costPerKept: costPerKept(db, { runId: summary.id }, prices), batches: runBatches(db, summary.id).map(batchSummary) };
    },
    // A config being typed is often invalid: that is an answer here, not an error.
    'pipeline:validate': ({ config }) => {
      try {
        const parsed = parseConfig(config);
        return { ok: true, detectors: parsed.detectors.length, filters: parsed.filters.length, endpoints: Object.keys(parsed.endpoints) };
      } catch (error) {
        return { ok: false, message: (error as Error).message };
      }
    },
    'pipeline:defaults': () => {
      const resource = (name: string) => JSON.parse(fs.readFileSync(path.join(appRoot(), 'resources', name), 'utf8')) as unknown;
      const last = lastRunConfig(db) as Record<string, unknown> | null;
      return {
        example: resource('pipeline.example.json'),
        offline: resource('pipeline.offline.json'),
        offlineEvaluation: resource('eval.offline.json'),
        last: last ? Object.fromEntries(Object.entries(last).filter(([k]) => !RUN_KEYS.includes(k))) : null,
      };
    },
    'pipeline:status': () => pipelineStatus(db),
    'pipeline:funnel': ({ datasets }) => pipelineFunnel(db, datasets),
    'pipeline:failures': ({ stage, limit }) => failedItems(db, stage ?? null, limit),
    'pipeline:trace': ({ item }) => itemTrace(db, item),
    'pipeline:prompts': () => [...currentPrompts(db).values()],
    'pipeline:prompt-history': ({ stage }) => promptHistory(db, stage),
    'pipeline:prompt-save': ({ stage, system, user }) => savePrompt(db, stage, system, user),
    'pipeline:prices': () => listPrices(db),
    'pipeline:price-set': ({ model, input, output, batchInput, batchOutput, cachedInput }) => {
      if (input === null || output === null) deletePrice(db, model);
      else setPrice(db, model, input, output, { batchInput: batchInput ?? null, batchOutput: batchOutput ?? null, cachedInput: cachedInput ?? null });
      return listPrices(db);
    },
  };
}
