import type { Job } from '../../../shared/api';
import type { PipelineStage } from '../../../shared/domain';
import { RUN_STAGES, type RunSummary } from '../../../shared/pipeline';

/** What the pipeline tabs read off a run or a running job. */

export const failedItems = (run: RunSummary) => run.stages.reduce((n, s) => n + s.failed, 0);

/** A run's status, with its failed items: "done" in green only when nothing failed. */
export function runStatus(run: RunSummary): { text: string; className: string } {
  const failed = failedItems(run);
  if (run.status === 'done') return failed ? { text: `done, ${failed} failed`, className: 'flag-warn' } : { text: 'done', className: 'flag-ok' };
  if (run.status === 'waiting') return { text: 'waiting for batches', className: 'flag-warn' };
  return { text: run.status, className: run.status === 'running' ? '' : 'flag-bad' };
}

/**
 * What a running pipeline job reports beside its counts. The service writes its detail as
 * "<stage> · <calls> calls, <cached> cached · <cost>", the cost as formatUsd writes it
 * (electron/services/pipeline/handlers.ts).
 */
interface LiveRun {
  stage: PipelineStage;
  /** The stages of this run, in order. */
  stages: readonly PipelineStage[];
  calls: number;
  cached: number;
  /** As formatUsd writes it. */
  cost: string;
}

const DETAIL = /^(\w+) · (\d+) calls, (\d+) cached · (\S+)$/;

export function liveRun(job: Job): LiveRun | null {
  const match = job.detail ? DETAIL.exec(job.detail) : null;
  const stage = RUN_STAGES.find((s) => s === match?.[1]);
  if (!match || !stage) return null;
  // The job's title lists the chosen stages ("Pipeline: clarify, decompose"), or none for all of them.
  const chosen = job.title.startsWith('Pipeline: ')
    ? RUN_STAGES.filter((s) => job.title.slice('Pipeline: '.length).split(', ').includes(s))
    : RUN_STAGES;
  return { stage, stages: chosen.includes(stage) ? chosen : RUN_STAGES, calls: Number(match[2]), cached: Number(match[3]), cost: match[4]! };
}

/** A stage's place in the running run: finished, in progress (items done of those waiting for it), waiting, or not in it. */
export function stageInRun(stage: string, live: LiveRun | null, job: Job): string {
  if (!live) return '';
  const at = live.stages.indexOf(live.stage);
  const index = live.stages.indexOf(stage as PipelineStage);
  if (index === -1) return 'not in this run';
  if (index < at) return 'finished';
  if (index > at) return 'waiting';
  return job.total ? `in progress: ${job.done.toLocaleString('en-US')} of ${job.total.toLocaleString('en-US')}` : 'starting';
}
