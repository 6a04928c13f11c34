import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import { dispatch, type EventMessage, type Handlers, type Result } from '../../shared/api';
import { CONTENT_SECURITY_POLICY } from '../../shared/security';
import { recordAudit, whoOf } from '../services/team/audit';
import { filterEvent } from '../services/team/blind';
import { ownerUploadFields } from '../services/team/reach';
import type { EventBus } from '../services/events';
import { DOWNLOADS, isDownload, TeamGate, type DownloadOperation, type Identity, type TeamGateOptions } from './gate';
import { isLoopbackHost, NetworkPolicy } from './network';
import { decodeSegment, HttpError, readJsonObject, requireJson, send, sendError, sendResult, toApiError } from './request';
import { contentType, lookupStatic } from './static-files';
import { DEFAULT_MAX_UPLOAD_BYTES, receiveUpload, resolveUploads, sweepUploads } from './uploads';

/**
 * `awb serve`: the same API over HTTP (POST /api/<operation>, server-sent events at
 * /api/events) plus the built renderer, so a browser gets the desktop app's UI.
 *
 * It listens on 127.0.0.1 by default. Requests must name an allowed Host (against DNS
 * rebinding) and, when a browser sends an Origin, it must be this server's own (against other
 * sites posting to a local port); API calls must be JSON, which a cross-site form cannot send
 * without a preflight that this server never approves (network.ts).
 *
 * No request can stop it: every failure in routing, parsing, the gate or a handler becomes a 4xx
 * or 5xx answer; bodies are bounded in size and JSON in depth before anything walks them
 * (request.ts); and `awb serve` keeps a process-level safety net (serve.ts).
 *
 * Team mode (see gate.ts): with accounts when it starts, or with `--team`, every API call must
 * come from a signed-in person (a session cookie from POST /api/session/login, or
 * `Authorization: Bearer <token>`), whose role decides what they may call; over the network no
 * operation may name a server path or reach out from the server. Any address other than loopback
 * requires team mode. docs/team.md describes the whole model.
 */

export interface HttpOptions {
  handlers: Handlers;
  events: EventBus;
  staticDir: string;
  /** Awaited before any file of staticDir is served, e.g. to build the UI on first use. */
  prepareStatic?: () => Promise<void>;
  uploadDir: string;
  host: string;
  port: number;
  /** Accounts, sessions and the audit trail; without it the server runs as the owner's (loopback only). */
  team?: TeamGateOptions;
  /** Behind a reverse proxy: the origin people use (default: AWB_PUBLIC_ORIGIN). */
  publicOrigin?: string;
  /** More names people reach the server by (`--allowed-host`). */
  allowedHosts?: readonly string[];
  /** Peers whose X-Forwarded-* headers are believed (`--trusted-proxy`; default AWB_TRUSTED_PROXY). */
  trustedProxies?: readonly string[];
  /** Largest upload (default 512 MB). */
  maxUploadBytes?: number;
  /** Where failures the server answered with 500 are reported (default: stderr). */
  log?: (line: string) => void;
}

/** The parts of a request's handling that need the server's setup. */
interface Context {
  options: HttpOptions;
  network: NetworkPolicy;
  gate: TeamGate | undefined;
  identify: (req: http.IncomingMessage) => Promise<Identity>;
}

async function handleSession(ctx: Context, req: http.IncomingMessage, res: http.ServerResponse, gate: TeamGate, action: string): Promise<void> {
  requireJson(req);
  if (action === 'logout') {
    sendResult(res, { ok: true, value: { ok: true } }, { 'set-cookie': gate.logout(req) });
    return;
  }
  const outcome = await gate.login(req, await readJsonObject(req));
  sendResult(res, outcome.result, { ...(outcome.cookie ? { 'set-cookie': outcome.cookie } : {}), ...(outcome.retryAfter ? { 'retry-after': String(outcome.retryAfter) } : {}) }, outcome.status);
}

async function serveStatic(ctx: Context, req: http.IncomingMessage, res: http.ServerResponse, pathname: string): Promise<void> {
  // The UI is built on first use where its sources and Vite are at hand.
  await ctx.options.prepareStatic?.();
  const found = lookupStatic(ctx.options.staticDir, pathname);
  if (found.kind === 'bad-request') return send(res, 400, 'bad path', 'text/plain');
  if (found.kind === 'forbidden') return send(res, 403, 'forbidden', 'text/plain');
  if (found.kind === 'not-found') return send(res, 404, 'not found', 'text/plain');
  if (!fs.existsSync(found.file)) {
    send(res, 503, 'The UI is not built yet: run `npm run build:renderer` (npm start does it for you).', 'text/plain');
    return;
  }
  const isIndex = path.basename(found.file) === 'index.html';
  res.writeHead(200, {
    'content-type': contentType(found.file),
    'cache-control': isIndex ? 'no-store' : 'public, max-age=31536000, immutable',
    'content-security-policy': CONTENT_SECURITY_POLICY,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
  });
  if (req.method === 'HEAD') return void res.end();
  await pipeline(fs.createReadStream(found.file), res);
}

async function serveEvents(ctx: Context, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const identity = await ctx.identify(req);
  if (identity.kind === 'anonymous') ctx.gate!.refuseAnonymous(req, identity, 'events', {});
  const caller = identity.kind === 'caller' ? identity.caller : null;
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', connection: 'keep-alive' });
  res.write(': connected\n\n');
  const off = ctx.options.events.subscribe((message: EventMessage) => {
    const shown = filterEvent(caller, message);
    res.write(`event: ${shown.name}\ndata: ${JSON.stringify(shown.payload)}\n\n`);
  });
  const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), 15_000);
  req.on('close', () => {
    clearInterval(keepAlive);
    off();
  });
}

/** Files come in for imports, which are the maintainers'; every upload is audited. */
async function serveUpload(ctx: Context, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const identity = await ctx.identify(req);
  if (identity.kind === 'anonymous') ctx.gate!.refuseAnonymous(req, identity, 'file:upload', {});
  const context = identity.kind === 'caller' ? { account: identity.caller, network: true } : undefined;
  const db = ctx.options.team?.db;
  const name = new URL(req.url ?? '/', 'http://localhost').searchParams.get('name') ?? '';
  try {
    if (identity.kind === 'caller' && identity.caller.role !== 'maintainer') throw new HttpError(403, 'forbidden', 'Only maintainers upload files.');
    const reply = await receiveUpload(req, ctx.options.uploadDir, ctx.options.maxUploadBytes ?? DEFAULT_MAX_UPLOAD_BYTES);
    if (db) recordAudit(db, whoOf(context), 'file:upload', { name: reply.name, bytes: reply.bytes }, true);
    sendResult(res, { ok: true, value: reply });
  } catch (error) {
    if (db) recordAudit(db, whoOf(context), 'file:upload', { name, address: ctx.network.clientAddress(req), refused: toApiError(error).message }, false);
    throw error;
  }
}

function downloadFileName(name: DownloadOperation, input: Record<string, unknown>): string {
  const extension = name === 'judgment:export' ? (input.format === 'jsonl' ? 'jsonl' : 'csv') : name === 'pack:export' ? 'awbpack' : name === 'failure-tag:export' ? 'csv' : 'jsonl';
  return `${name.split(':')[0]}.${extension}`;
}

/**
 * `POST /api/download/<operation>` with the operation's input as JSON, less its file: the server
 * writes the export into a folder of its own, sends the file as an attachment and removes it.
 * This is how files go out to a caller over the network, who may never name a server path.
 */
async function serveDownload(ctx: Context, req: http.IncomingMessage, res: http.ServerResponse, name: DownloadOperation): Promise<void> {
  requireJson(req);
  const identity = await ctx.identify(req);
  if (identity.kind === 'anonymous') ctx.gate!.refuseAnonymous(req, identity, name, {});
  const input = await readJsonObject(req);
  const folder = path.join(ctx.options.uploadDir, '..', 'downloads', randomUUID());
  await fs.promises.mkdir(folder, { recursive: true });
  const file = path.join(folder, downloadFileName(name, input));
  try {
    const result = ctx.gate
      ? ctx.gate.shown(identity, name, await ctx.gate.callForDownload(ctx.options.handlers, req, name, input, identity, file))
      : await dispatch(ctx.options.handlers, name, { ...input, [DOWNLOADS[name]]: file });
    if (!result.ok) return sendResult(res, result);
    const stat = await fs.promises.stat(file);
    res.writeHead(200, {
      'content-type': 'application/octet-stream',
      'content-length': String(stat.size),
      'content-disposition': `attachment; filename="${path.basename(file)}"`,
      'x-content-type-options': 'nosniff',
      'cache-control': 'no-store',
    });
    await pipeline(fs.createReadStream(file), res);
  } finally {
    await fs.promises.rm(folder, { recursive: true, force: true });
  }
}

async function serveOperation(ctx: Context, req: http.IncomingMessage, res: http.ServerResponse, pathname: string): Promise<void> {
  requireJson(req);
  const name = decodeSegment(pathname.slice('/api/'.length));
  const identity = await ctx.identify(req);
  // Refused before the body is read: a caller not signed in costs no parsing.
  if (identity.kind === 'anonymous') ctx.gate!.refuseAnonymous(req, identity, name, {});
  const input = await readJsonObject(req);
  const result: Result<unknown> = ctx.gate
    ? await ctx.gate.call(ctx.options.handlers, req, name, input, identity)
    : await dispatch(ctx.options.handlers, name, resolveUploads(input, ownerUploadFields(name), ctx.options.uploadDir));
  sendResult(res, result);
}

async function serveApi(ctx: Context, req: http.IncomingMessage, res: http.ServerResponse, pathname: string): Promise<void> {
  if (req.method !== 'POST') throw new HttpError(405, 'invalid_input', 'Use POST', { allow: 'POST' });
  if (!ctx.network.originAllowed(req)) throw new HttpError(403, 'invalid_input', 'Cross-origin requests are not allowed');
  if (ctx.gate && (pathname === '/api/session/login' || pathname === '/api/session/logout')) return handleSession(ctx, req, res, ctx.gate, pathname.endsWith('logout') ? 'logout' : 'login');
  if (pathname === '/api/upload') return serveUpload(ctx, req, res);
  if (pathname.startsWith('/api/download/')) {
    const name = decodeSegment(pathname.slice('/api/download/'.length));
    if (!isDownload(name)) throw new HttpError(404, 'not_found', `Nothing to download from ${name.slice(0, 100)}; downloads: ${Object.keys(DOWNLOADS).join(', ')}`);
    return serveDownload(ctx, req, res, name);
  }
  return serveOperation(ctx, req, res, pathname);
}

async function route(ctx: Context, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  if (!ctx.network.hostAllowed(req)) throw new HttpError(403, 'invalid_input', `Host not allowed: this server answers to ${ctx.network.describeHosts()} (awb serve --allowed-host NAME adds one).`);
  let pathname: string;
  try {
    pathname = new URL(req.url ?? '/', 'http://localhost').pathname;
  } catch {
    throw new HttpError(400, 'invalid_input', 'The request path is not a URL path.');
  }
  if (pathname === '/api/events' && req.method === 'GET') return serveEvents(ctx, req, res);
  if (pathname.startsWith('/api/')) return serveApi(ctx, req, res, pathname);
  if (req.method !== 'GET' && req.method !== 'HEAD') throw new HttpError(405, 'invalid_input', 'Pages are read with GET.', { allow: 'GET, HEAD' });
  return serveStatic(ctx, req, res, pathname);
}

function refuseToStart(options: HttpOptions, gate: TeamGate | undefined): void {
  if (!isLoopbackHost(options.host) && !gate?.active()) {
    throw new Error(
      `Refusing to listen on ${options.host}: any address other than loopback needs team mode, so that everyone signs in. ` +
        'Create a maintainer first (awb team account add NAME --role maintainer), then serve again; or keep the default 127.0.0.1.',
    );
  }
  if (options.team?.forced && !gate?.hasAccounts()) {
    throw new Error('--team needs at least one account: create a maintainer first (awb team account add NAME --role maintainer).');
  }
}

export function createHttpServer(options: HttpOptions): http.Server {
  const network = new NetworkPolicy({ host: options.host, publicOrigin: options.publicOrigin, allowedHosts: options.allowedHosts, trustedProxies: options.trustedProxies });
  const gate = options.team ? new TeamGate(options.team, network, options.uploadDir) : undefined;
  refuseToStart(options, gate);
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const ctx: Context = { options, network, gate, identify: (req) => (gate ? gate.identify(req) : Promise.resolve({ kind: 'owner' })) };
  const server = http.createServer((req, res) => {
    route(ctx, req, res).catch((error: unknown) => {
      const api = toApiError(error);
      if (api.code === 'internal' && !res.headersSent) log(`awb serve: ${req.method} ${String(req.url).slice(0, 200)} failed: ${(error as Error)?.stack ?? api.message}`);
      return sendError(req, res, error);
    }).catch((error: unknown) => {
      // Even answering failed (the connection is gone): nothing is left to tell anyone.
      log(`awb serve: could not answer ${req.method} ${String(req.url).slice(0, 200)}: ${(error as Error)?.message}`);
      res.destroy();
    });
  });
  // Headers must arrive within 30 s; a whole request (an upload on a slow link) within 15 minutes.
  server.headersTimeout = 30_000;
  server.requestTimeout = 15 * 60_000;
  // Unused uploads are removed a day after they came in: now, and every hour.
  sweepUploads(options.uploadDir);
  const sweeper = setInterval(() => sweepUploads(options.uploadDir), 3600_000);
  sweeper.unref();
  server.on('close', () => clearInterval(sweeper));
  return server;
}

export function listen(server: http.Server, host: string, port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address();
      const actualPort = typeof address === 'object' && address ? address.port : port;
      const shownHost = host.includes(':') ? `[${host}]` : host;
      resolve(`http://${shownHost}:${actualPort}/`);
    });
  });
}

