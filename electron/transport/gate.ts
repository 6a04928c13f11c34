import type http from 'node:http';
import { findAccountById, findAccountByName, findToken } from '../../db/queries/accounts';
import type { WritableDB } from '../../db/sql';
import { AppError, dispatch, isInputRefusal, isOperation, startsAJob, type CallContext, type Handlers, type Job, type JobTicket, type OperationName, type Result } from '../../shared/api';
import { roleMayCall, isRead } from '../../shared/api/access';
import { ANONYMOUS, recordAudit, whoOf, type AuditWho } from '../services/team/audit';
import { Authenticator, failureText, LoginLimiter, SESSION_COOKIE, type Admitted, type Caller } from '../services/team/auth';
import { checkInput, filterOutput } from '../services/team/blind';
import { checkPaths, checkReach, ownerUploadFields, serverEndpoints, uploadFields } from '../services/team/reach';
import type { NetworkPolicy } from './network';
import { HttpError, toApiError } from './request';
import { hideServerPaths, resolveUploads } from './uploads';

/**
 * What `awb serve` asks of each request in team mode: who is calling (a session cookie or a
 * bearer token), whether their role may call the operation, whether its input names a server path
 * or reaches out from the server, and the checks that depend on the input; then it runs the call,
 * filters what the caller sees, and records refusals in the audit trail (writes are recorded by
 * the handlers). Whether the server is in team mode is decided once, when it starts: accounts
 * added or disabled meanwhile change who may sign in, never the mode. Without team mode on a
 * loopback address everything runs as the owner.
 */

export interface TeamGateOptions {
  db: WritableDB;
  /** `--team`: sign-in even on loopback. */
  forced?: boolean;
  now?: () => Date;
  /** The owner's endpoints (`awb serve --endpoints FILE`, parsed): network callers may use them by name. */
  endpoints?: unknown;
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

export type Identity =
  | { kind: 'owner' }
  | { kind: 'caller'; caller: Caller }
  /** Not signed in; `retryAfter` when refused by the limit on wrong tokens (429). */
  | { kind: 'anonymous'; reason: string; retryAfter?: number };

function cookieValue(req: http.IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return rest.join('=');
  }
  return undefined;
}

function minutes(seconds: number): string {
  return `${Math.ceil(seconds / 60)} minute(s)`;
}

export interface LoginOutcome {
  status: number;
  result: Result<unknown>;
  cookie?: string;
  retryAfter?: number;
}

export class TeamGate {
  readonly auth: Authenticator;
  readonly limiter = new LoginLimiter();
  private readonly teamMode: boolean;

  constructor(
    private readonly options: TeamGateOptions,
    private readonly network: NetworkPolicy,
    private readonly uploadDir: string,
  ) {
    this.auth = new Authenticator(options.db, options.now);
    this.teamMode = options.forced === true || this.auth.teamMode();
  }

  /** Team mode: decided when the server started (accounts existed, or `--team`). */
  active(): boolean {
    return this.teamMode;
  }

  hasAccounts(): boolean {
    return this.auth.teamMode();
  }

  /** Records a refusal or a sign-in, with the address it came from. */
  record(req: http.IncomingMessage, who: AuditWho, operation: string, input: unknown, ok: boolean, reason?: string): void {
    const base = typeof input === 'object' && input !== null && !Array.isArray(input) ? (input as Record<string, unknown>) : { input };
    recordAudit(this.options.db, who, operation, { ...base, address: this.network.clientAddress(req), ...(reason ? { refused: reason } : {}) }, ok);
  }

  async identify(req: http.IncomingMessage): Promise<Identity> {
    if (!this.teamMode) return { kind: 'owner' };
    const header = req.headers.authorization;
    if (header?.startsWith('Bearer ')) return this.identifyToken(req, header.slice('Bearer '.length));
    const session = cookieValue(req, SESSION_COOKIE);
    if (session) {
      const caller = this.auth.sessionCaller(session);
      if (caller) return { kind: 'caller', caller };
      return { kind: 'anonymous', reason: 'Your session has ended: sign in again.' };
    }
    return { kind: 'anonymous', reason: 'Sign in first: this server is in team mode.' };
  }

  /** A bearer token: one verified lately costs nothing; any other is limited per address before its hash is checked. */
  private async identifyToken(req: http.IncomingMessage, token: string): Promise<Identity> {
    let admitted: Admitted | null = null;
    if (!this.auth.verifiedLately(token)) {
      const admission = this.limiter.admitToken(this.network.clientAddress(req));
      if ('wait' in admission) return { kind: 'anonymous', reason: `Too many wrong tokens from your address: try again in ${minutes(admission.wait)}.`, retryAfter: admission.wait };
      admitted = admission;
    }
    const checked = await this.auth.checkToken(token);
    if (!checked.ok) return { kind: 'anonymous', reason: failureText(checked.failure) };
    if (admitted) this.limiter.tokenSucceeded(admitted);
    return { kind: 'caller', caller: checked.caller };
  }

  /** Who a sign-in names, for the limiter and the audit trail. */
  private signInWho(input: { name?: unknown; token?: unknown }): { key: string; who: AuditWho } {
    const tokenId = typeof input.token === 'string' ? /^awb_(\d+)_/.exec(input.token)?.[1] : undefined;
    const account =
      typeof input.name === 'string'
        ? findAccountByName(this.options.db, input.name)
        : tokenId
          ? findAccountById(this.options.db, findToken(this.options.db, Number(tokenId))?.account_id ?? 0)
          : undefined;
    const key = typeof input.name === 'string' ? input.name : tokenId ? `token:${tokenId}` : '';
    return { key, who: account ? { account: account.name, role: account.role } : ANONYMOUS };
  }

  /** Signs in with a name and password, or a token. Every attempt, let in or not, is audited. */
  async login(req: http.IncomingMessage, body: Record<string, unknown>): Promise<LoginOutcome> {
    const input = body as { name?: unknown; password?: unknown; token?: unknown };
    const summary = { name: typeof input.name === 'string' ? input.name : undefined, token: typeof input.token === 'string' ? 'given' : undefined };
    if (!(typeof input.token === 'string' || (typeof input.name === 'string' && typeof input.password === 'string'))) {
      this.record(req, ANONYMOUS, 'session:sign-in', summary, false, 'neither a name and password nor a token');
      return { status: 400, result: { ok: false, error: { code: 'invalid_input', message: 'Send {"name", "password"} or {"token"}.' } } };
    }
    const { key, who } = this.signInWho(input);
    const admission = this.limiter.admit(key, this.network.clientAddress(req));
    if ('wait' in admission) {
      const message = `Too many failed sign-ins: try again in ${minutes(admission.wait)}.`;
      this.record(req, who, 'session:sign-in', summary, false, message);
      return { status: 429, retryAfter: admission.wait, result: { ok: false, error: { code: 'forbidden', message } } };
    }
    let usedToken: number | null = null;
    let outcome: Awaited<ReturnType<Authenticator['checkPassword']>>;
    if (typeof input.token === 'string') {
      const checked = await this.auth.checkToken(input.token);
      if (checked.ok) usedToken = checked.tokenId;
      outcome = checked;
    } else outcome = await this.auth.checkPassword(input.name as string, input.password as string);
    if (!outcome.ok) {
      this.record(req, who, 'session:sign-in', summary, false, failureText(outcome.failure));
      return { status: 401, result: { ok: false, error: { code: 'unauthorized', message: failureText(outcome.failure) } } };
    }
    this.limiter.succeed(key, admission);
    const session = this.auth.openSession(outcome.caller, usedToken);
    const secure = this.network.behindTls(req) ? '; Secure' : '';
    const cookie = `${SESSION_COOKIE}=${session.id}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${session.maxAgeSeconds}${secure}`;
    this.record(req, { account: outcome.caller.name, role: outcome.caller.role }, 'session:sign-in', summary, true);
    return { status: 200, result: { ok: true, value: { account: outcome.caller } }, cookie };
  }

  logout(req: http.IncomingMessage): string {
    const session = cookieValue(req, SESSION_COOKIE);
    if (session) this.auth.closeSession(session);
    return `${SESSION_COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0`;
  }

  /** Refuses an anonymous caller (401, or 429 past the token limit), recording it. */
  refuseAnonymous(req: http.IncomingMessage, identity: Extract<Identity, { kind: 'anonymous' }>, operation: string, input: unknown): never {
    this.record(req, ANONYMOUS, operation, input, false, identity.reason);
    if (identity.retryAfter) throw new HttpError(429, 'unauthorized', identity.reason, { 'retry-after': String(identity.retryAfter) });
    throw new AppError('unauthorized', identity.reason);
  }

  /**
   * Everything a network caller's input must pass before it runs: the role, uploads turned into
   * their files, no server path, nothing that reaches out from the server, the input checks.
   * Returns the input to run; a refusal is recorded and thrown.
   */
  admit(req: http.IncomingMessage, identity: Identity, name: string, input: unknown): { input: unknown; context: CallContext } {
    if (identity.kind === 'anonymous') this.refuseAnonymous(req, identity, name, input);
    if (identity.kind === 'owner') return { input: resolveUploads(input, ownerUploadFields(name), this.uploadDir), context: { account: null, network: false } };
    const resolved = resolveUploads(input, uploadFields(name), this.uploadDir);
    const caller = identity.caller;
    try {
      if (!isOperation(name)) throw new AppError('unknown_operation', `No operation named ${name}`);
      if (!roleMayCall(caller.role, name)) throw new AppError('forbidden', `${name} is not open to the ${caller.role} role (${caller.name}).`);
      checkPaths(name, resolved, this.uploadDir);
      const checked = checkReach(name, resolved, () => serverEndpoints(this.options.db, this.options.endpoints));
      checkInput(this.options.db, caller, name, checked);
      return { input: checked, context: { account: caller, network: true } };
    } catch (error) {
      this.record(req, whoOf({ account: caller, network: true }), name, input, false, toApiError(error).message);
      throw error;
    }
  }

  /** `admit`, with a refusal as the answer to send (a 429 stays thrown, for its status). */
  private tryAdmit(req: http.IncomingMessage, identity: Identity, name: string, input: unknown): { input: unknown; context: CallContext } | { refused: Result<unknown> } {
    try {
      return this.admit(req, identity, name, input);
    } catch (error) {
      if (error instanceof HttpError) throw error;
      return { refused: { ok: false, error: toApiError(error) } };
    }
  }

  /** Runs one operation for a caller: admit, call, what they may see of the answer. */
  async call(handlers: Handlers, req: http.IncomingMessage, name: string, input: unknown, identity: Identity): Promise<Result<unknown>> {
    const admitted = this.tryAdmit(req, identity, name, input);
    if ('refused' in admitted) return admitted.refused;
    // The handlers audit every write they run (see auditWrites); what the schema refuses never reaches them.
    const result = await dispatch(handlers, name, admitted.input, admitted.context);
    if (!result.ok && isInputRefusal(result.error) && isOperation(name) && !isRead(name)) this.record(req, whoOf(admitted.context), name, input, false, result.error.message);
    return this.shown(identity, name, result);
  }

  /** The answer as the caller may see it: filtered for their role, and no server path in it. */
  shown(identity: Identity, name: string, result: Result<unknown>): Result<unknown> {
    // The mode the server runs in, not whether accounts exist by now.
    if (name === 'team:status' && result.ok) result = { ok: true, value: { ...(result.value as object), teamMode: this.teamMode } };
    if (identity.kind !== 'caller') return result;
    try {
      const filtered: Result<unknown> = result.ok ? { ok: true, value: filterOutput(this.options.db, identity.caller, name, result.value) } : result;
      return hideServerPaths(filtered, this.uploadDir);
    } catch (error) {
      return { ok: false, error: toApiError(error) };
    }
  }

  /**
   * Runs an export for a download: the same checks as `call`, then the operation writes to `file`,
   * a path the server chose (never one from the network). Returns the operation's result; a job is
   * waited for.
   */
  async callForDownload(handlers: Handlers, req: http.IncomingMessage, name: DownloadOperation, input: Record<string, unknown>, identity: Identity, file: string): Promise<Result<unknown>> {
    const admitted = this.tryAdmit(req, identity, name, input);
    if ('refused' in admitted) return admitted.refused;
    const result = await dispatch(handlers, name, { ...(admitted.input as object), [DOWNLOADS[name]]: file }, admitted.context);
    if (!result.ok || !startsAJob(name)) return result;
    const { jobId } = result.value as JobTicket;
    for (;;) {
      const job = await dispatch(handlers, 'job:get', { id: jobId }, admitted.context);
      if (!job.ok) return job;
      const state = job.value as Job;
      if (state.state === 'done') return { ok: true, value: state.result };
      if (state.state !== 'running') return { ok: false, error: { code: 'internal', message: state.error?.message ?? `${name} ${state.state}` } };
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
