import type { z } from 'zod';
import { annotationOperations } from './annotation';
import { appOperations } from './app';
import type { Job } from './jobs';
import { askFirstOperations } from './ask-first';
import { constructionOperations } from './construction';
import { corpusOperations } from './corpus';
import { AppError, type ApiError, type JobTicket, type Operation, type OperationMap, type Result } from './core';
import { instanceOperations } from './instances';
import { pipelineOperations } from './pipeline';
import { releaseOperations } from './release';
import { evaluationOperations } from './evaluation';
import { failureOperations } from './failures';
import { scoringOperations } from './scoring';
import { teamOperations, type CallContext } from './team';
import { retrievalOperations } from './retrieval';

/**
 * The one API of the workbench. Every operation is declared once, in the module of its domain,
 * as `noun:verb` (a singular kebab-case noun naming what it acts on: `instance:list`,
 * `base-question:get`, `corpus:embed`, `judging:decide`) with a runtime schema for its input and a
 * type for its output. The services implement `Handlers`; Electron IPC, `awb serve` and the `awb`
 * CLI all call it through `dispatch`, and the renderer calls it through one client, so the
 * desktop app, the browser mode and the CLI run the same code.
 */

export * from './annotation';
export * from './app';
export * from './ask-first';
export * from './construction';
export * from './core';
export * from './corpus';
export * from './instances';
export * from './jobs';
export * from './pipeline';
export * from './release';
export * from './evaluation';
export * from './failures';
export * from './scoring';
export * from './team';
export * from './retrieval';

type UnionToIntersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;

/** Merges the domains' maps into one, refusing a name declared twice or not of the form noun:verb. */
export function composeOperations<const Maps extends readonly OperationMap[]>(...maps: Maps): UnionToIntersection<Maps[number]> {
  const merged: OperationMap = {};
  for (const map of maps) {
    for (const [name, operation] of Object.entries(map)) {
      if (Object.hasOwn(merged, name)) throw new Error(`Operation ${name} is declared twice`);
      if (!/^[a-z]+(?:-[a-z]+)*:[a-z]+(?:-[a-z]+)*$/.test(name)) throw new Error(`Operation ${name} does not read noun:verb`);
      merged[name] = operation;
    }
  }
  return merged as UnionToIntersection<Maps[number]>;
}

export const operations = composeOperations(
  appOperations,
  instanceOperations,
  corpusOperations,
  retrievalOperations,
  annotationOperations,
  pipelineOperations,
  releaseOperations,
  evaluationOperations,
  failureOperations,
  scoringOperations,
  teamOperations,
  constructionOperations,
  askFirstOperations,
);

export type Operations = typeof operations;
export type OperationName = keyof Operations;
/** What a caller sends (defaults may be left out). */
export type Input<K extends OperationName> = z.input<Operations[K]['input']>;
/** What a handler receives (validated, defaults filled in). */
export type ParsedInput<K extends OperationName> = z.output<Operations[K]['input']>;
export type Output<K extends OperationName> = Operations[K] extends Operation<z.ZodType, infer O> ? O : never;

/** `context` says who calls (team mode); transports that know no caller leave it out. */
export type Handlers = { [K in OperationName]: (input: ParsedInput<K>, context?: CallContext) => Output<K> | Promise<Output<K>> };

/** The operations that start a job. */
export type JobOperationName = { [K in OperationName]: Output<K> extends JobTicket ? K : never }[OperationName];
/** What the job an operation starts ends with. */
export type JobResultOf<K extends JobOperationName> = Output<K> extends JobTicket<string, infer Result> ? Result : never;

/** Whether the operation starts a job (it answers `{jobId}`, and the job carries the result). */
export function startsAJob(name: OperationName): name is JobOperationName {
  return operations[name].job !== undefined;
}

/**
 * The result of a finished job that `name` started, typed as `name` declares it. The job's kind
 * is checked against the operation's, so a job of another kind is refused rather than misread.
 */
export function jobResult<K extends JobOperationName>(name: K, job: Job): JobResultOf<K> {
  if (job.kind !== operations[name].job) throw new AppError('internal', `Job ${job.id} is a ${job.kind} job, not one that ${name} starts`);
  if (job.state !== 'done') throw new AppError('internal', `Job ${job.id} has not finished (${job.state})`);
  return job.result as JobResultOf<K>;
}

export function isOperation(name: string): name is OperationName {
  return Object.hasOwn(operations, name);
}

/** One field an operation's schema refused. */
export interface InputIssue {
  path: string;
  message: string;
}

/** Whether an error is the schema's refusal of an operation's input. */
export function isInputRefusal(error: ApiError): boolean {
  const details = error.details as { issues?: unknown } | undefined;
  return error.code === 'invalid_input' && Array.isArray(details?.issues);
}

function describeZodError(error: z.ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.length ? issue.path.join('.') : 'input'}: ${issue.message}`)
    .join('; ');
}

/**
 * Validates the input, runs the handler and turns every outcome into data. Both transports call
 * this, so an error looks the same over IPC and over HTTP.
 */
export async function dispatch(handlers: Handlers, name: string, input: unknown, context?: CallContext): Promise<Result<unknown>> {
  if (!isOperation(name)) return { ok: false, error: { code: 'unknown_operation', message: `No operation named ${name}` } };
  const parsed = operations[name].input.safeParse(input ?? {});
  if (!parsed.success) {
    // `details.issues` marks an input refused by the operation's schema (a usage error), as
    // opposed to a handler's refusal of what the input points at (a file's content, say).
    const issues: InputIssue[] = parsed.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message }));
    return { ok: false, error: { code: 'invalid_input', message: `${name}: ${describeZodError(parsed.error)}`, details: { issues } } };
  }
  try {
    const handler = handlers[name] as (input: unknown, context?: CallContext) => unknown;
    return { ok: true, value: await handler(parsed.data, context) };
  } catch (error) {
    if (error instanceof AppError) return { ok: false, error: error.toApiError() };
    return { ok: false, error: { code: 'internal', message: (error as Error).message ?? String(error) } };
  }
}

// ---- events ------------------------------------------------------------------------------------

export interface Events {
  'job:progress': Job;
  'job:done': Job;
  'data:changed': { reason: string };
}
export type EventName = keyof Events;
export interface EventMessage<K extends EventName = EventName> {
  name: K;
  payload: Events[K];
}

/** What the preload exposes as `window.awb` in the desktop app. */
export interface WindowApi {
  invoke(name: string, input: unknown): Promise<Result<unknown>>;
  subscribe(listener: (message: EventMessage) => void): () => void;
  /** Opens a native file dialog; null when cancelled. */
  pickFile(options: { save: boolean; title: string }): Promise<string | null>;
  /** Opens a release's folder in the system's file manager; false when it is not one. */
  showFolder(folder: string): Promise<boolean>;
  /** Desktop only: API keys, kept encrypted by the OS keychain (Electron safeStorage). */
  apiKeys?: {
    names(): Promise<string[]>;
    set(name: string, value: string | null): Promise<string[]>;
  };
}
