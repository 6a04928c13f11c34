import fs from 'node:fs';
import { request as httpRequest, type Server } from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createCampaign } from '../../electron/services/annotation/campaigns';
import { createHandlers, Workbench } from '../../electron/services';
import { createHttpServer } from '../../electron/transport/http';
import { dispatch, type AccountView, type AuditEntry, type CampaignSummary, type CampaignView, type IssuedToken, type Result } from '../../shared/api';
import { awbAsync } from '../helpers/cli';
import { tempDir, writeFile } from '../helpers/db';
import { fillInstances } from '../helpers/synthetic';
import { closeServers, createAccounts, serveTeam } from '../helpers/team';

/**
 * `awb serve` in team mode, over real HTTP: who may call what, with which credentials, and what
 * the audit trail keeps. Accounts: maria (maintainer), alice and bob (annotators), vic (viewer).
 */

const tmp = tempDir('awb-team-http-');
let workbench: Workbench;
const servers: Server[] = [];
let base: string;
const tokens: Record<string, string> = {};
let blind: CampaignView;
let open: CampaignView;

function serve(options: { now?: () => Date; host?: string; publicOrigin?: string; trustedProxies?: string[] } = {}): Promise<string> {
  return serveTeam(workbench, servers, { staticDir: tmp.file('static'), uploadDir: tmp.file('uploads') }, {
    host: options.host ?? '127.0.0.1',
    team: { db: workbench.db, ...(options.now ? { now: options.now } : {}) },
    ...(options.publicOrigin ? { publicOrigin: options.publicOrigin } : {}),
    ...(options.trustedProxies ? { trustedProxies: options.trustedProxies } : {}),
  });
}

beforeAll(async () => {
  fs.mkdirSync(tmp.file('static'));
  writeFile(tmp.file('static/index.html'), '<!doctype html><title>app</title>');
  workbench = new Workbench({ databasePath: tmp.file('team.db'), mode: 'browser', version: 'test' });
  fillInstances(workbench.db, 80, 3);
  blind = createCampaign(workbench.db, { name: 'Blind', protocol: 'march-validation', annotators: ['alice', 'bob'], seed: 1, blind: true, selection: { types: ['semantic'], perType: 4 } });
  open = createCampaign(workbench.db, { name: 'Open', protocol: 'march-validation', annotators: ['alice', 'bob'], seed: 1, blind: false, selection: { types: ['syntactic'], perType: 4 } });
  Object.assign(
    tokens,
    await createAccounts(workbench, [
      ['maria', 'maintainer'],
      ['alice', 'annotator', 'correct horse battery'],
      ['bob', 'annotator'],
      ['vic', 'viewer'],
    ]),
  );
  base = await serve();
}, 60_000);

afterAll(() => {
  closeServers(servers);
  workbench.close();
  tmp.cleanup();
});

async function post<T>(name: string, body: unknown, headers: Record<string, string> = {}, at = base): Promise<{ status: number; result: Result<T>; headers: Headers }> {
  const response = await fetch(`${at}/api/${name}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: response.status, result: (await response.json()) as Result<T>, headers: response.headers };
}

const as = (name: string) => ({ authorization: `Bearer ${tokens[name]}` });

describe('who may come in', () => {
  it('refuses a call with no token, and a wrong token, with 401', async () => {
    const none = await post('instance:list', {});
    expect(none.status).toBe(401);
    expect(!none.result.ok && none.result.error.code).toBe('unauthorized');
    const wrong = await post('instance:list', {}, { authorization: `Bearer ${tokens.alice!.slice(0, -4)}AAAA` });
    expect(wrong.status).toBe(401);
    const garbage = await post('instance:list', {}, { authorization: 'Bearer nonsense' });
    expect(garbage.status).toBe(401);
    const events = await fetch(`${base}/api/events`);
    expect(events.status).toBe(401);
    await events.body?.cancel();
    const fine = await post('instance:list', {}, as('vic'));
    expect(fine.status).toBe(200);
    const info = await post<{ databasePath: string }>('app:info', {}, as('vic'));
    expect(info.result.ok && info.result.value.databasePath).toBe('team.db');
  });

  it('signs in with a password into an HttpOnly, SameSite=Strict session cookie; signing out ends it', async () => {
    const login = await post<{ account: { name: string } }>('session/login', { name: 'alice', password: 'correct horse battery' });
    expect(login.status).toBe(200);
    const cookie = login.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^awb_session=[\w-]{40,};/);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Strict');
    expect(cookie).not.toContain('Secure');
    const session = cookie.split(';')[0]!;
    const me = await post<{ me: { name: string; role: string } }>('team:status', {}, { cookie: session });
    expect(me.result.ok && me.result.value.me).toEqual({ id: expect.any(Number), name: 'alice', role: 'annotator' });
    // A cross-site page cannot use it: the Origin check refuses before anything runs.
    expect((await post('team:status', {}, { cookie: session, origin: 'http://evil.example' })).status).toBe(403);
    await post('session/logout', {}, { cookie: session });
    expect((await post('team:status', {}, { cookie: session })).status).toBe(401);
  });

  it('marks the cookie Secure behind a TLS reverse proxy the owner named, and believes no one else', async () => {
    const proxied = await serve({ trustedProxies: ['127.0.0.1'] });
    const login = await post('session/login', { token: tokens.vic }, { 'x-forwarded-proto': 'https' }, proxied);
    expect(login.headers.get('set-cookie')).toContain('Secure');
    // Without --trusted-proxy, anything on this machine could claim TLS: the header is ignored.
    const claimed = await post('session/login', { token: tokens.vic }, { 'x-forwarded-proto': 'https' });
    expect(claimed.status).toBe(200);
    expect(claimed.headers.get('set-cookie')).not.toContain('Secure');
  });

  it('behind a reverse proxy, accepts the public origin it was given and no other', async () => {
    const proxied = await serve({ publicOrigin: 'https://awb.example.org', trustedProxies: ['127.0.0.1'] });
    // fetch would set Host itself: send the exact headers a proxy forwards.
    const raw = (headers: Record<string, string>) =>
      new Promise<number>((resolve, reject) => {
        const request = httpRequest(`${proxied}/api/instance:list`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers } }, (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        });
        request.on('error', reject);
        request.end('{}');
      });
    const headers = { ...as('vic'), host: 'awb.example.org', origin: 'https://awb.example.org', 'x-forwarded-proto': 'https' };
    expect(await raw(headers)).toBe(200);
    expect(await raw({ ...headers, origin: 'https://evil.example' })).toBe(403);
    expect(await raw({ ...headers, host: 'evil.example' })).toBe(403);
  });

  it('limits failed sign-ins per account: the sixth try is refused even with the right password', async () => {
    for (let i = 0; i < 5; i++) expect((await post('session/login', { name: 'bob', password: `wrong password ${i}` })).status).toBe(401);
    const blocked = await post('session/login', { name: 'bob', password: 'whatever it is now' });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
  }, 30_000);

  it('limits failed sign-ins per address too, whatever names are tried', async () => {
    const proxied = await serve({ trustedProxies: ['127.0.0.1'] });
    const from = (address: string) => ({ 'x-forwarded-for': `198.51.100.77, ${address}` });
    for (let i = 0; i < 20; i++) expect((await post('session/login', { name: `guess-${i}`, password: 'not it at all' }, from('203.0.113.9'), proxied)).status).toBe(401);
    expect((await post('session/login', { name: 'someone-new', password: 'not it at all' }, from('203.0.113.9'), proxied)).status).toBe(429);
    // Another address is not held back by it.
    expect((await post('session/login', { name: 'someone-new', password: 'not it at all' }, from('203.0.113.10'), proxied)).status).toBe(401);
  }, 60_000);

  it('believes X-Forwarded-For only from a trusted proxy: otherwise the peer\'s address is limited, whatever the header says', async () => {
    const direct = await serve();
    for (let i = 0; i < 20; i++) {
      const status = (await post('session/login', { name: `spoof-${i}`, password: 'not it at all' }, { 'x-forwarded-for': `203.0.113.${i}` }, direct)).status;
      expect([401, 429]).toContain(status);
    }
    // Every try counted against 127.0.0.1, so a fresh "address" in the header gets no fresh start.
    expect((await post('session/login', { name: 'spoof-new', password: 'not it at all' }, { 'x-forwarded-for': '198.51.100.200' }, direct)).status).toBe(429);
  }, 60_000);

  it('refuses a revoked token at once, and an expired one, each with its reason', async () => {
    const handlers = createHandlers(workbench);
    const issued = (await dispatch(handlers, 'account:issue-token', { name: 'vic', label: 'short', expiresInDays: 1 })) as Result<IssuedToken>;
    if (!issued.ok) throw new Error(issued.error.message);
    const token = { authorization: `Bearer ${issued.value.token}` };
    expect((await post('instance:list', {}, token)).status).toBe(200);
    // Two days later, on a server whose clock says so.
    const later = await serve({ now: () => new Date(Date.now() + 2 * 86_400_000) });
    const expired = await post('instance:list', {}, token, later);
    expect(expired.status).toBe(401);
    expect(!expired.result.ok && expired.result.error.message).toMatch(/expired/);
    await dispatch(handlers, 'account:revoke-token', { tokenId: issued.value.tokenId });
    const revoked = await post('instance:list', {}, token);
    expect(revoked.status).toBe(401);
    expect(!revoked.result.ok && revoked.result.error.message).toMatch(/revoked/);
  });

  it('will not listen beyond loopback without accounts', () => {
    const empty = new Workbench({ databasePath: tmp.file('empty.db'), mode: 'browser', version: 'test' });
    try {
      expect(() =>
        createHttpServer({ handlers: createHandlers(empty), events: empty.events, staticDir: tmp.file('static'), uploadDir: tmp.file('up'), host: '0.0.0.0', port: 0, team: { db: empty.db } }),
      ).toThrow(/needs team mode/);
    } finally {
      empty.close();
    }
  });

  it('awb serve --host 0.0.0.0 on a database without accounts refuses to start, with a clear message', async () => {
    // Not spawnSync: this process's own servers must keep their connections meanwhile.
    const result = await awbAsync(['serve', '--host', '0.0.0.0', '--port', '0', '--db', tmp.file('cli-empty.db')]);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(/Refusing to listen on 0\.0\.0\.0: any address other than loopback needs team mode/);
  }, 60_000);
});

describe('what each role may do', () => {
  it('refuses an annotator calling a maintainer operation, and a viewer writing', async () => {
    for (const name of ['account:list', 'pipeline:start', 'dataset:seed-demo', 'release:create', 'sync:run', 'campaign:create']) {
      const refused = await post(name, {}, as('alice'));
      expect(refused.status, name).toBe(403);
      expect(!refused.result.ok && refused.result.error.code).toBe('forbidden');
    }
    const viewerJudges = await post('judging:decide', { session: { campaignId: open.id, annotator: 'vic' }, instanceId: open.items[0], criterion: 'ambiguity', value: 'yes' }, as('vic'));
    expect(viewerJudges.status).toBe(403);
    const upload = await fetch(`${base}/api/upload?name=x.json`, { method: 'POST', headers: as('alice'), body: '[]' });
    expect(upload.status).toBe(403);
    expect((await post('account:list', {}, as('maria'))).status).toBe(200);
  });

  it('refuses any server path in an operation\'s input from the network, even for a maintainer', async () => {
    const cases: [string, unknown][] = [
      ['dataset:import', { path: '/etc/passwd', format: 'musique' }],
      ['judgment:export', { campaignId: open.id, format: 'csv', path: '/tmp/stolen.csv' }],
      ['pack:export', { campaignId: open.id, annotator: 'alice', path: tmp.file('uploads/../escape.awbpack') }],
      ['judging:queue', { session: { pack: '/home/someone/pack.awbpack' } }],
      ['release:verify', { dir: '/' }],
    ];
    for (const [name, input] of cases) {
      const refused = await post(name, input, as('maria'));
      expect(refused.status, name).toBe(403);
      expect(!refused.result.ok && refused.result.error.message).toMatch(/names a file on the server/);
    }
    expect(fs.existsSync('/tmp/stolen.csv')).toBe(false);
  });

  it('accepts a file the maintainer uploaded as an import\'s input', async () => {
    const upload = await fetch(`${base}/api/upload?name=judgments.csv`, { method: 'POST', headers: as('maria'), body: 'instance_id,annotator,criterion,value\n' });
    const uploaded = (await upload.json()) as Result<{ upload: string }>;
    expect(uploaded.ok).toBe(true);
    const imported = await post<{ rows: number; committed: boolean; file: string }>('judgment:import', { campaignId: open.id, path: uploaded.ok ? uploaded.value.upload : '' }, as('maria'));
    // Past the gate, and read: the header-only file holds no rows. The reply names the upload, not its place.
    expect(imported.status).toBe(200);
    expect(imported.result.ok && imported.result.value).toMatchObject({ rows: 0, committed: true, file: expect.stringMatching(/^upload:[0-9a-f-]{36}\/judgments\.csv$/) });
  });

  it('lets an annotator judge only as themself, and see only their own share of a campaign', async () => {
    const mine = await post('judging:decide', { session: { campaignId: blind.id, annotator: 'alice' }, instanceId: blind.assignments.find((a) => a.annotator === 'alice')!.instanceId, criterion: 'ambiguity', value: 'yes' }, as('alice'));
    expect(mine.status).toBe(200);
    const theirs = await post('judging:item', { session: { campaignId: blind.id, annotator: 'alice' }, position: 0 }, as('bob'));
    expect(theirs.status).toBe(403);
    expect(!theirs.result.ok && theirs.result.error.message).toMatch(/bob may judge only as bob/);
    const list = await post<CampaignSummary[]>('campaign:list', {}, as('bob'));
    expect(list.result.ok && list.result.value.map((c) => c.name).sort()).toEqual(['Blind', 'Open']);
    const view = await post<CampaignView>('campaign:get', { id: blind.id }, as('bob'));
    expect(view.result.ok && new Set(view.result.value.assignments.map((a) => a.annotator))).toEqual(new Set(['bob']));
    expect(view.result.ok && view.result.value.progress.map((p) => p.annotator)).toEqual(['bob']);
  });

  it('hides other people\'s judgments of a blind campaign from an annotator, not of an open one', async () => {
    const blindRead = await post('agreement:disagreements', { campaignId: blind.id }, as('bob'));
    expect(blindRead.status).toBe(403);
    expect(!blindRead.result.ok && blindRead.result.error.message).toMatch(/blind/);
    expect((await post('agreement:get', { campaignId: blind.id }, as('bob'))).status).toBe(403);
    expect((await post('agreement:disagreements', { campaignId: open.id }, as('bob'))).status).toBe(200);
    // A blind campaign's agreement is for maintainers only: a viewer may see that of an open one.
    expect((await post('agreement:disagreements', { campaignId: blind.id }, as('vic'))).status).toBe(403);
    expect((await post('agreement:get', { campaignId: open.id, resamples: 0 }, as('vic'))).status).toBe(200);
    expect((await post('agreement:get', { campaignId: blind.id, resamples: 0 }, as('maria'))).status).toBe(200);
  });
});

describe('the audit trail', () => {
  it('records who wrote what and when, lists it per person for a maintainer, and keeps secrets and paths out', async () => {
    const audit = await post<AuditEntry[]>('account:audit', { name: 'alice' }, as('maria'));
    expect(audit.result.ok).toBe(true);
    const rows = audit.result.ok ? audit.result.value : [];
    const decided = rows.find((r) => r.operation === 'judging:decide' && r.ok);
    expect(decided).toMatchObject({ account: 'alice', role: 'annotator', summary: expect.objectContaining({ criterion: 'ambiguity', value: 'yes' }) });
    expect(Date.parse(decided!.at)).toBeGreaterThan(Date.now() - 600_000);
    // Refused writes are recorded too.
    expect(rows.some((r) => r.operation === 'pipeline:start' && !r.ok)).toBe(true);
    const maria = await post<AuditEntry[]>('account:audit', { name: 'maria' }, as('maria'));
    const exported = maria.result.ok ? maria.result.value.find((r) => r.operation === 'judgment:export') : undefined;
    expect(exported?.summary.path).toBe('stolen.csv');
    const people = await post<AccountView[]>('account:list', {}, as('maria'));
    const alice = people.result.ok ? people.result.value.find((a) => a.name === 'alice') : undefined;
    expect(alice?.writes).toBeGreaterThanOrEqual(1);
    expect(alice?.tokens[0]).not.toHaveProperty('hash');
    expect(JSON.stringify(people.result)).not.toContain(tokens.alice!.replace(/^awb_\d+_/, ''));
    expect((await post('account:audit', {}, as('alice'))).status).toBe(403);
  });

  it('keeps tokens and passwords only as argon2id hashes', () => {
    const rows = workbench.db.prepare('SELECT hash FROM account_tokens').all() as { hash: string }[];
    expect(rows.every((r) => r.hash.startsWith('$argon2id$'))).toBe(true);
    const file = fs.readFileSync(path.join(tmp.dir, 'team.db'));
    expect(file.includes(Buffer.from(tokens.alice!.replace(/^awb_\d+_/, '')))).toBe(false);
    expect(file.includes(Buffer.from('correct horse battery'))).toBe(false);
  });
});

describe('files going out', () => {
  it('sends an export as a download to a maintainer, never naming a server path, and audits it', async () => {
    const download = (name: string, body: unknown, headers: Record<string, string>) =>
      fetch(`${base}/api/download/${name}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
    const judged = await post('judging:decide', { session: { campaignId: open.id, annotator: 'alice' }, instanceId: open.items[0], criterion: 'ambiguity', value: 'yes' }, as('alice'));
    expect(judged.result.ok).toBe(true);

    const csv = await download('judgment:export', { campaignId: open.id, format: 'csv' }, as('maria'));
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-disposition')).toBe('attachment; filename="judgment.csv"');
    const text = await csv.text();
    expect(text.split(/\r?\n/)[0]).toBe('campaign,instance_id,annotator,criterion,value,comment,created_at');
    expect(text).toContain(`${open.id},${open.items[0]},alice,ambiguity,yes`);

    // A job (the dataset export) is waited for; the file is gone from the server afterwards.
    const records = await download('dataset:export', {}, as('maria'));
    expect(records.status).toBe(200);
    expect((await records.text()).trim().split('\n').length).toBeGreaterThan(0);
    // The server removes its copy once the file is sent (just after the response ends).
    const downloads = path.join(tmp.dir, 'downloads');
    await vi.waitFor(() => expect(fs.readdirSync(downloads)).toEqual([]), { timeout: 10_000, interval: 10 });

    const smuggled = await download('judgment:export', { campaignId: open.id, format: 'csv', path: '/tmp/elsewhere.csv' }, as('maria'));
    expect(smuggled.status).toBe(403);
    expect(fs.existsSync('/tmp/elsewhere.csv')).toBe(false);
    expect((await download('judgment:export', { campaignId: open.id, format: 'csv' }, as('alice'))).status).toBe(403);
    expect((await download('judgment:export', { campaignId: open.id, format: 'csv' }, {})).status).toBe(401);
    expect((await download('protocol:save', {}, as('maria'))).status).toBe(404);

    const trail = await post<AuditEntry[]>('account:audit', { name: 'maria' }, as('maria'));
    expect(trail.result.ok && trail.result.value.some((e) => e.operation === 'judgment:export' && e.ok)).toBe(true);
  });
});
