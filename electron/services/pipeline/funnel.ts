import { findDatasetByName } from '../../../db/queries/datasets';
import { getInstance, instanceFunnelRows } from '../../../db/queries/instances';
import { detectedQuestionCount } from '../../../db/queries/base-questions';
import { callsForItems } from '../../../db/queries/llm-calls';
import { itemStages, stageStatusCounts } from '../../../db/queries/pipeline-items';
import { listRuns } from '../../../db/queries/runs';
import type { WritableDB } from '../../../db/sql';
import { AppError } from '../../../shared/api';
import { RUN_STAGES, type Funnel, type ItemTrace, type RunSummary } from '../../../shared/pipeline';
import { costPerKept } from './cost';
import { keptLabelTables } from './label-tables';

/** What the pipeline has made so far: runs, stage counts, the funnel (MARCH Table 2, top) and item traces. */

export function pipelineRuns(db: WritableDB, limit = 50): RunSummary[] {
  return listRuns(db, limit);
}

export function pipelineStatus(db: WritableDB): { stages: { stage: string; done: number; failed: number }[]; runs: RunSummary[] } {
  const rows = stageStatusCounts(db);
  return {
    stages: RUN_STAGES.map((stage) => ({
      stage,
      done: rows.find((r) => r.stage === stage && r.status === 'done')?.n ?? 0,
      failed: rows.find((r) => r.stage === stage && r.status === 'failed')?.n ?? 0,
    })),
    runs: pipelineRuns(db, 10),
  };
}

type FunnelRowOf = ReturnType<typeof instanceFunnelRows>[number];

const FUNNEL_STEPS: { step: string; reached: (r: FunnelRowOf) => boolean }[] = [
  { step: 'detected ambiguous', reached: () => true },
  { step: 'clarified (2+ interpretations)', reached: (r) => r.stage !== 'detect' && r.removed_stage !== 'clarify' },
  { step: 'answered (2+ supported answers)', reached: (r) => ['answer', 'merge', 'shorten', 'collide', 'filter'].includes(r.stage) && r.removed_stage !== 'answer' },
  { step: 'short answers within the token limit', reached: (r) => (r.shortened === 1 || ['shorten', 'collide', 'filter'].includes(r.stage)) && r.removed_stage !== 'shorten' },
  { step: 'after collisions', reached: (r) => (r.collided === 1 || ['collide', 'filter'].includes(r.stage)) && r.removed_stage !== 'collide' },
  { step: 'kept by the filter', reached: (r) => r.status === 'ready' },
];

/** MARCH Table 2 (top): how many instances survive each step, per type. */
export function pipelineFunnel(db: WritableDB, datasets: string[] = []): Funnel {
  const datasetIds = datasets.map((name) => {
    const row = findDatasetByName(db, name);
    if (!row) throw new AppError('not_found', `No dataset named "${name}"`);
    return row.id;
  });
  return { ...funnelSteps(db, datasetIds), cost: costPerKept(db, { datasetIds }), labels: keptLabelTables(db, datasetIds) };
}

/** The funnel's counts alone (what a release card shows of it): its steps per type, and the kept instances' mean hops and words. */
export function funnelSteps(db: WritableDB, datasetIds: readonly number[]): Omit<Funnel, 'cost' | 'labels'> {
  const questions = detectedQuestionCount(db, datasetIds);
  const instances = instanceFunnelRows(db, datasetIds);
  const types = [...new Set(instances.map((r) => r.ambiguity_type))].sort();
  const rows = FUNNEL_STEPS.map(({ step, reached }) => {
    const counts: Record<string, number> = Object.fromEntries(types.map((t) => [t, 0]));
    for (const r of instances) if (reached(r)) counts[r.ambiguity_type] = (counts[r.ambiguity_type] ?? 0) + r.n;
    return { step, counts, total: Object.values(counts).reduce((a, b) => a + b, 0) };
  });
  const kept = instances.filter((r) => r.status === 'ready');
  const weightedAverage = (field: 'hops' | 'words', type: string | null) => {
    const rowsOf = kept.filter((r) => (type === null || r.ambiguity_type === type) && r[field] !== null);
    const n = rowsOf.reduce((a, r) => a + r.n, 0);
    return n ? Number((rowsOf.reduce((a, r) => a + r[field]! * r.n, 0) / n).toFixed(2)) : null;
  };
  return {
    types,
    rows: [{ step: 'base questions screened', counts: Object.fromEntries(types.map((t) => [t, questions])), total: questions }, ...rows],
    averageHops: Object.fromEntries([...types.map((t) => [t, weightedAverage('hops', t)]), ['all', weightedAverage('hops', null)]]),
    averageQuestionWords: Object.fromEntries([...types.map((t) => [t, weightedAverage('words', t)]), ['all', weightedAverage('words', null)]]),
  };
}

/** Everything about one item: each stage's outcome and every call with its prompt and raw output. */
export function itemTrace(db: WritableDB, item: string): ItemTrace {
  const keys = [item];
  const instance = /^inst:(\d+)$/.exec(item);
  if (instance) {
    const row = getInstance(db, Number(instance[1]));
    if (row) keys.push(`bq:${row.base_question_id}`);
  }
  return {
    item,
    stages: itemStages(db, keys),
    calls: callsForItems(db, keys),
  };
}
