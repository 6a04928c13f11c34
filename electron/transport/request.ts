import type http from 'node:http';
import type { ApiError, ErrorCode, Result } from '../../shared/api';
import { AppError } from '../../shared/api';

/**
 * The bytes of a request and the answer to it, for `awb serve`: bodies are bounded in size (and
 * JSON in depth) before anything walks them, every failure is an `HttpError` with its status,
 * and every answer (success or not) goes out through `send`.
 */

/** API bodies: operation inputs, sign-ins, download requests (files come in through uploads). */
export const MAX_BODY_BYTES = 8 * 1024 * 1024;
/** Deeper JSON is refused before any recursive walk (the path checks, zod) can overflow the stack. */
export const MAX_JSON_DEPTH = 64;

const STATUS: Record<ErrorCode, number> = {
  invalid_input: 400,
  not_found: 404,
  unknown_operation: 404,
  conflict: 409,
  cancelled: 409,
  internal: 500,
  unauthorized: 401,
  forbidden: 403,
};

/** A refusal with its HTTP status (413, 415, 429, ...) where the error code alone does not say it. */
export class HttpError extends AppError {
  constructor(
    readonly status: number,
    code: ErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(code, message);
    this.name = 'HttpError';
  }
}

export function statusOf(error: ApiError): number {
  return STATUS[error.code] ?? 500;
}

/** Any thrown value as an API error: an AppError keeps its code, anything else is internal. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof AppError && Object.hasOwn(STATUS, error.code)) return { code: error.code, message: error.message, ...(error.details === undefined ? {} : { details: error.details }) };
  return { code: 'internal', message: error instanceof Error ? error.message : String(error) };
}

export function errorResult(code: ErrorCode, message: string): Result<unknown> {
  return { ok: false, error: { code, message } };
}

const COMMON_HEADERS = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' };

export function send(res: http.ServerResponse, status: number, body: string, type = 'application/json; charset=utf-8', headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(status, { 'content-type': type, ...COMMON_HEADERS, ...headers });
  res.end(body);
}

export function sendResult(res: http.ServerResponse, result: Result<unknown>, headers: Record<string, string> = {}, status = result.ok ? 200 : statusOf(result.error)): void {
  send(res, status, JSON.stringify(result), undefined, headers);
}

/**
 * Reads and drops what is left of a request's body (at most `maxBytes`, for at most `maxMs`), so
 * that an answer sent before the body was read reaches the client: closing a connection with
 * unread data resets it, and the client may never see the answer. False when it gave up.
 */
export function drain(req: http.IncomingMessage, maxBytes = 64 * 1024 * 1024, maxMs = 10_000): Promise<boolean> {
  if (req.complete || req.destroyed) return Promise.resolve(req.complete);
  if (Number(req.headers['content-length'] ?? 0) > maxBytes) return Promise.resolve(false);
  return new Promise((resolve) => {
    let bytes = 0;
    const done = (drained: boolean) => {
      clearTimeout(timer);
      req.off('data', onData).off('end', onEnd).off('close', onClose);
      resolve(drained);
    };
    const onData = (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > maxBytes) done(false);
    };
    const onEnd = () => done(true);
    const onClose = () => done(req.complete);
    const timer = setTimeout(() => done(false), maxMs);
    req.on('data', onData).on('end', onEnd).on('close', onClose);
    req.resume();
  });
}

/** Answers a thrown error (an HttpError with its status and headers, anything else by its code), once the body is drained. */
export async function sendError(req: http.IncomingMessage, res: http.ServerResponse, error: unknown): Promise<void> {
  const api = toApiError(error);
  const drained = await drain(req);
  const headers = { ...(error instanceof HttpError ? error.headers : {}), ...(drained ? {} : { connection: 'close' }) };
  sendResult(res, { ok: false, error: api }, headers, error instanceof HttpError ? error.status : statusOf(api));
}

/** The body, refused with 413 past `limit` bytes (by Content-Length at once, else as it arrives). */
export async function readBody(req: http.IncomingMessage, limit = MAX_BODY_BYTES): Promise<string> {
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (declared > limit) throw new HttpError(413, 'invalid_input', `The request body is ${declared} bytes, over the limit of ${limit}.`);
  const chunks: Buffer[] = [];
  let size = 0;
  // Not destroyed on a refusal: the rest is drained, so that the client reads the answer.
  for await (const chunk of req.iterator({ destroyOnReturn: false })) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new HttpError(413, 'invalid_input', `The request body is over the limit of ${limit} bytes.`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** How deep JSON text nests (brackets outside strings), stopping as soon as it passes `max`. */
export function jsonDepthOver(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 || c === 123) {
      if (++depth > max) return true;
    } else if (c === 93 || c === 125) depth--;
  }
  return false;
}

/** Parses a JSON body (empty means `{}`), refusing text that nests deeper than MAX_JSON_DEPTH. */
export function parseJsonBody(text: string): unknown {
  if (text.trim() === '') return {};
  if (jsonDepthOver(text, MAX_JSON_DEPTH)) throw new HttpError(400, 'invalid_input', `The request body nests deeper than ${MAX_JSON_DEPTH} levels.`);
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new HttpError(400, 'invalid_input', `The request body is not valid JSON: ${(error as Error).message}`);
  }
}

/** A JSON object body, as operation inputs and sign-ins are. */
export async function readJsonObject(req: http.IncomingMessage): Promise<Record<string, unknown>> {
  const value = parseJsonBody(await readBody(req));
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new HttpError(400, 'invalid_input', 'The request body must be a JSON object.');
  return value as Record<string, unknown>;
}

/** Refuses a body that is not JSON: a cross-site form cannot send JSON without a preflight, which this server never approves. */
export function requireJson(req: http.IncomingMessage): void {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json') throw new HttpError(415, 'invalid_input', 'Send JSON (content-type: application/json)');
}

/** A URL path segment decoded, or a 400 when its percent-encoding is broken. */
export function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new HttpError(400, 'invalid_input', 'The request path has broken percent-encoding.');
  }
}
