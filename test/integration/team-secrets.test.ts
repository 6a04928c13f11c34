import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHandlers, Workbench } from '../../electron/services';
import { importFile } from '../../electron/services/import/import-file';
import { createHttpServer, listen } from '../../electron/transport/http';
import { dispatch, type IssuedToken, type Job, type Result } from '../../shared/api';
import { MUSIQUE, tempDir } from '../helpers/db';
import { startFakeOpenAI, type FakeOpenAI } from '../helpers/fake-openai';

/**
 * The owner's secrets stay on the server: over real HTTP, a maintainer may not point the server
 * at an address of their choosing, nor name an environment variable for it to read; endpoints
 * are chosen by name among the server's own, and then the key goes only where the owner said.
 * A local listener plays the address a caller would like the key sent to: it must hear nothing.
 */

const tmp = tempDir('awb-team-secrets-');
const SECRET = 'the-owners-secret-value-1234';
let workbench: Workbench;
let server: Server;
let base: string;
let maria = '';
let trap: Server;
let trapUrl = '';
const trapped: { url: string; authorization: string | undefined }[] = [];
let owners: FakeOpenAI;

beforeAll(async () => {
  process.env.AWB_TEST_OWNER_SECRET = SECRET;
  trap = http.createServer((req, res) => {
    trapped.push({ url: req.url ?? '', authorization: req.headers.authorization });
    res.writeHead(500).end();
  });
  await new Promise<void>((resolve) => trap.listen(0, '127.0.0.1', resolve));
  trapUrl = `http://127.0.0.1:${(trap.address() as AddressInfo).port}/v1`;
  owners = await startFakeOpenAI();
  workbench = new Workbench({ databasePath: tmp.file('secrets.db'), mode: 'browser', version: 'test' });
  await importFile(workbench.db, { file: MUSIQUE, format: 'musique', dataset: 'MuSiQue' });
  const made = await dispatch(createHandlers(workbench), 'account:create', { name: 'maria', role: 'maintainer' });
  if (!made.ok) throw new Error(made.error.message);
  maria = (made.value as IssuedToken).token;
  server = createHttpServer({
    handlers: createHandlers(workbench),
    events: workbench.events,
    staticDir: tmp.file('static'),
    uploadDir: tmp.file('uploads'),
    host: '127.0.0.1',
    port: 0,
    // The owner's own endpoint, as `awb serve --endpoints FILE` gives it.
    team: { db: workbench.db, endpoints: { endpoints: { lab: { baseURL: owners.url, apiKeyEnv: 'AWB_TEST_OWNER_SECRET', structuredOutput: 'json_schema' } } } },
  });
  base = (await listen(server, '127.0.0.1', 0)).replace(/\/$/, '');
}, 60_000);

afterAll(async () => {
  server?.closeAllConnections();
  server?.close();
  trap?.close();
  await owners?.close();
  workbench?.close();
  delete process.env.AWB_TEST_OWNER_SECRET;
  tmp.cleanup();
});

async function post<T>(name: string, body: unknown): Promise<{ status: number; result: Result<T> }> {
  const response = await fetch(`${base}/api/${name}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${maria}` }, body: JSON.stringify(body) });
  return { status: response.status, result: (await response.json()) as Result<T> };
}

function pipelineConfig(endpoints: Record<string, unknown> | undefined, endpoint = 'evil') {
  return {
    ...(endpoints ? { endpoints } : {}),
    detectors: [{ endpoint, model: 'd' }],
    generator: { endpoint, model: 'g' },
    filters: [{ endpoint, model: 'f' }],
  };
}

describe('what a maintainer over the network may not choose', () => {
  const evil = { evil: { baseURL: '', apiKeyEnv: 'AWB_TEST_OWNER_SECRET' } };
  beforeAll(() => {
    evil.evil.baseURL = trapUrl;
  });

  it('refuses an endpoint of their own, in every operation that takes one', async () => {
    const cases: [string, unknown][] = [
      ['pipeline:start', { config: pipelineConfig(evil), stages: ['detect'], limit: 1 }],
      ['pipeline:validate', { config: pipelineConfig(evil) }],
      ['evaluation:start', { method: 'naive-rag', model: { endpoint: 'evil', model: 'm' }, config: { endpoints: evil }, dataset: 'MuSiQue', limit: 1 }],
      ['evaluation:resume', { id: 1, config: { endpoints: evil } }],
    ];
    for (const [name, input] of cases) {
      const refused = await post(name, input);
      expect(refused.status, name).toBe(403);
      expect(!refused.result.ok && refused.result.error.message, name).toMatch(/endpoint "evil" is not one of this server's \(.*lab.*\); over the network, endpoints are chosen by name/);
    }
  });

  it("refuses a server endpoint's name pointed elsewhere, or reading another variable", async () => {
    const moved = await post('pipeline:start', { config: pipelineConfig({ lab: { baseURL: trapUrl } }, 'lab'), stages: ['detect'], limit: 1 });
    expect(moved.status).toBe(403);
    expect(!moved.result.ok && moved.result.error.message).toMatch(/"config\.endpoints\.lab\.baseURL" differs from the server's endpoint "lab"/);
    const otherKey = await post('pipeline:validate', { config: pipelineConfig({ lab: { apiKeyEnv: 'HOME' } }, 'lab') });
    expect(otherKey.status).toBe(403);
    expect(!otherKey.result.ok && otherKey.result.error.message).toMatch(/"config\.endpoints\.lab\.apiKeyEnv" differs/);
  });

  it('refuses every other field that reaches out: an embedding address or key variable, a reader URL, a PostgreSQL address', async () => {
    const cases: [string, unknown, string][] = [
      ['corpus:embed', { corpus: 'MuSiQue', provider: 'openai', model: 'e', baseURL: trapUrl }, 'baseURL'],
      ['corpus:embed', { corpus: 'MuSiQue', provider: 'openai', model: 'e', apiKeyEnv: 'AWB_TEST_OWNER_SECRET' }, 'apiKeyEnv'],
      ['evaluation:start', { method: 'naive-rag', model: { endpoint: 'lab', model: 'm' }, config: { endpoints: { lab: {} } }, dataset: 'MuSiQue', reader: { kind: 'http', url: trapUrl } }, 'reader.url'],
      ['sync:run', { postgres: `postgres://awb@${new URL(trapUrl).host}/awb` }, 'postgres'],
      ['sync:configure', { postgres: `postgres://awb@${new URL(trapUrl).host}/awb`, role: 'maintainer' }, 'postgres'],
      ['sync:remove-campaign', { uid: 'x', postgres: `postgres://awb@${new URL(trapUrl).host}/awb` }, 'postgres'],
    ];
    for (const [name, input, field] of cases) {
      const refused = await post(name, input);
      expect(refused.status, `${name} ${field}`).toBe(403);
      expect(!refused.result.ok && refused.result.error.message, name).toContain(`"${field}" would have the server call an address or read an environment variable of its choosing`);
    }
  });

  it('refuses a config sent as an uploaded file, whose endpoints the gate would not see', async () => {
    const upload = await fetch(`${base}/api/upload?name=config.json`, { method: 'POST', headers: { authorization: `Bearer ${maria}` }, body: JSON.stringify(pipelineConfig(evil)) });
    const uploaded = (await upload.json()) as Result<{ upload: string }>;
    if (!uploaded.ok) throw new Error(uploaded.error.message);
    for (const [name, input] of [
      ['pipeline:start', { configPath: uploaded.value.upload, stages: ['detect'], limit: 1 }],
      ['evaluation:start', { method: 'naive-rag', model: { endpoint: 'evil', model: 'm' }, configPath: uploaded.value.upload, dataset: 'MuSiQue', limit: 1 }],
    ] as const) {
      const refused = await post(name, input);
      expect(refused.status, name).toBe(403);
      expect(!refused.result.ok && refused.result.error.message, name).toMatch(/"configPath" names a file on the server/);
    }
  });

  it('sent nothing, and no secret, to the address a caller chose', () => {
    expect(trapped).toEqual([]);
  });
});

describe('endpoints chosen by name', () => {
  it("fills in the server's endpoints: all of them when none is named, and a named one's address and key", async () => {
    const all = await post<{ ok: boolean; endpoints: string[] }>('pipeline:validate', { config: pipelineConfig(undefined, 'lab') });
    expect(all.status).toBe(200);
    // The bundled example's and the offline demo's, and the owner's file.
    expect(all.result.ok && all.result.value).toMatchObject({ ok: true, endpoints: expect.arrayContaining(['lab', 'fake', 'openrouter', 'local']) });
    const named = await post<{ ok: boolean; endpoints: string[] }>('pipeline:validate', { config: pipelineConfig({ lab: { maxInFlight: 2 } }, 'lab') });
    expect(named.result.ok && named.result.value).toMatchObject({ ok: true, endpoints: ['lab'] });
  });

  it("runs against the owner's endpoint with the owner's key, which only it receives", async () => {
    const started = await post<{ jobId: string }>('pipeline:start', { config: pipelineConfig({ lab: {} }, 'lab'), stages: ['detect'], limit: 1, datasets: ['MuSiQue'] });
    expect(started.status).toBe(200);
    const job: Job = await workbench.jobs.wait(started.result.ok ? started.result.value.jobId : '');
    expect(job.state).toBe('done');
    expect(owners.requests.length).toBeGreaterThan(0);
    expect(owners.requests.every((r) => r.headers.authorization === `Bearer ${SECRET}`)).toBe(true);
    expect(trapped).toEqual([]);
  }, 60_000);
});
