import type { z } from 'zod';
import type { annotationOperations } from './annotation';
import type { askFirstOperations } from './ask-first';
import type { constructionOperations } from './construction';
import type { ApiError, JobTicket, Operation } from './core';
import type { corpusOperations } from './corpus';
import type { evaluationOperations } from './evaluation';
import type { failureOperations } from './failures';
import type { instanceOperations } from './instances';
import type { pipelineOperations } from './pipeline';
import type { releaseOperations } from './release';
import type { retrievalOperations } from './retrieval';
import type { scoringOperations } from './scoring';
import type { teamOperations } from './team';

/**
 * Jobs, typed by what starts them. An operation declared with `startsJob<Result>()(kind, ...)`
 * names its job's kind and result; from those declarations come `JobKind`, `JobResult<Kind>`
 * and `Job`, a union over the kinds, so a client that checks `job.kind` reads a typed
 * `job.result`. (The app domain's own operations list jobs; they start none.)
 */

type DomainOperations = typeof instanceOperations &
  typeof corpusOperations &
  typeof retrievalOperations &
  typeof annotationOperations &
  typeof pipelineOperations &
  typeof releaseOperations &
  typeof evaluationOperations &
  typeof failureOperations &
  typeof scoringOperations &
  typeof teamOperations &
  typeof constructionOperations &
  typeof askFirstOperations;

type TicketOf<O> = O extends Operation<z.ZodType, JobTicket<infer Kind, infer Result>> ? { kind: Kind; result: Result } : never;
type Tickets = { [K in keyof DomainOperations]: TicketOf<DomainOperations[K]> }[keyof DomainOperations];

export type JobKind = Tickets['kind'];
/** What a job of this kind ends with. */
export type JobResult<Kind extends JobKind> = Extract<Tickets, { kind: Kind }>['result'];

interface JobState {
  id: string;
  title: string;
  state: 'running' | 'done' | 'failed' | 'cancelled';
  done: number;
  total: number | null;
  unit: string;
  startedAt: string;
  etaSeconds: number | null;
  /** What the job is doing now, e.g. the pipeline stage and its calls. */
  detail: string | null;
  error: ApiError | null;
}

/** A job of one kind: its result is what that kind ends with (null until it is done). */
export type JobOf<Kind extends JobKind> = JobState & { kind: Kind; result: JobResult<Kind> | null };

/** Any job; narrow on `kind` to read its result. */
export type Job = { [Kind in JobKind]: JobOf<Kind> }[JobKind];
