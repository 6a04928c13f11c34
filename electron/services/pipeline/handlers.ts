import fs from 'node:fs';
import path from 'node:path';
import { deletePrice, listPrices, setPrice } from '../../../db/queries/model-prices';
import { failedItems } from '../../../db/queries/pipeline-items';
import { lastRunConfig } from '../../../db/queries/runs';
import type { Handlers } from '../../../shared/api';
import { PIPELINE_STAGES } from '../../../shared/domain';
import { formatUsd } from '../../../shared/pipeline';
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
  | 'pipeline:price-set';

/** Settings a run keeps in its stored config, not part of the config file itself. */
const RUN_KEYS = ['stages', 'limit', 'datasets', 'noCache'];

export function pipelineHandlers(workbench: Workbench): Pick<Handlers, PipelineOperation> {
  const db = workbench.db;
  return {
    'pipeline:start': (request) => {
      const config = request.config ?? readConfigFile(path.resolve(request.configPath!));
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
            onProgress: (p) => control.progress(p.done, p.total, `${p.stage} · ${p.calls} calls, ${p.cachedCalls} cached · ${formatUsd(p.costUsd)}`),
        }),
      );
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
    'pipeline:price-set': ({ model, input, output }) => {
      if (input === null || output === null) deletePrice(db, model);
      else setPrice(db, model, input, output);
      return listPrices(db);
    },
  };
}
