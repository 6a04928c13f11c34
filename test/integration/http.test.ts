import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHandlers, Workbench } from '../../electron/services';
import { createHttpServer, listen } from '../../electron/transport/http';
import type { ImportReport, InstanceDetail, Job, Page, InstanceRow, Result } from '../../shared/api';
import { startServer } from '../helpers/cli';
import { MUSIQUE, tempDir, writeFile } from '../helpers/db';

const tmp = tempDir('awb-http-');
let workbench: Workbench;
let server: http.Server;
let base: string;

beforeAll(async () => {
  const staticDir = tmp.file('static');
  fs.mkdirSync(path.join(staticDir, 'assets'), { recursive: true });
  writeFile(path.join(staticDir, 'index.html'), '<!doctype html><title>app</title>');
  writeFile(path.join(staticDir, 'assets', 'app.js'), 'console.log(1)');
  workbench = new Workbench({ databasePath: tmp.file('http.db'), mode: 'browser', version: 'test' });
  server = createHttpServer({
    handlers: createHandlers(workbench),
    events: workbench.events,
    staticDir,
    uploadDir: tmp.file('uploads'),
    host: '127.0.0.1',
    port: 0,
  });
  base = (await listen(server, '127.0.0.1', 0)).replace(/\/$/, '');
});

afterAll(() => {
  server.closeAllConnections();
  server.close();
  workbench.close();
  tmp.cleanup();
});

async function post<T>(name: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; result: Result<T> }> {
  const response = await fetch(`${base}/api/${name}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, result: (await response.json()) as Result<T> };
}

/**
 * Collects server-sent events until `done` says stop. `connected` settles when the stream's
 * response arrives: the server subscribes before it answers, so no event sent after is missed.
 */
function events(done: (name: string, data: unknown) => boolean): { connected: Promise<void>; received: Promise<{ name: string; data: unknown }[]> } {
  let connected!: () => void;
  let failed!: (error: Error) => void;
  const connection = new Promise<void>((resolve, reject) => {
    connected = resolve;
    failed = reject;
  });
  const received = new Promise<{ name: string; data: unknown }[]>((resolve, reject) => {
    const seen: { name: string; data: unknown }[] = [];
    const request = http.get(`${base}/api/events`, (response) => {
      connected();
      let buffer = '';
      response.on('data', (chunk: Buffer) => {
        buffer += chunk.toString();
        let end;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const name = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (!name || data === undefined) continue;
          seen.push({ name, data: JSON.parse(data) });
          if (done(name, JSON.parse(data))) {
            request.destroy();
            resolve(seen);
          }
        }
      });
    });
    request.on('error', (error) => {
      if ((error as NodeJS.ErrnoException).code?.includes('ECONNRESET')) return;
      failed(error);
      reject(error);
    });
  });
  return { connected: connection, received };
}

describe('the API over HTTP', () => {
  it('runs an import as a job, streaming progress and completion over server-sent events', async () => {
    const { connected, received } = events((name) => name === 'job:done');
    await connected;
    const started = await post<{ jobId: string }>('dataset:import', { path: MUSIQUE, format: 'musique', dataset: 'MuSiQue' });
    expect(started.status).toBe(200);
    expect(started.result.ok).toBe(true);
    const list = await received;
    const done = list.find((e) => e.name === 'job:done')!.data as Job;
    expect(done.state).toBe('done');
    expect((done.result as ImportReport).imported).toBe(100);
    expect(list.some((e) => e.name === 'job:progress')).toBe(true);
    const job = await post<Job>('job:get', { id: started.result.ok ? started.result.value.jobId : '' });
    expect(job.result.ok && job.result.value.state).toBe('done');
  });

  it('lists and opens base questions', async () => {
    const page = await post<Page<{ id: number; question: string }>>('base-question:list', { limit: 5, sort: 'id' });
    expect(page.result.ok && page.result.value.rows).toHaveLength(5);
    const stats = await post<{ baseQuestions: number }>('stats:get', {});
    expect(stats.result.ok && stats.result.value.baseQuestions).toBe(100);
    const instances = await post<Page<InstanceRow>>('instance:list', {});
    expect(instances.result.ok && instances.result.value.rows).toEqual([]);
  });

  it('returns errors as data, with a fitting status', async () => {
    const invalid = await post('instance:list', { limit: 'many' });
    expect(invalid.status).toBe(400);
    expect(invalid.result).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    expect(!invalid.result.ok && invalid.result.error.message).toMatch(/instance:list: limit: Invalid input: expected number/);
    const missing = await post<InstanceDetail>('instance:get', { id: 424242 });
    expect(missing.status).toBe(404);
    expect(missing.result).toEqual({ ok: false, error: { code: 'not_found', message: 'No instance 424242' } });
    const unknown = await post('instance:delete-everything', {});
    expect(unknown.status).toBe(404);
    expect(unknown.result).toMatchObject({ ok: false, error: { code: 'unknown_operation' } });
    const extra = await post('stats:get', { surprise: 1 });
    expect(extra.status).toBe(400);
  });

  it('refuses requests from other sites and other host names, and non-JSON bodies', async () => {
    const foreign = await post('stats:get', {}, { origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    const rebinding = await new Promise<number>((resolve) => {
      const request = http.request(`${base}/api/stats:get`, { method: 'POST', headers: { host: 'evil.example', 'content-type': 'application/json' } }, (response) => resolve(response.statusCode ?? 0));
      request.end('{}');
    });
    expect(rebinding).toBe(403);
    const text = await fetch(`${base}/api/stats:get`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' });
    expect(text.status).toBe(415);
    const get = await fetch(`${base}/api/stats:get`);
    expect(get.status).toBe(405);
  });

  it('serves the UI with a strict CSP, falling back to the app page for client routes', async () => {
    const page = await fetch(`${base}/instances/12?type=semantic`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<title>app</title>');
    expect(page.headers.get('content-security-policy')).toMatch(/default-src 'self'; script-src 'self'/);
    const asset = await fetch(`${base}/assets/app.js`);
    expect(asset.headers.get('content-type')).toMatch(/javascript/);
    expect((await fetch(`${base}/assets/missing.js`)).status).toBe(404);
    expect((await fetch(`${base}/..%2f..%2fetc%2fpasswd`)).status).not.toBe(200);
  });

  it('accepts an upload for import in browser mode, naming it by reference, never by its server path', async () => {
    const response = await fetch(`${base}/api/upload?name=../../sneaky name.json`, { method: 'POST', body: '[]' });
    const result = (await response.json()) as Result<{ upload: string; name: string; bytes: number }>;
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value).toEqual({ upload: expect.stringMatching(/^upload:[0-9a-f-]{36}\/sneaky_name\.json$/), name: 'sneaky_name.json', bytes: 2 });
    expect(JSON.stringify(result)).not.toContain(tmp.dir);
    const id = /^upload:([0-9a-f-]{36})\//.exec(result.value.upload)![1]!;
    expect(fs.readFileSync(path.join(tmp.file('uploads'), id, 'sneaky_name.json'), 'utf8')).toBe('[]');
    // The reference works where an import takes a file.
    const imported = await post<{ jobId: string }>('dataset:import', { path: result.value.upload, format: 'musique', dataset: 'Uploaded' });
    expect(imported.status).toBe(200);
    const job = await workbench.jobs.wait(imported.result.ok ? imported.result.value.jobId : '');
    expect(job.state).toBe('done');
  });

  it('cancels a running job', async () => {
    const big = tmp.file('slow.jsonl');
    const line = `${JSON.stringify({ id: 'x', question: 'q', paragraphs: [{ idx: 0, title: 't', paragraph_text: 'p' }] })}\n`;
    fs.writeFileSync(big, Array.from({ length: 200_000 }, (_, i) => line.replace('"x"', `"x${i}"`)).join(''));
    const started = await post<{ jobId: string }>('dataset:import', { path: big, format: 'musique', dataset: 'slow' });
    if (!started.result.ok) throw new Error('did not start');
    const id = started.result.value.jobId;
    await post('job:cancel', { id });
    const job = await workbench.jobs.wait(id);
    expect(job.state).toBe('cancelled');
    expect(job.error?.message).toMatch(/cancelled; nothing was imported/);
    const stats = await post<{ datasets: number }>('stats:get', {});
    expect(stats.result.ok && stats.result.value.datasets).toBe(1);
  });
});

describe('awb serve', () => {
  it('prints its URL and answers on it', async () => {
    const served = await startServer(['--db', tmp.file('served.db')]);
    try {
      expect(served.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const response = await fetch(`${served.url}/api/app:info`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      const info = (await response.json()) as Result<{ mode: string; databasePath: string; sqliteVec: string }>;
      expect(info).toMatchObject({ ok: true, value: { mode: 'browser', databasePath: tmp.file('served.db') } });
    } finally {
      await served.stop();
    }
  });
});

