import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import { dispatch, type ErrorCode, type EventMessage, type Handlers, type Result } from '../../shared/api';
import { CONTENT_SECURITY_POLICY } from '../../shared/security';
import type { EventBus } from '../services/events';

/**
 * `awb serve`: the same API over HTTP (POST /api/<operation>, server-sent events at
 * /api/events) plus the built renderer, so a browser gets the desktop app's UI.
 *
 * It listens on 127.0.0.1 by default. Requests must name an allowed Host (against DNS
 * rebinding) and, when a browser sends an Origin, it must be this server's own (against other
 * sites posting to a local port); API calls must be JSON, which a cross-site form cannot send
 * without a preflight that this server never approves.
 */

export interface HttpOptions {
  handlers: Handlers;
  events: EventBus;
  staticDir: string;
  uploadDir: string;
  host: string;
  port: number;
}

const STATUS: Record<ErrorCode, number> = {
  invalid_input: 400,
  not_found: 404,
  unknown_operation: 404,
  conflict: 409,
  cancelled: 409,
  internal: 500,
};

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
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
  return allowed.has(host) || options.host === '0.0.0.0';
}

function originAllowed(req: http.IncomingMessage): boolean {
  const origin = req.headers.origin;
  if (!origin) return true;
  return origin === `http://${req.headers.host ?? ''}`;
}

function serveStatic(req: http.IncomingMessage, res: http.ServerResponse, root: string): void {
  const url = new URL(req.url ?? '/', 'http://localhost');
  let relative: string;
  try {
    relative = decodeURIComponent(url.pathname);
  } catch {
    send(res, 400, 'bad path', 'text/plain');
    return;
  }
  let file = path.resolve(root, `.${relative}`);
  if (!file.startsWith(path.resolve(root))) {
    send(res, 403, 'forbidden', 'text/plain');
    return;
  }
  // Client-side routes (no extension) get the app's page.
  if (!path.extname(file) || !fs.existsSync(file)) {
    if (path.extname(file) && !fs.existsSync(file)) {
      send(res, 404, 'not found', 'text/plain');
      return;
    }
    file = path.join(root, 'index.html');
  }
  if (!fs.existsSync(file)) {
    send(res, 503, 'The UI is not built yet: run `npm run build:renderer` (npm start does it for you).', 'text/plain');
    return;
  }
  const isIndex = path.basename(file) === 'index.html';
  res.writeHead(200, {
    'content-type': MIME[path.extname(file)] ?? 'application/octet-stream',
    'cache-control': isIndex ? 'no-store' : 'public, max-age=31536000, immutable',
    'content-security-policy': CONTENT_SECURITY_POLICY,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
  });
  fs.createReadStream(file).pipe(res);
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

export function createHttpServer(options: HttpOptions): http.Server {
  return http.createServer((req, res) => {
    if (!hostAllowed(req, options)) {
      send(res, 403, JSON.stringify(errorResult('invalid_input', 'Host not allowed')));
      return;
    }
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname === '/api/events' && req.method === 'GET') {
      serveEvents(req, res, options.events);
      return;
    }
    if (url.pathname.startsWith('/api/')) {
      if (req.method !== 'POST') {
        send(res, 405, JSON.stringify(errorResult('invalid_input', 'Use POST')));
        return;
      }
      if (!originAllowed(req)) {
        send(res, 403, JSON.stringify(errorResult('invalid_input', 'Cross-origin requests are not allowed')));
        return;
      }
      if (url.pathname === '/api/upload') {
        void receiveUpload(req, res, options.uploadDir);
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
          return dispatch(options.handlers, name, input);
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
    serveStatic(req, res, options.staticDir);
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
