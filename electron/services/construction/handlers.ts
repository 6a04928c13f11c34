import path from 'node:path';
import type { Handlers } from '../../../shared/api';
import { readConstructionConfig } from '../pipeline/construction-config';
import type { Workbench } from '../workbench';
import { roundFunnelOf, roundRows } from './funnel';
import { nextRound, reviewRound, startRounds } from './rounds';

type ConstructionOperation = 'round:start' | 'round:review' | 'round:next' | 'round:list' | 'round:funnel';

/** CondAmbigQA's rounds: draft, review, next round; their funnel and their rows. */
export function constructionHandlers(workbench: Workbench): Pick<Handlers, ConstructionOperation> {
  const db = workbench.db;
  const config = (request: { config?: unknown; configPath?: string | undefined }) => readConstructionConfig(request.config, request.configPath === undefined ? undefined : path.resolve(request.configPath));
  return {
    'round:start': (request) => {
      const parsed = config(request);
      return workbench.writerJob('round', `CondAmbigQA round 1 · ${request.dataset}`, 'items', (writer, control) =>
        startRounds(writer, { ...request, config: parsed }, { signal: control.signal, keys: workbench.apiKeys, onProgress: (done, total, detail) => control.progress(done, total, detail) }),
      );
    },
    'round:review': (request) => reviewRound(db, request),
    'round:next': (request) => {
      const parsed = config(request);
      return workbench.writerJob('round', `CondAmbigQA next round · ${request.dataset}`, 'items', (writer, control) =>
        nextRound(writer, { ...request, config: parsed }, { signal: control.signal, keys: workbench.apiKeys, onProgress: (done, total, detail) => control.progress(done, total, detail) }),
      );
    },
    'round:list': (request) => roundRows(db, request),
    'round:funnel': ({ dataset }) => roundFunnelOf(db, dataset),
  };
}
