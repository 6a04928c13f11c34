import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import { dispatch, type ErrorCode, type EventMessage, type Handlers, type Result } from '../../shared/api';
import { CONTENT_SECURITY_POLICY } from '../../shared/security';
import type { EventBus } from '../services/events';
import { behindTls, DOWNLOADS, isDownload, isLoopbackHost, TeamGate, type DownloadOperation, type Identity, type TeamGateOptions } from './gate';
import { contentType, lookupStatic } from './static-files';

/**
 * `awb serve`: the same API over HTTP (POST /api/<operation>, server-sent events at
 * /api/events) plus the built renderer, so a browser gets the desktop app's UI.
 *
 * It listens on 127.0.0.1 by default. Requests must name an allowed Host (against DNS
 * rebinding) and, when a browser sends an Origin, it must be this server's own (against other
 * sites posting to a local port); API calls must be JSON, which a cross-site form cannot send
 * without a preflight that this server never approves.
 *
 * Team mode (see gate.ts): once accounts exist, or with `--team`, every
 * API call must come from a signed-in person (a session cookie from POST /api/session/login, or
 * `Authorization: Bearer <token>`), whose role decides what they may call; over the network no
 * operation may name a server path. Any address other than loopback requires team mode.
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
  /** Accounts, sessions and the audit trail; without it the server runs as before (loopback only). */
  team?: TeamGateOptions;
}

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

const MAX_BODY_BYTES = 8 * 1024 * 1024;

function send(res: http.ServerResponse, status: number, body: string, type = 'application/json; charset=utf-8'): void {
  res.writeHead(status, {
    'content-type': type,
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
  res.end(body);
}

function sendResult(res: http.ServerResponse, result: Result<unknown>): void {
  send(res, result.ok ? 200 : STATUS[result.error.code], JSON.stringify(result));
}

function errorResult(code: ErrorCode, message: string): Result<unknown> {
  return { ok: false, error: { code, message } };
}

async function readBody(req: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new Error(`request body over ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function hostAllowed(req: http.IncomingMessage, options: HttpOptions): boolean {
  const host = (req.headers.host ?? '').replace(/:\d+$/, '').replace(/^\[|\]$/g, '');
  const allowed = new Set(['127.0.0.1', 'localhost', '::1', options.host]);
  const publicHost = publicOrigin(options)?.hostname.replace(/^\[|\]$/g, '');
  if (publicHost) allowed.add(publicHost);
  return allowed.has(host) || options.host === '0.0.0.0';
}

/** The address people use behind a reverse proxy (`AWB_PUBLIC_ORIGIN`, e.g. https://awb.example.org). */
function publicOrigin(options: HttpOptions): URL | undefined {
  const text = options.team?.publicOrigin ?? process.env.AWB_PUBLIC_ORIGIN;
  if (!text) return undefined;
  try {
    return new URL(text);
  } catch {
    throw new Error(`AWB_PUBLIC_ORIGIN is not a URL: ${text}`);
  }
}

function originAllowed(req: http.IncomingMessage, options: HttpOptions): boolean {
  const origin = req.headers.origin;
  if (!origin) return true;
  if (origin === publicOrigin(options)?.origin) return true;
  // Behind a TLS reverse proxy on this machine the page's origin is https://.
  const scheme = behindTls(req) ? 'https' : 'http';
  return origin === `${scheme}://${req.headers.host ?? ''}`;
}

function sendWithHeaders(res: http.ServerResponse, status: number, result: Result<unknown>, headers: Record<string, string>): void {
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    ...headers,
  });
  res.end(JSON.stringify(result));
}

async function handleSession(req: http.IncomingMessage, res: http.ServerResponse, gate: TeamGate, action: string): Promise<void> {
  if (action === 'logout') {
    sendWithHeaders(res, 200, { ok: true, value: { ok: true } }, { 'set-cookie': gate.logout(req) });
    return;
  }
  let body: unknown;
  try {
    body = JSON.parse((await readBody(req)) || '{}');
  } catch {
    sendResult(res, errorResult('invalid_input', 'The request body is not valid JSON'));
    return;
  }
  const outcome = await gate.login(req, body);
  sendWithHeaders(res, outcome.status, outcome.result, {
    ...(outcome.cookie ? { 'set-cookie': outcome.cookie } : {}),
    ...(outcome.retryAfter ? { 'retry-after': String(outcome.retryAfter) } : {}),
  });
}

async function serveStatic(req: http.IncomingMessage, res: http.ServerResponse, options: HttpOptions): Promise<void> {
  // The UI is built on first use where its sources and Vite are at hand.
  await options.prepareStatic?.();
  const url = new URL(req.url ?? '/', 'http://localhost');
  const found = lookupStatic(options.staticDir, url.pathname);
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
  fs.createReadStream(found.file).pipe(res);
}

function serveEvents(req: http.IncomingMessage, res: http.ServerResponse, events: EventBus): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    connection: 'keep-alive',
  });
  res.write(': connected\n\n');
  const off = events.subscribe((message: EventMessage) => {
    res.write(`event: ${message.name}\ndata: ${JSON.stringify(message.payload)}\n\n`);
  });
  const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), 15_000);
  req.on('close', () => {
    clearInterval(keepAlive);
    off();
  });
}

async function receiveUpload(req: http.IncomingMessage, res: http.ServerResponse, uploadDir: string): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const name = path.basename(url.searchParams.get('name') ?? 'upload.json').replace(/[^\w.-]+/g, '_');
  // Each upload gets its own folder, so the file keeps its name (which error reports show).
  const folder = path.join(uploadDir, randomUUID().slice(0, 8));
  fs.mkdirSync(folder, { recursive: true });
  const target = path.join(folder, name);
  try {
    await pipeline(req, fs.createWriteStream(target));
    sendResult(res, { ok: true, value: { path: target } });
  } catch (error) {
    fs.rmSync(folder, { recursive: true, force: true });
    sendResult(res, errorResult('internal', `Upload failed: ${(error as Error).message}`));
  }
}

/**
 * `POST /api/download/<operation>` with the operation's input as JSON, less its file: the server
 * writes the export into a folder of its own, sends the file as an attachment and removes it.
 * This is how files go out to a caller over the network, who may never name a server path.
 */
async function serveDownload(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  options: HttpOptions,
  gate: TeamGate | undefined,
  identify: (req: http.IncomingMessage) => Promise<Identity>,
  name: DownloadOperation,
): Promise<void> {
  let input: Record<string, unknown>;
  try {
    const body = await readBody(req);
    const parsed: unknown = body.trim() === '' ? {} : JSON.parse(body);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('expected a JSON object');
    input = parsed as Record<string, unknown>;
  } catch (error) {
    sendResult(res, errorResult('invalid_input', `The request body is not a JSON object: ${(error as Error).message}`));
    return;
  }
  const folder = path.join(options.uploadDir, '..', 'downloads', randomUUID());
  await fs.promises.mkdir(folder, { recursive: true });
  const extension = name === 'judgment:export' ? (input.format === 'jsonl' ? 'jsonl' : 'csv') : name === 'pack:export' ? 'awbpack' : name === 'failure-tag:export' ? 'csv' : 'jsonl';
  const file = path.join(folder, `${name.split(':')[0]}.${extension}`);
  try {
    const result = gate
      ? await gate.callForDownload(options.handlers, name, input, await identify(req), options.uploadDir, file)
      : await dispatch(options.handlers, name, { ...input, [DOWNLOADS[name]]: file });
    if (!result.ok) {
      sendResult(res, result);
      return;
    }
    const stat = await fs.promises.stat(file);
    res.writeHead(200, {
      'content-type': 'application/octet-stream',
      'content-length': String(stat.size),
      'content-disposition': `attachment; filename="${path.basename(file)}"`,
      'x-content-type-options': 'nosniff',
      'cache-control': 'no-store',
    });
    await pipeline(fs.createReadStream(file), res);
  } catch (error) {
    if (!res.headersSent) sendResult(res, errorResult('internal', (error as Error).message));
    else res.destroy();
  } finally {
    await fs.promises.rm(folder, { recursive: true, force: true });
  }
}

export function createHttpServer(options: HttpOptions): http.Server {
  const gate = options.team ? new TeamGate(options.team) : undefined;
  if (!isLoopbackHost(options.host) && !gate?.hasAccounts()) {
    throw new Error(
      `Refusing to listen on ${options.host}: any address other than loopback needs team mode, so that everyone signs in. ` +
        'Create a maintainer first (awb team account add NAME --role maintainer), then serve again; or keep the default 127.0.0.1.',
    );
  }
  if (options.team?.forced && !gate?.hasAccounts()) {
    throw new Error('--team needs at least one account: create a maintainer first (awb team account add NAME --role maintainer).');
  }
  const identify = (req: http.IncomingMessage): Promise<Identity> => (gate ? gate.identify(req) : Promise.resolve({ kind: 'owner' }));
  return http.createServer((req, res) => {
    if (!hostAllowed(req, options)) {
      send(res, 403, JSON.stringify(errorResult('invalid_input', 'Host not allowed')));
      return;
    }
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname === '/api/events' && req.method === 'GET') {
      void identify(req).then((identity) => {
        if (identity.kind === 'anonymous') send(res, 401, JSON.stringify(errorResult('unauthorized', identity.reason)));
        else serveEvents(req, res, options.events);
      });
      return;
    }
    if (url.pathname.startsWith('/api/')) {
      if (req.method !== 'POST') {
        send(res, 405, JSON.stringify(errorResult('invalid_input', 'Use POST')));
        return;
      }
      if (!originAllowed(req, options)) {
        send(res, 403, JSON.stringify(errorResult('invalid_input', 'Cross-origin requests are not allowed')));
        return;
      }
      if (gate && (url.pathname === '/api/session/login' || url.pathname === '/api/session/logout')) {
        handleSession(req, res, gate, url.pathname.endsWith('logout') ? 'logout' : 'login').catch((error: unknown) =>
          sendResult(res, errorResult('internal', (error as Error).message)),
        );
        return;
      }
      if (url.pathname === '/api/upload') {
        void identify(req).then((identity) => {
          // Files come in for imports, which are the maintainers'.
          if (identity.kind === 'anonymous') sendResult(res, errorResult('unauthorized', identity.reason));
          else if (identity.kind === 'caller' && identity.caller.role !== 'maintainer') sendResult(res, errorResult('forbidden', 'Only maintainers upload files.'));
          else void receiveUpload(req, res, options.uploadDir);
        });
        return;
      }
      if (url.pathname.startsWith('/api/download/')) {
        const name = decodeURIComponent(url.pathname.slice('/api/download/'.length));
        if (!isDownload(name)) {
          send(res, 404, JSON.stringify(errorResult('not_found', `Nothing to download from ${name}; downloads: ${Object.keys(DOWNLOADS).join(', ')}`)));
          return;
        }
        void serveDownload(req, res, options, gate, identify, name);
        return;
      }
      if (!(req.headers['content-type'] ?? '').startsWith('application/json')) {
        send(res, 415, JSON.stringify(errorResult('invalid_input', 'Send JSON (content-type: application/json)')));
        return;
      }
      const name = decodeURIComponent(url.pathname.slice('/api/'.length));
      readBody(req)
        .then((body) => {
          let input: unknown;
          try {
            input = body.trim() === '' ? {} : JSON.parse(body);
          } catch {
            return errorResult('invalid_input', 'The request body is not valid JSON');
          }
          if (!gate) return dispatch(options.handlers, name, input);
          return identify(req).then((identity) => gate.call(options.handlers, name, input, identity, options.uploadDir));
        })
        .then(
          (result) => sendResult(res, result),
          (error: unknown) => sendResult(res, errorResult('invalid_input', (error as Error).message)),
        );
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      send(res, 405, 'method not allowed', 'text/plain');
      return;
    }
    serveStatic(req, res, options).catch((error: unknown) => send(res, 500, `Cannot serve the UI: ${(error as Error).message}`, 'text/plain'));
  });
}

export function listen(server: http.Server, host: string, port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const address = server.address();
      const actualPort = typeof address === 'object' && address ? address.port : port;
      const shownHost = host.includes(':') ? `[${host}]` : host;
      resolve(`http://${shownHost}:${actualPort}/`);
    });
  });
}
