import fs from 'node:fs';
import { request as httpRequest, type Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCampaign } from '../../electron/services/annotation/campaigns';
import { createHandlers, Workbench } from '../../electron/services';
import type { HttpOptions } from '../../electron/transport/http';
import { dispatch, type AuditEntry, type CampaignView, type Result } from '../../shared/api';
import { awbAsync, startServer } from '../helpers/cli';
import { tempDir, writeFile } from '../helpers/db';
import { fillInstances } from '../helpers/synthetic';
import { closeServers, createAccounts, serveTeam } from '../helpers/team';

/**
 * `awb serve` beyond the happy path, over real HTTP: which Host names it answers to, limits that
 * hold when many tries come at once, what the audit trail records of refusals, sign-ins and
 * uploads, bounded uploads and their cleanup, bounded judgment files and packs, and team mode
 * chosen once, when the server starts.
 */

const tmp = tempDir('awb-team-net-');
let workbench: Workbench;
const servers: Server[] = [];
const tokens: Record<string, string> = {};
let campaign: CampaignView;

function serve(options: Partial<HttpOptions> & { db?: Workbench } = {}): Promise<string> {
  const { db, ...rest } = options;
  const bench = db ?? workbench;
  return serveTeam(bench, servers, { staticDir: tmp.file('static'), uploadDir: tmp.file('uploads') }, { team: { db: bench.db }, ...rest });
}

beforeAll(async () => {
  fs.mkdirSync(tmp.file('static'));
  writeFile(tmp.file('static/index.html'), '<!doctype html><title>app</title>');
  workbench = new Workbench({ databasePath: tmp.file('net.db'), mode: 'browser', version: 'test' });
  fillInstances(workbench.db, 40, 2);
  campaign = createCampaign(workbench.db, { name: 'Open', protocol: 'march-validation', annotators: ['alice', 'bob'], seed: 1, blind: false, selection: { types: ['semantic'], perType: 3 } });
  Object.assign(tokens, await createAccounts(workbench, (['maria', 'alice', 'vic'] as const).map((name, i) => [name, (['maintainer', 'annotator', 'viewer'] as const)[i]!, `${name} has a long password`] as const)));
}, 60_000);

afterAll(() => {
  closeServers(servers);
  workbench.close();
  tmp.cleanup();
});

const as = (name: string) => ({ authorization: `Bearer ${tokens[name]}` });

async function post<T>(base: string, name: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; result: Result<T>; headers: Headers }> {
  const response = await fetch(`${base}/api/${name}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: response.status, result: (await response.json()) as Result<T>, headers: response.headers };
}

/** A call with the exact Host and Origin a browser (or a rebinding page) would send. */
function withHost(base: string, host: string, origin?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const headers = { 'content-type': 'application/json', host, ...as('vic'), ...(origin ? { origin } : {}) };
    const req = httpRequest(`${base}/api/stats:get`, { method: 'POST', headers }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end('{}');
  });
}

async function audit(name: string): Promise<AuditEntry[]> {
  const rows = await dispatch(createHandlers(workbench), 'account:audit', { name, limit: 500 });
  if (!rows.ok) throw new Error(rows.error.message);
  return rows.value as AuditEntry[];
}

describe('host names (against DNS rebinding)', () => {
  it('bound to every interface, answers to loopback, this machine\'s addresses and --allowed-host names, and refuses any other name', async () => {
    const base = await serve({ host: '0.0.0.0', allowedHosts: ['awb.lab.example'] });
    const port = new URL(base).port;
    expect(await withHost(base, `127.0.0.1:${port}`)).toBe(200);
    expect(await withHost(base, `localhost:${port}`)).toBe(200);
    expect(await withHost(base, `awb.lab.example:${port}`)).toBe(200);
    expect(await withHost(base, `AWB.Lab.Example.:${port}`)).toBe(200);
    expect(await withHost(base, `evil.example:${port}`)).toBe(403);
    expect(await withHost(base, 'awb.lab.example.evil.example')).toBe(403);
    expect(await withHost(base, `203.0.113.5:${port}`)).toBe(403);
    expect(await withHost(base, `evil.example@127.0.0.1:${port}`)).toBe(403);
    const own = Object.values(os.networkInterfaces()).flat().find((i) => i && !i.internal && i.family === 'IPv4');
    if (own) expect(await withHost(base, `${own.address}:${port}`)).toBe(200);
    // A page under an allowed name may call; a page elsewhere may not, whatever Host it reaches us by.
    expect(await withHost(base, `awb.lab.example:${port}`, `http://awb.lab.example:${port}`)).toBe(200);
    expect(await withHost(base, `awb.lab.example:${port}`, 'http://evil.example')).toBe(403);
  });

  it('on loopback, answers only to loopback names unless told otherwise', async () => {
    const base = await serve();
    const port = new URL(base).port;
    expect(await withHost(base, `127.0.0.1:${port}`)).toBe(200);
    expect(await withHost(base, `awb.lab.example:${port}`)).toBe(403);
    expect(await withHost(base, `[::1]:${port}`)).toBe(200);
  });

  it('takes --allowed-host on the command line', async () => {
    const db = tmp.file('cli-hosts.db');
    const served = await startServer(['--db', db, '--allowed-host', 'awb.lab.example'], { AWB_HOME: tmp.file('home') });
    try {
      const port = new URL(served.url).port;
      const status = (host: string) =>
        new Promise<number>((resolve) => {
          const req = httpRequest(`${served.url}/api/stats:get`, { method: 'POST', headers: { 'content-type': 'application/json', host } }, (response) => {
            response.resume();
            resolve(response.statusCode ?? 0);
          });
          req.end('{}');
        });
      expect(await status(`awb.lab.example:${port}`)).toBe(200);
      expect(await status(`evil.example:${port}`)).toBe(403);
    } finally {
      await served.stop();
    }
  }, 60_000);
});

describe('limits that hold when many tries come at once', () => {
  it('checks only five of 25 wrong passwords sent together for one account; the rest wait, the right one too', async () => {
    const base = await serve();
    const statuses = await Promise.all(Array.from({ length: 25 }, (_, i) => post(base, 'session/login', { name: 'alice', password: `wrong guess number ${i}` }).then((r) => r.status)));
    expect(statuses.filter((s) => s === 401)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(20);
    expect((await post(base, 'session/login', { name: 'alice', password: 'alice has a long password' })).status).toBe(429);
    const rows = (await audit('alice')).filter((r) => r.operation === 'session:sign-in');
    expect(rows.filter((r) => !r.ok && /Unknown name, password or token/.test(String(r.summary.refused)))).toHaveLength(5);
    expect(rows.filter((r) => !r.ok && /Too many failed sign-ins/.test(String(r.summary.refused)))).toHaveLength(21);
    expect(rows[0]!.summary).toMatchObject({ name: 'alice', address: '127.0.0.1' });
    expect(JSON.stringify(rows)).not.toContain('wrong guess');
  }, 60_000);

  it('limits wrong bearer tokens per address, counting each before its hash is checked; a token verified before still works', async () => {
    const base = await serve();
    expect((await post(base, 'stats:get', {}, as('vic'))).status).toBe(200);
    const tokenId = /^awb_(\d+)_/.exec(tokens.maria!)![1]!;
    const wrong = `awb_${tokenId}_${'A'.repeat(43)}`;
    const statuses = await Promise.all(Array.from({ length: 25 }, () => post(base, 'stats:get', {}, { authorization: `Bearer ${wrong}` })));
    expect(statuses.filter((r) => r.status === 401)).toHaveLength(20);
    const limited = statuses.filter((r) => r.status === 429);
    expect(limited).toHaveLength(5);
    expect(Number(limited[0]!.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(!limited[0]!.result.ok && limited[0]!.result.error.message).toMatch(/Too many wrong tokens from your address/);
    // Verified lately, so it costs no hash: not held back.
    expect((await post(base, 'stats:get', {}, as('vic'))).status).toBe(200);
    // Every refusal is in the audit trail, as the anonymous caller it was.
    const anonymous = (await audit('anonymous')).filter((r) => r.operation === 'stats:get');
    expect(anonymous.length).toBeGreaterThanOrEqual(25);
    expect(anonymous[0]).toMatchObject({ role: 'anonymous', ok: false, summary: expect.objectContaining({ address: '127.0.0.1' }) });
  }, 60_000);
});

describe('the audit trail of refusals, sign-ins and uploads', () => {
  it('records calls refused for want of a sign-in, for the role, and by the schema, and a sign-in that worked', async () => {
    const base = await serve();
    expect((await post(base, 'instance:list', {})).status).toBe(401);
    expect((await post(base, 'account:list', {}, as('alice'))).status).toBe(403);
    expect((await post(base, 'campaign:create', { name: 'x' }, as('maria'))).status).toBe(400);
    expect((await post(base, 'session/login', { name: 'vic', password: 'vic has a long password' })).status).toBe(200);
    const anonymous = await audit('anonymous');
    expect(anonymous.find((r) => r.operation === 'instance:list')).toMatchObject({ ok: false, summary: { refused: 'Sign in first: this server is in team mode.' } });
    expect((await audit('alice')).find((r) => r.operation === 'account:list')).toMatchObject({ ok: false, role: 'annotator', summary: { refused: expect.stringMatching(/not open to the annotator role/) } });
    expect((await audit('maria')).find((r) => r.operation === 'campaign:create')).toMatchObject({ ok: false, summary: { name: 'x', refused: expect.stringMatching(/campaign:create: protocol/) } });
    expect((await audit('vic')).find((r) => r.operation === 'session:sign-in')).toMatchObject({ ok: true, summary: { name: 'vic', address: '127.0.0.1' } });
  });

  it('records uploads, kept or refused', async () => {
    const base = await serve();
    const send = (headers: Record<string, string>) => fetch(`${base}/api/upload?name=audited.jsonl`, { method: 'POST', headers, body: '{"a": 1}\n' });
    expect((await send(as('maria'))).status).toBe(200);
    expect((await send(as('alice'))).status).toBe(403);
    expect((await send({})).status).toBe(401);
    expect((await audit('maria')).find((r) => r.operation === 'file:upload')).toMatchObject({ ok: true, summary: { name: 'audited.jsonl', bytes: 9 } });
    expect((await audit('alice')).find((r) => r.operation === 'file:upload')).toMatchObject({ ok: false, summary: { refused: 'Only maintainers upload files.' } });
    expect((await audit('anonymous')).find((r) => r.operation === 'file:upload')).toMatchObject({ ok: false });
  });
});

describe('bounded inputs', () => {
  const uploadsNow = () => (fs.existsSync(tmp.file('uploads')) ? fs.readdirSync(tmp.file('uploads')).sort() : []);

  it('refuses an upload over the limit with 413 and keeps nothing of it', async () => {
    const base = await serve({ maxUploadBytes: 64 * 1024 });
    const before = uploadsNow();
    const declared = await fetch(`${base}/api/upload?name=big.jsonl`, { method: 'POST', headers: as('maria'), body: 'x'.repeat(100 * 1024) });
    expect(declared.status).toBe(413);
    expect(((await declared.json()) as Result<unknown>).ok).toBe(false);
    // Streamed without a length: cut off once past the limit.
    const streamed = await fetch(`${base}/api/upload?name=big.jsonl`, {
      method: 'POST',
      headers: as('maria'),
      body: new ReadableStream({
        start(controller) {
          for (let i = 0; i < 10; i++) controller.enqueue(new TextEncoder().encode('y'.repeat(16 * 1024)));
          controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(streamed.status).toBe(413);
    expect(uploadsNow()).toEqual(before);
    expect((await fetch(`${base}/api/upload?name=small.jsonl`, { method: 'POST', headers: as('maria'), body: 'z'.repeat(1024) })).status).toBe(200);
  });

  it('removes uploads a day old when a server starts, and keeps newer ones', async () => {
    const base = await serve();
    const upload = async () => ((await (await fetch(`${base}/api/upload?name=f.jsonl`, { method: 'POST', headers: as('maria'), body: '{}' })).json()) as Result<{ upload: string }>);
    const old = await upload();
    const fresh = await upload();
    const folder = (result: Result<{ upload: string }>) => (result.ok ? /^upload:([0-9a-f-]{36})\//.exec(result.value.upload)![1]! : '');
    const twoDaysAgo = new Date(Date.now() - 2 * 86_400_000);
    // Nothing in it touched for two days.
    for (const file of [`uploads/${folder(old)}/f.jsonl`, `uploads/${folder(old)}`]) fs.utimesSync(tmp.file(file), twoDaysAgo, twoDaysAgo);
    await serve();
    expect(fs.existsSync(tmp.file(`uploads/${folder(old)}`))).toBe(false);
    expect(fs.existsSync(tmp.file(`uploads/${folder(fresh)}`))).toBe(true);
  });

  it('refuses a judgments file over 64 MB and a pack over 256 MB by their size, reading neither', async () => {
    const handlers = createHandlers(workbench);
    const judgments = tmp.file('huge-judgments.csv');
    fs.writeFileSync(judgments, 'campaign,instance_id,annotator,criterion,value\n');
    fs.truncateSync(judgments, 65 * 1024 * 1024);
    const refused = await dispatch(handlers, 'judgment:import', { campaignId: campaign.id, path: judgments });
    expect(refused).toMatchObject({ ok: false, error: { code: 'invalid_input', message: 'huge-judgments.csv is 65 MB, over the limit of 64 MB for judgments files; nothing was imported. Split it into smaller files.' } });
    const pack = tmp.file('huge.awbpack');
    fs.writeFileSync(pack, '{');
    fs.truncateSync(pack, 257 * 1024 * 1024);
    const packRefused = await dispatch(handlers, 'pack:import', { path: pack });
    expect(packRefused).toMatchObject({ ok: false, error: { code: 'invalid_input', message: expect.stringMatching(/^huge\.awbpack is 257 MB, over the limit of 256 MB for packs/) } });
  });
});

describe('team mode is chosen when the server starts', () => {
  it('keeps a loopback server without accounts open to its owner when an account is added under it, and the next start asks for sign-in', async () => {
    const db = tmp.file('owner.db');
    const home = { AWB_HOME: tmp.file('home') };
    const first = await startServer(['--db', db], home);
    try {
      const call = (url: string) => fetch(`${url}/api/team:status`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect((await call(first.url)).status).toBe(200);
      const added = await awbAsync(['team', 'account', 'add', 'maria', '--role', 'maintainer', '--db', db], home);
      expect(added.status).toBe(0);
      expect(added.stderr).toMatch(/A server already running keeps its mode/);
      const after = await call(first.url);
      expect(after.status).toBe(200);
      expect(((await after.json()) as Result<{ teamMode: boolean }>)).toMatchObject({ ok: true, value: { teamMode: false } });
      const second = await startServer(['--db', db], home);
      try {
        expect((await call(second.url)).status).toBe(401);
      } finally {
        await second.stop();
      }
    } finally {
      await first.stop();
    }
  }, 90_000);

  it('keeps a team server asking for sign-in when every account is disabled under it', async () => {
    const bench = new Workbench({ databasePath: tmp.file('lonely.db'), mode: 'browser', version: 'test' });
    try {
      const handlers = createHandlers(bench);
      await dispatch(handlers, 'account:create', { name: 'solo', role: 'maintainer' });
      const base = await serve({ db: bench });
      expect((await post(base, 'stats:get', {})).status).toBe(401);
      expect((await dispatch(handlers, 'account:disable', { name: 'solo' })).ok).toBe(true);
      expect((await post(base, 'stats:get', {})).status).toBe(401);
      const status = await post<{ teamMode: boolean }>(base, 'team:status', {});
      expect(status.status).toBe(401);
    } finally {
      bench.close();
    }
  });
});

describe('uploads seen from the network', () => {
  it('names an uploaded file by reference in the import\'s report, never by the server\'s folder', async () => {
    const base = await serve();
    const uploaded = (await (await fetch(`${base}/api/upload?name=judged.csv`, { method: 'POST', headers: as('maria'), body: 'campaign,instance_id,annotator,criterion,value\n' })).json()) as Result<{ upload: string }>;
    if (!uploaded.ok) throw new Error(uploaded.error.message);
    const imported = await post<{ file: string }>(base, 'judgment:import', { campaignId: campaign.id, path: uploaded.value.upload }, as('maria'));
    expect(imported.result.ok && imported.result.value.file).toBe(uploaded.value.upload);
    expect(JSON.stringify(imported.result)).not.toContain(path.resolve(tmp.file('uploads')));
  });
});

describe('a pack the owner opens in the browser', () => {
  it('is judged where it was uploaded, and its results are never swept away as an unused upload', async () => {
    const pack = tmp.file('alice.awbpack');
    const exported = await dispatch(createHandlers(workbench), 'pack:export', { campaignId: campaign.id, annotator: 'alice', path: pack });
    expect(exported.ok).toBe(true);
    // The owner's own server: loopback, no team mode.
    const base = await serveTeam(workbench, servers, { staticDir: tmp.file('static'), uploadDir: tmp.file('uploads') }, { team: undefined });
    const uploaded = (await (await fetch(`${base}/api/upload?name=alice.awbpack`, { method: 'POST', body: fs.readFileSync(pack) })).json()) as Result<{ upload: string }>;
    if (!uploaded.ok) throw new Error(uploaded.error.message);
    const session = { pack: uploaded.value.upload };
    const queue = await post<{ items: { instanceId: number }[] }>(base, 'judging:queue', { session });
    expect(queue.status).toBe(200);
    const instanceId = queue.result.ok ? queue.result.value.items[0]!.instanceId : 0;
    expect((await post(base, 'judging:decide', { session, instanceId, criterion: 'ambiguity', value: 'yes' })).status).toBe(200);
    const folder = tmp.file(`uploads/${/^upload:([0-9a-f-]{36})\//.exec(uploaded.value.upload)![1]!}`);
    expect(fs.readdirSync(folder).sort()).toEqual(['alice.awbpack', 'alice.awbpack.results.jsonl']);
    const weekAgo = new Date(Date.now() - 7 * 86_400_000);
    for (const name of [...fs.readdirSync(folder), '.']) fs.utimesSync(path.join(folder, name), weekAgo, weekAgo);
    await serveTeam(workbench, servers, { staticDir: tmp.file('static'), uploadDir: tmp.file('uploads') });
    expect(fs.existsSync(path.join(folder, 'alice.awbpack.results.jsonl'))).toBe(true);
  });
});

