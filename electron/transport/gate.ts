import type http from 'node:http';
import type { WritableDB } from '../../db/sql';
import { AppError, dispatch, isOperation, startsAJob, type CallContext, type Handlers, type Job, type JobTicket, type OperationName, type Result } from '../../shared/api';
import { audit, checkInput, checkPaths, filterOutput, isRead, roleMayCall } from '../services/team/access';
import { Authenticator, failureText, LoginLimiter, SESSION_COOKIE, type Caller } from '../services/team/auth';

/**
 * What `awb serve` asks of each request in team mode: who is calling (a session cookie or a
 * bearer token), whether their role may call the operation, whether its input names a server
 * path, and the checks that depend on the input; then it runs the call and writes the audit
 * trail. Without team mode on a loopback address everything runs as the owner, as before (and
 * writes are still audited, as the owner's).
 */

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost', '::ffff:127.0.0.1']);

export function isLoopbackHost(host: string): boolean {
  return LOOPBACK.has(host.replace(/^\[|\]$/g, ''));
}

export interface TeamGateOptions {
  db: WritableDB;
  /** `--team`: sign-in even on loopback. */
  forced?: boolean;
  /** Behind a reverse proxy: the origin people use (default: AWB_PUBLIC_ORIGIN). */
  publicOrigin?: string;
  now?: () => Date;
}

/** Operations whose output file can be downloaded over HTTP, and the field that names that file. */
export const DOWNLOADS = {
  'dataset:export': 'path',
  'judgment:export': 'path',
  'pack:export': 'path',
  'failure-tag:export': 'path',
} as const satisfies Partial<Record<OperationName, string>>;
export type DownloadOperation = keyof typeof DOWNLOADS;

export function isDownload(name: string): name is DownloadOperation {
  return Object.hasOwn(DOWNLOADS, name);
}

export type Identity = { kind: 'owner' } | { kind: 'caller'; caller: Caller } | { kind: 'anonymous'; reason: string };

function cookieValue(req: http.IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return rest.join('=');
  }
  return undefined;
}

/**
 * The address a request came from. Only a proxy on this machine is believed, and only for the
 * entry it added itself (the last one: earlier entries are whatever the client sent).
 */
export function clientAddress(req: http.IncomingMessage): string {
  const peer = req.socket.remoteAddress ?? 'unknown';
  if (LOOPBACK.has(peer)) {
    const forwarded = req.headers['x-forwarded-for'];
    const last = (Array.isArray(forwarded) ? forwarded.at(-1) : forwarded)?.split(',').at(-1)?.trim();
    if (last) return last;
  }
  return peer;
}

/** Whether the browser reached us over TLS through a reverse proxy on this machine. */
export function behindTls(req: http.IncomingMessage): boolean {
  return LOOPBACK.has(req.socket.remoteAddress ?? '') && req.headers['x-forwarded-proto'] === 'https';
}

export class TeamGate {
  readonly auth: Authenticator;
  readonly limiter = new LoginLimiter();

  constructor(private readonly options: TeamGateOptions) {
    this.auth = new Authenticator(options.db, options.now);
  }

  /** Team mode is on once an account exists (or with `--team`). */
  active(): boolean {
    return this.options.forced === true || this.auth.teamMode();
  }

  hasAccounts(): boolean {
    return this.auth.teamMode();
  }

  async identify(req: http.IncomingMessage): Promise<Identity> {
    if (!this.active()) return { kind: 'owner' };
    const header = req.headers.authorization;
    if (header?.startsWith('Bearer ')) {
      const checked = await this.auth.checkToken(header.slice('Bearer '.length));
      if (checked.ok) return { kind: 'caller', caller: checked.caller };
      return { kind: 'anonymous', reason: failureText(checked.failure) };
    }
    const session = cookieValue(req, SESSION_COOKIE);
    if (session) {
      const caller = this.auth.sessionCaller(session);
      if (caller) return { kind: 'caller', caller };
      return { kind: 'anonymous', reason: 'Your session has ended: sign in again.' };
    }
    return { kind: 'anonymous', reason: 'Sign in first: this server is in team mode.' };
  }

  /** Signs in with a name and password, or a token. Returns the session's cookie header, or an error. */
  async login(req: http.IncomingMessage, body: unknown): Promise<{ status: number; result: Result<unknown>; cookie?: string; retryAfter?: number }> {
    const input = (typeof body === 'object' && body !== null ? body : {}) as { name?: unknown; password?: unknown; token?: unknown };
    const address = clientAddress(req);
    const tokenId = typeof input.token === 'string' ? /^awb_(\d+)_/.exec(input.token)?.[1] : undefined;
    const who = typeof input.name === 'string' ? input.name : tokenId ? `token:${tokenId}` : '';
    const wait = this.limiter.retryAfter(who, address);
    if (wait > 0) {
      return { status: 429, retryAfter: wait, result: { ok: false, error: { code: 'forbidden', message: `Too many failed sign-ins: try again in ${Math.ceil(wait / 60)} minute(s).` } } };
    }
    let outcome: Awaited<ReturnType<Authenticator['checkPassword']>>;
    let usedToken: number | null = null;
    if (typeof input.token === 'string') {
      const checked = await this.auth.checkToken(input.token);
      if (checked.ok) usedToken = checked.tokenId;
      outcome = checked;
    } else if (typeof input.name === 'string' && typeof input.password === 'string') {
      outcome = await this.auth.checkPassword(input.name, input.password);
    } else {
      return { status: 400, result: { ok: false, error: { code: 'invalid_input', message: 'Send {"name", "password"} or {"token"}.' } } };
    }
    if (!outcome.ok) {
      this.limiter.fail(who, address);
      return { status: 401, result: { ok: false, error: { code: 'unauthorized', message: failureText(outcome.failure) } } };
    }
    this.limiter.succeed(who);
    const session = this.auth.openSession(outcome.caller, usedToken);
    const secure = behindTls(req) ? '; Secure' : '';
    const cookie = `${SESSION_COOKIE}=${session.id}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${session.maxAgeSeconds}${secure}`;
    audit(this.options.db, { account: outcome.caller, network: true }, 'session:sign-in', { address }, true);
    return { status: 200, result: { ok: true, value: { account: outcome.caller } }, cookie };
  }

  logout(req: http.IncomingMessage): string {
    const session = cookieValue(req, SESSION_COOKIE);
    if (session) this.auth.closeSession(session);
    return `${SESSION_COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0`;
  }

  /**
   * Runs an export for a download: the same role and input checks as `call`, then the operation
   * writes to `file`, a path the server chose (never one from the network). Returns the
   * operation's result; a job is waited for.
   */
  async callForDownload(handlers: Handlers, name: DownloadOperation, input: Record<string, unknown>, identity: Identity, uploadDir: string, file: string): Promise<Result<unknown>> {
    const context: CallContext = identity.kind === 'caller' ? { account: identity.caller, network: true } : { account: null, network: false };
    try {
      if (identity.kind === 'anonymous') throw new AppError('unauthorized', identity.reason);
      if (identity.kind === 'caller') {
        if (!roleMayCall(identity.caller.role, name)) throw new AppError('forbidden', `${name} is not open to the ${identity.caller.role} role (${identity.caller.name}).`);
        checkPaths(name, input, uploadDir);
        checkInput(this.options.db, identity.caller, name, input);
      }
    } catch (error) {
      const e = error as AppError;
      if (identity.kind === 'caller') audit(this.options.db, context, name, input, false);
      return { ok: false, error: { code: e.code, message: e.message } };
    }
    const result = await dispatch(handlers, name, { ...input, [DOWNLOADS[name]]: file }, context);
    if (!result.ok || !startsAJob(name)) return result;
    const { jobId } = result.value as JobTicket;
    for (;;) {
      const job = await dispatch(handlers, 'job:get', { id: jobId }, context);
      if (!job.ok) return job;
      const state = job.value as Job;
      if (state.state === 'done') return { ok: true, value: state.result };
      if (state.state !== 'running') return { ok: false, error: { code: 'internal', message: state.error?.message ?? `${name} ${state.state}` } };
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Runs one operation for a caller: role, paths, input checks, the call, the output's filter, the audit. */
  async call(handlers: Handlers, name: string, input: unknown, identity: Identity, uploadDir: string): Promise<Result<unknown>> {
    const context: CallContext = identity.kind === 'caller' ? { account: identity.caller, network: true } : { account: null, network: false };
    try {
      if (identity.kind === 'anonymous') throw new AppError('unauthorized', identity.reason);
      if (identity.kind === 'caller') {
        const caller = identity.caller;
        if (!roleMayCall(caller.role, name)) {
          throw new AppError('forbidden', `${name} is not open to the ${caller.role} role (${caller.name}).`);
        }
        checkPaths(name, input, uploadDir);
        checkInput(this.options.db, caller, name, input);
      }
    } catch (error) {
      const e = error as AppError;
      if (identity.kind === 'caller' && isOperation(name) && !isRead(name)) audit(this.options.db, context, name, input, false);
      return { ok: false, error: { code: e.code, message: e.message } };
    }
    // The handlers audit every write they run (see auditWrites); refusals above are audited here.
    const result = await dispatch(handlers, name, input, context);
    if (result.ok && identity.kind === 'caller') {
      try {
        return { ok: true, value: filterOutput(this.options.db, identity.caller, name, result.value) };
      } catch (error) {
        const e = error as AppError;
        return { ok: false, error: { code: e.code, message: e.message } };
      }
    }
    return result;
  }
}
