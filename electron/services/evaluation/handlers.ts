import { countEvalItems, listEvalItems, rowToEvalItemRowView, type ItemFilter } from '../../../db/queries/eval-items';
import { getEvalRun } from '../../../db/queries/eval-runs';
import type { WritableDB } from '../../../db/sql';
import { AppError, type Handlers } from '../../../shared/api';
import { EVAL_METHODS, METHOD_INFO } from '../../../shared/eval/methods';
import type { JobRunner } from '../jobs';
import { evalItemDetail } from './items';
import { evalPromptHistory, listEvalPrompts, saveEvalPrompt } from './prompts';
import { compareEvalRuns, createEvalRun, evalRunSummaries, evalRunSummary, evalTables, executeEvalRun, readEndpoints } from './run';

type EvaluationOperation =
  | 'evaluation:start'
  | 'evaluation:resume'
  | 'evaluation:list'
  | 'evaluation:get'
  | 'evaluation:items'
  | 'evaluation:item'
  | 'evaluation:compare'
  | 'evaluation:table'
  | 'evaluation:methods'
  | 'evaluation:prompts'
  | 'evaluation:prompt-history'
  | 'evaluation:prompt-save';

export function evaluationHandlers(db: WritableDB, jobs: JobRunner, writer: () => { db: WritableDB; release(): void }, keys: () => Record<string, string>): Pick<Handlers, EvaluationOperation> {
  const start = (runId: number, label: string, endpoints?: ReturnType<typeof readEndpoints>) =>
    jobs.start('evaluation', label, 'items', async (control) => {
      const connection = writer();
      try {
        return await executeEvalRun(connection.db, runId, {
          signal: control.signal,
          keys: keys(),
          endpoints,
          onProgress: (p, session) =>
            control.progress(
              session.done,
              session.total,
              `evaluating run ${p.runId}: ${p.done}/${p.total} items, ${p.failed} failed · ${p.calls} calls, ${p.cachedCalls} cached · $${p.costUsd.toFixed(4)}`,
            ),
        });
      } finally {
        connection.release();
      }
    });
  return {
    'evaluation:start': (request) => {
      const runId = createEvalRun(db, request);
      const run = evalRunSummary(db, runId);
      return { jobId: start(runId, `Evaluation ${run.id}: ${run.methodLabel} × ${run.model} on ${run.source}`).id };
    },
    'evaluation:resume': ({ id, config, configPath }) => {
      if (!getEvalRun(db, id)) throw new AppError('not_found', `No evaluation run ${id}`);
      const endpoints = config !== undefined || configPath !== undefined ? readEndpoints(config, configPath) : undefined;
      return { jobId: start(id, `Evaluation ${id} (resumed)`, endpoints).id };
    },
    'evaluation:list': ({ limit }) => evalRunSummaries(db, limit),
    'evaluation:get': ({ id }) => evalRunSummary(db, id),
    'evaluation:items': ({ run, sort, direction, offset, limit, ...filter }) => {
      if (!getEvalRun(db, run)) throw new AppError('not_found', `No evaluation run ${run}`);
      const f: ItemFilter = filter;
      return { total: countEvalItems(db, run, f), rows: listEvalItems(db, run, f, sort, direction, limit, offset).map(rowToEvalItemRowView) };
    },
    'evaluation:item': ({ id }) => evalItemDetail(db, id),
    'evaluation:compare': ({ a, b, threshold, resamples }) => compareEvalRuns(db, a, b, threshold, resamples),
    'evaluation:table': ({ runs }) => evalTables(db, runs),
    'evaluation:methods': () => EVAL_METHODS.map((m) => METHOD_INFO[m]),
    'evaluation:prompts': () => listEvalPrompts(db),
    'evaluation:prompt-history': ({ name }) => evalPromptHistory(db, name),
    'evaluation:prompt-save': ({ name, system, user }) => saveEvalPrompt(db, name, system, user),
  };
}
