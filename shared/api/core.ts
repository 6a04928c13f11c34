import { z } from 'zod';
import type { ProvenanceSource } from '../domain';

/** What every domain module of the API shares: results, errors, paging and the `op` declaration. */

export type ErrorCode = 'invalid_input' | 'not_found' | 'conflict' | 'unknown_operation' | 'cancelled' | 'internal' | 'unauthorized' | 'forbidden';

/**
 * What the caller can do about an error, as data. A service's message says what went wrong in
 * terms of the data, never of one client; each client words the hint itself (the CLI names its
 * flag or command, the UI its field or button).
 */
export type ErrorHint =
  /** Repeat the call with this input field set to a reason, to go ahead over the check (recorded). */
  | { kind: 'force'; field: string }
  /** Repeat the call with this input field given, or given another value. */
  | { kind: 'field'; field: string }
  /** Call this operation first (with this input), then repeat the call. */
  | { kind: 'operation'; operation: string; input?: Record<string, string | number | boolean> };

export interface ApiError {
  code: ErrorCode;
  message: string;
  details?: unknown;
  hint?: ErrorHint;
}

export type Result<T> = { ok: true; value: T } | { ok: false; error: ApiError };

/** An error a handler throws on purpose; it crosses the boundary with its code, message and hint. */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
    readonly hint?: ErrorHint,
  ) {
    super(message);
    this.name = 'AppError';
  }

  /** The error as data, as every transport carries it. */
  toApiError(): ApiError {
    return {
      code: this.code,
      message: this.message,
      ...(this.details !== undefined ? { details: this.details } : {}),
      ...(this.hint ? { hint: this.hint } : {}),
    };
  }
}

/** A stop rather than a failure: the user's cancel, or a run's own ceiling (`cancelled`, with its reason). */
export function isCancelled(error: unknown): error is AppError {
  return error instanceof AppError && error.code === 'cancelled';
}

// ---- shared shapes -------------------------------------------------------------------------------

export interface Page<Row> {
  rows: Row[];
  offset: number;
}

export interface Provenance {
  source: ProvenanceSource;
  detail: string;
  model: string | null;
  promptVersion: string | null;
  call: string | null;
}

export interface PassageView {
  id: number;
  corpus: string;
  sourceId: string | null;
  title: string;
  text: string;
}


export const id = z.number().int().positive();
export const sortDirection = z.enum(['asc', 'desc']);
export const paging = {
  offset: z.number().int().min(0).default(0),
  limit: z.number().int().min(1).max(500).default(100),
};
/** The input of an operation that takes nothing. */
export const none = z.object({}).strict().default({});
export const byId = z.object({ id }).strict();

export interface ImportIssue {
  /** File and place: `data.jsonl: line 12` or `data.json: line 40, element [3]`. */
  location: string;
  /** The field, as a path such as `paragraphs[2].title`; empty for whole-record problems. */
  field: string;
  message: string;
}

export interface Operation<Input extends z.ZodType, Output> {
  input: Input;
  /** Phantom: carries the output type. */
  output?: Output;
  /** For an operation that starts a job: the kind of job. */
  job?: string;
}

/** Declares an operation: `op<Output>()(inputSchema)`. */
export function op<Output>() {
  return <Input extends z.ZodType>(input: Input): Operation<Input, Output> => ({ input });
}

/** What a field may name on the machine that runs the services, which network callers may not choose. */
export type FieldMark = 'serverPath' | 'serverReach' | 'serverEndpoints';

/**
 * What an operation that starts a job answers at once: the job's id. The job's kind and the
 * result it ends with ride along as types, so `Job.result` is typed per kind (see api/jobs.ts)
 * and no client casts it.
 */
export interface JobTicket<Kind extends string = string, Result = unknown> {
  jobId: string;
  /** Phantom: the kind of the job and what it ends with. */
  readonly job?: { kind: Kind; result: Result };
}

/**
 * Declares an operation that starts a job: `startsJob<Result>()(kind, inputSchema)`. It answers
 * `{jobId}` at once; the job, of `kind`, ends with `Result`.
 */
export function startsJob<Result>() {
  return <const Kind extends string, Input extends z.ZodType>(kind: Kind, input: Input): Operation<Input, JobTicket<Kind, Result>> => ({ input, job: kind });
}

/**
 * A file or folder on the machine that runs the services. Every such field is declared with this,
 * so that a caller over the network (team mode) can be refused it whatever the field is called.
 */
export function serverPath() {
  return z.string().min(1).meta({ serverPath: true });
}

/**
 * A field whose value reaches out from the server: an address it will call (and send an API key
 * or a password to) or an environment variable it will read. Network callers may not give one:
 * the server's own configuration decides (see docs/team.md).
 */
export function serverReach<T extends z.ZodType>(schema: T): T {
  return schema.meta({ serverReach: true });
}

/**
 * Endpoints (and prices) as in a pipeline config: `{endpoints: {name: {baseURL, apiKeyEnv, ...}}, ...}`.
 * Over the network, endpoints are chosen only by name among the server's own.
 */
export function endpointsConfig() {
  return z.unknown().meta({ serverEndpoints: true });
}

/** The fields of a schema carrying a mark, as paths (`path`, `session.pack`, `files[].path`). */
export function markedFields(schema: z.ZodType, mark: FieldMark): string[] {
  const out: string[] = [];
  const walk = (node: z.ZodType, at: string, seen: Set<z.ZodType>) => {
    if (seen.has(node)) return;
    seen.add(node);
    if ((z.globalRegistry.get(node) as Partial<Record<FieldMark, boolean>> | undefined)?.[mark]) out.push(at || 'input');
    const def = node._zod.def as unknown as Record<string, unknown> & { type: string };
    const child = (key: string) => def[key] as z.ZodType;
    switch (def.type) {
      case 'object':
        for (const [key, value] of Object.entries(def.shape as Record<string, z.ZodType>)) walk(value, at ? `${at}.${key}` : key, seen);
        break;
      case 'optional':
      case 'nullable':
      case 'default':
      case 'prefault':
      case 'readonly':
      case 'catch':
      case 'nonoptional':
        walk(child('innerType'), at, seen);
        break;
      case 'array':
        walk(child('element'), `${at}[]`, seen);
        break;
      case 'union':
        for (const option of def.options as z.ZodType[]) walk(option, at, seen);
        break;
      case 'pipe':
        walk(child('in'), at, seen);
        break;
      case 'record':
        walk(child('valueType'), `${at}[*]`, seen);
        break;
    }
  };
  walk(schema, '', new Set());
  return [...new Set(out)];
}

/** The fields of a schema declared with `serverPath()`. */
export function serverPathFields(schema: z.ZodType): string[] {
  return markedFields(schema, 'serverPath');
}

/** A domain's operations, keyed `noun:verb`. */
export type OperationMap = Record<string, Operation<z.ZodType, unknown>>;
