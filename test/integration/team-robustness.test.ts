import { EventEmitter } from 'node:events';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHandlers, Workbench } from '../../electron/services';
import { installSafetyNet, serve } from '../../electron/transport/serve';
import { dispatch, type IssuedToken } from '../../shared/api';
import { startServer } from '../helpers/cli';
import { tempDir } from '../helpers/db';

/**
 * No request can stop `awb serve`: a corpus of malformed requests (broken percent-encoding, deep
 * and wide JSON, wrong content types, huge headers, slow bodies, unknown routes), each sent with
 * and without credentials to a real `awb serve --team` process, must each get a 4xx or 5xx
 * answer (or, where HTTP itself is broken, a closed connection), and the server must answer a
 * plain call after every one of them.
 */

const tmp = tempDir('awb-robust-');
let server: Awaited<ReturnType<typeof startServer>>;
let port = 0;
let token = '';
let stderr = '';

beforeAll(async () => {
  const db = tmp.file('robust.db');
  const workbench = new Workbench({ databasePath: db, mode: 'browser', version: 'test' });
  const made = await dispatch(createHandlers(workbench), 'account:create', { name: 'vic', role: 'viewer' });
  if (!made.ok) throw new Error(made.error.message);
  token = (made.value as IssuedToken).token;
  workbench.close();
  server = await startServer(['--db', db, '--team'], { AWB_HOME: tmp.file('home') });
  port = Number(new URL(server.url).port);
  server.process.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
}, 60_000);

afterAll(async () => {
  await server?.stop();
  tmp.cleanup();
});

/** One raw HTTP/1.1 exchange: the status line's code, or 0 when the server closed without one. */
function raw(request: string | Buffer, { body, wait = true }: { body?: Buffer | string; wait?: boolean } = {}): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString('latin1')));
    socket.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' || error.code === 'EPIPE' ? undefined : reject(error)));
    socket.on('close', () => resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1] ?? 0), text: received }));
    socket.write(request);
    if (body !== undefined) socket.write(body);
    if (!wait) socket.end();
  });
}

function request(method: string, target: string, headers: Record<string, string>, body = ''): Promise<{ status: number; text: string }> {
  const lines = [`${method} ${target} HTTP/1.1`, `Host: 127.0.0.1:${port}`, 'Connection: close', ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
  if (body !== '' || method === 'POST') lines.push(`Content-Length: ${Buffer.byteLength(body)}`);
  return raw(`${lines.join('\r\n')}\r\n\r\n`, { body });
}

async function stillAnswers(): Promise<void> {
  const response = await fetch(`${server.url}/api/app:info`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: '{}' });
  expect(response.status).toBe(200);
  expect(((await response.json()) as { ok: boolean }).ok).toBe(true);
}

const json = { 'Content-Type': 'application/json' };
const deepArray = `${'['.repeat(5000)}${']'.repeat(5000)}`;
const deepObject = `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`;
const wideArray = `{"ids":[${Array.from({ length: 400_000 }, () => '0').join(',')}]}`;
const wideObject = `{${Array.from({ length: 100_000 }, (_, i) => `"k${i}":${i}`).join(',')}}`;

const CORPUS: { what: string; method: string; target: string; headers?: Record<string, string>; body?: string }[] = [
  { what: 'broken percent-encoding in an operation', method: 'POST', target: '/api/%ZZ', headers: json, body: '{}' },
  { what: 'broken percent-encoding in a download', method: 'POST', target: '/api/download/%ZZ', headers: json, body: '{}' },
  { what: 'a lone % in an operation', method: 'POST', target: '/api/instance%', headers: json, body: '{}' },
  { what: 'broken percent-encoding in a page', method: 'GET', target: '/%ZZ/%E0%A4%A' },
  { what: 'broken percent-encoding in an upload name', method: 'POST', target: '/api/upload?name=%ZZ%', body: '[]' },
  { what: 'JSON nested 5,000 deep (arrays)', method: 'POST', target: '/api/instance:list', headers: json, body: deepArray },
  { what: 'JSON nested 5,000 deep (objects)', method: 'POST', target: '/api/instance:list', headers: json, body: deepObject },
  { what: 'deep JSON to a download', method: 'POST', target: '/api/download/judgment:export', headers: json, body: deepObject },
  { what: 'deep JSON to sign-in', method: 'POST', target: '/api/session/login', headers: json, body: deepObject },
  { what: 'a wide array', method: 'POST', target: '/api/instance:list', headers: json, body: wideArray },
  { what: 'a wide object', method: 'POST', target: '/api/stats:get', headers: json, body: wideObject },
  { what: 'a body over 8 MB', method: 'POST', target: '/api/stats:get', headers: json, body: `{"x":"${'y'.repeat(9 * 1024 * 1024)}"}` },
  { what: 'JSON that is not an object', method: 'POST', target: '/api/stats:get', headers: json, body: '[1,2,3]' },
  { what: 'JSON null', method: 'POST', target: '/api/stats:get', headers: json, body: 'null' },
  { what: 'JSON cut short', method: 'POST', target: '/api/stats:get', headers: json, body: '{"a": [1, 2' },
  { what: 'text/plain', method: 'POST', target: '/api/stats:get', headers: { 'Content-Type': 'text/plain' }, body: '{}' },
  { what: 'a form', method: 'POST', target: '/api/stats:get', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'a=1' },
  { what: 'multipart', method: 'POST', target: '/api/session/login', headers: { 'Content-Type': 'multipart/form-data; boundary=x' }, body: '--x--' },
  { what: 'no content type', method: 'POST', target: '/api/stats:get', body: '{}' },
  { what: 'a sign-in that is not an object', method: 'POST', target: '/api/session/login', headers: json, body: '"vic"' },
  { what: 'an unknown operation', method: 'POST', target: '/api/instance:delete-everything', headers: json, body: '{}' },
  { what: 'an operation name 4,000 long', method: 'POST', target: `/api/${'x'.repeat(4000)}`, headers: json, body: '{}' },
  { what: 'an unknown download', method: 'POST', target: '/api/download/protocol:save', headers: json, body: '{}' },
  { what: 'GET on the API', method: 'GET', target: '/api/stats:get' },
  { what: 'PUT on a page', method: 'PUT', target: '/', body: 'x' },
  { what: 'DELETE on the API', method: 'DELETE', target: '/api/stats:get' },
  { what: 'OPTIONS (a preflight)', method: 'OPTIONS', target: '/api/stats:get', headers: { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'POST' } },
  { what: 'a foreign origin', method: 'POST', target: '/api/stats:get', headers: { ...json, Origin: 'https://evil.example' }, body: '{}' },
  { what: 'a path outside the UI', method: 'GET', target: '/..%2f..%2f..%2fetc%2fpasswd' },
  { what: 'an absolute URL as the target', method: 'POST', target: 'http://evil.example/api/stats:get', headers: { ...json, Origin: 'http://evil.example' }, body: '{}' },
];

describe('a corpus of malformed requests', () => {
  for (const credentials of [false, true]) {
    it(`answers each with 4xx or 5xx and keeps serving (${credentials ? 'signed in' : 'no credentials'})`, async () => {
      const auth: Record<string, string> = credentials ? { Authorization: `Bearer ${token}` } : {};
      for (const c of CORPUS) {
        const answer = await request(c.method, c.target, { ...auth, ...(c.headers ?? {}) }, c.body ?? '');
        // A page path outside the UI answers the app's page (a client route) or a refusal, never a file outside it.
        if (c.what === 'a path outside the UI') expect(answer.text, c.what).not.toContain('root:');
        else {
          expect(answer.status, `${c.what}: ${answer.text.slice(0, 200)}`).toBeGreaterThanOrEqual(400);
          expect(answer.status, c.what).toBeLessThan(600);
        }
        if (answer.status !== 413 && c.target.startsWith('/api/') && answer.status >= 400) expect(answer.text, c.what).toMatch(/"ok":false/);
        await stillAnswers();
      }
    }, 120_000);
  }

  it('answers a header block too large with 431 and keeps serving', async () => {
    const answer = await request('POST', '/api/stats:get', { ...json, 'X-Padding': 'a'.repeat(100_000) }, '{}');
    expect([0, 431]).toContain(answer.status);
    await stillAnswers();
  });

  it('refuses garbage credentials of every shape', async () => {
    const shapes: Record<string, string>[] = [{ Authorization: `Bearer ${'x'.repeat(6000)}` }, { Authorization: 'Bearer awb_99999999999999999999_aaaaaaaaaaaaaaaaaaaaaaaa' }, { Cookie: `awb_session=${'%ZZ'.repeat(1000)}` }, { Authorization: 'Basic dmljOnZpYw==' }];
    for (const headers of shapes) {
      const answer = await request('POST', '/api/stats:get', { ...json, ...headers }, '{}');
      expect(answer.status).toBe(401);
    }
    await stillAnswers();
  });

  it('keeps answering others while a slow body trickles in, and after it is dropped', async () => {
    const socket = net.connect(port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(`POST /api/stats:get HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nAuthorization: Bearer ${token}\r\nContent-Length: 1000\r\n\r\n{"x": "`);
    for (let i = 0; i < 3; i++) {
      socket.write('y');
      await stillAnswers();
    }
    socket.destroy();
    await stillAnswers();
  });

  it('has logged no crash and is still the same process', async () => {
    await stillAnswers();
    expect(server.process.exitCode).toBeNull();
    expect(stderr).not.toMatch(/RangeError|Maximum call stack|ERR_HTTP_INVALID_STATUS_CODE|URIError/);
  });
});

describe('the process-level safety net', () => {
  it('logs an error nothing caught, and is taken away again', () => {
    const lines: string[] = [];
    const target = new EventEmitter();
    const remove = installSafetyNet((line) => lines.push(line), target);
    target.emit('uncaughtException', new Error('a listener broke'));
    target.emit('unhandledRejection', new Error('a promise nobody awaited'));
    expect(lines).toEqual([expect.stringMatching(/unexpected error was caught; the server keeps serving: Error: a listener broke/), expect.stringMatching(/a promise nobody awaited/)]);
    remove();
    expect(target.listenerCount('uncaughtException') + target.listenerCount('unhandledRejection')).toBe(0);
  });

  it('is spread under awb serve while it serves', async () => {
    process.env.AWB_HOME = tmp.file('net-home');
    const before = process.listenerCount('uncaughtException');
    const serving = await serve({ databasePath: tmp.file('net.db'), version: 'test', host: '127.0.0.1', port: 0, team: false, seedDemo: false, log: () => undefined });
    try {
      expect(process.listenerCount('uncaughtException')).toBe(before + 1);
      const response = await fetch(`${serving.url}api/stats:get`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(response.status).toBe(200);
    } finally {
      serving.stop();
      delete process.env.AWB_HOME;
    }
    expect(process.listenerCount('uncaughtException')).toBe(before);
  });
});
