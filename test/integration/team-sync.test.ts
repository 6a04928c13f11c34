import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../db/connection';
import { auditPage } from '../../db/queries/audit';
import { insertJudgment, openConflicts } from '../../db/queries/judgments';
import { all, get, run, sql, transaction, type WritableDB } from '../../db/sql';
import { campaignView, createCampaign } from '../../electron/services/annotation/campaigns';
import { DatabaseJudging } from '../../electron/services/annotation/judging';
import { saveProtocol } from '../../electron/services/annotation/protocols';
import { instanceDetail } from '../../electron/services/browse';
import { readInstanceRecord } from '../../electron/services/record-reader';
import { WriteContext, writeRecord } from '../../electron/services/record-writer';
import { configureSync, removeStoreCampaign, runSync, syncStatus } from '../../electron/services/team/sync';
import type { CampaignView } from '../../shared/api';
import { AwbRecord } from '../../shared/awb-format';
import { richRecord } from '../helpers/release-fixture';
import { AWB, awb, awbJson } from '../helpers/cli';
import { ROOT, tempDir } from '../helpers/db';
import { lockTable, PG_PASSWORD, startCluster, type PgCluster } from '../helpers/postgres';
import { fillInstances } from '../helpers/synthetic';

/**
 * Sync through a real PostgreSQL (a throwaway cluster): desktops judging one campaign offline,
 * syncing in either order, interrupted by kill -9 or by the server going away, a campaign deleted
 * on the server, and clocks that disagree. Every case checks that no judgment is lost or stored twice.
 * Then desktops that start empty: the campaigns they are assigned in arrive whole (or not at all).
 */

const tmp = tempDir('awb-team-sync-');
let cluster: PgCluster;
let store = 0;
const opened: WritableDB[] = [];

beforeAll(async () => {
  // As a desktop would: the store's password comes from the environment, never the database.
  process.env.PGPASSWORD = PG_PASSWORD;
  cluster = await startCluster();
}, 120_000);
afterAll(async () => {
  for (const db of opened) if (db.open) db.close();
  await cluster?.destroy();
  tmp.cleanup();
});

/** A fresh database on the cluster, so each case starts from an empty store. */
async function freshStore(): Promise<string> {
  const name = `store_${++store}`;
  await cluster.createDatabase(name);
  return cluster.url(name);
}

function open(file: string): WritableDB {
  const db = openDatabase(file);
  opened.push(db);
  return db;
}

/** The maintainer's database with a campaign for alice and bob; desktops start as copies of it. */
function maintainerDb(name: string, blind: boolean, count = 60): { file: string; db: WritableDB; campaign: CampaignView } {
  const file = tmp.file(`${name}.db`);
  const db = open(file);
  fillInstances(db, count, 5);
  const campaign = createCampaign(db, { name: `Campaign ${name}`, protocol: 'march-validation', annotators: ['alice', 'bob'], seed: 2, blind, selection: { types: ['semantic'], perType: 6 } });
  return { file, db, campaign };
}

function copyOf(source: string, name: string): { file: string; db: WritableDB } {
  const file = tmp.file(`${name}.db`);
  // The maintainer's database is open in WAL mode: fold the log in before copying the file.
  opened.find((db) => db.open && db.name === source)?.pragma('wal_checkpoint(TRUNCATE)');
  fs.copyFileSync(source, file);
  return { file, db: open(file) };
}

function judge(db: WritableDB, campaign: CampaignView, annotator: string, value: string, criterion = 'ambiguity', limit = Infinity): number {
  const judging = new DatabaseJudging(db, campaign.id, annotator);
  let n = 0;
  for (const item of judging.queue().items.slice(0, limit)) {
    judging.decide({ instanceId: item.instanceId, criterion, value, comment: '', itemMs: 1000 });
    n++;
  }
  return n;
}

function judgmentsOf(db: WritableDB, annotator?: string): { uid: string; value: string | null; conflict: number }[] {
  return all(
    db,
    sql`SELECT j.uid, j.value, j.conflict FROM judgments j JOIN assignments s ON s.id = j.assignment_id JOIN annotators a ON a.id = s.annotator_id
        WHERE ${annotator ?? null} IS NULL OR a.name = ${annotator ?? null} ORDER BY j.uid`,
  );
}

async function storeCount(url: string): Promise<{ total: number; distinct: number }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const r = await client.query<{ total: string; distinct: string }>('SELECT count(*)::text AS total, count(DISTINCT uid)::text AS distinct FROM awb_judgments');
    return { total: Number(r.rows[0]!.total), distinct: Number(r.rows[0]!.distinct) };
  } catch (error) {
    if ((error as { code?: string }).code === '42P01') return { total: 0, distinct: 0 };
    throw error;
  } finally {
    await client.end();
  }
}

/** Many judgments at once (alice's items, one criterion, appended over and over). */
function bulkJudgments(db: WritableDB, campaignId: number, annotator: string, count: number): void {
  const assignments = all<{ id: number }>(
    db,
    sql`SELECT s.id FROM assignments s JOIN annotators a ON a.id = s.annotator_id WHERE s.campaign_id = ${campaignId} AND a.name = ${annotator}`,
  );
  transaction(db, () => {
    for (let i = 0; i < count; i++) {
      insertJudgment(db, {
        uid: randomUUID(),
        assignmentId: assignments[i % assignments.length]!.id,
        criterion: 'ambiguity',
        value: i % 2 ? 'yes' : 'no',
        comment: '',
        source: 'app',
        itemMs: 10,
        createdAt: new Date().toISOString(),
      });
    }
  });
}

describe('two desktops judging one campaign offline', () => {
  for (const order of [
    ['alice', 'bob'],
    ['bob', 'alice'],
  ] as const) {
    it(`sync in the order ${order.join(' then ')}: every judgment reaches the store and the maintainer once`, async () => {
      const url = await freshStore();
      const m = maintainerDb(`order-${order[0]}`, false);
      const desktops = { alice: copyOf(m.file, `order-${order[0]}-alice`), bob: copyOf(m.file, `order-${order[0]}-bob`) };
      configureSync(m.db, { postgres: url, role: 'maintainer', annotator: 'maria' });
      await runSync(m.db);
      for (const name of ['alice', 'bob'] as const) configureSync(desktops[name].db, { postgres: url, role: 'annotator', annotator: name });
      const made = { alice: judge(desktops.alice.db, m.campaign, 'alice', 'yes'), bob: judge(desktops.bob.db, m.campaign, 'bob', 'no') };
      expect(made.alice).toBeGreaterThan(3);

      const first = await runSync(desktops[order[0]].db);
      expect(first.pushed).toBe(made[order[0]]);
      const second = await runSync(desktops[order[1]].db);
      expect(second.pushed).toBe(made[order[1]]);
      // The campaign is not blind: the second desktop got the first one's judgments at once.
      expect(second.pulled).toBe(made[order[0]]);
      const again = await runSync(desktops[order[0]].db);
      expect(again.pushed).toBe(0);
      expect(again.pulled).toBe(made[order[1]]);
      // Repeating changes nothing.
      const idle = await runSync(desktops[order[0]].db);
      expect([idle.pushed, idle.pulled, idle.conflicts]).toEqual([0, 0, 0]);

      await runSync(m.db);
      const all = made.alice + made.bob;
      expect(await storeCount(url)).toEqual({ total: all, distinct: all });
      for (const db of [m.db, desktops.alice.db, desktops.bob.db]) {
        const rows = judgmentsOf(db);
        expect(rows).toHaveLength(all);
        expect(new Set(rows.map((r) => r.uid)).size).toBe(all);
        expect(rows.filter((r) => r.conflict).length).toBe(0);
      }
      expect(judgmentsOf(m.db, 'alice').every((r) => r.value === 'yes')).toBe(true);
      expect(judgmentsOf(m.db, 'bob').every((r) => r.value === 'no')).toBe(true);
      expect(syncStatus(desktops.alice.db).pending).toBe(0);
      // The maintainer's audit trail names who made what came in.
      for (const name of ['alice', 'bob'] as const) {
        const pulls = auditPage(m.db, { account: name, offset: 0, limit: 10 }).filter((r) => r.operation === 'sync:pull');
        expect(pulls.reduce((n, r) => n + Number(r.summary.judgments), 0)).toBe(made[name]);
      }
    }, 60_000);
  }

  it('a blind campaign: an annotator desktop never pulls another annotator\'s judgments; the maintainer gets all', async () => {
    const url = await freshStore();
    const m = maintainerDb('blind', true);
    const alice = copyOf(m.file, 'blind-alice');
    const bob = copyOf(m.file, 'blind-bob');
    configureSync(m.db, { postgres: url, role: 'maintainer' });
    await runSync(m.db);
    configureSync(alice.db, { postgres: url, role: 'annotator', annotator: 'alice' });
    configureSync(bob.db, { postgres: url, role: 'annotator', annotator: 'bob' });
    const a = judge(alice.db, m.campaign, 'alice', 'yes');
    const b = judge(bob.db, m.campaign, 'bob', 'no');
    await runSync(alice.db);
    await runSync(bob.db);
    await runSync(alice.db);
    expect(judgmentsOf(alice.db, 'bob')).toHaveLength(0);
    expect(judgmentsOf(bob.db, 'alice')).toHaveLength(0);
    await runSync(m.db);
    expect(judgmentsOf(m.db)).toHaveLength(a + b);
  }, 60_000);

  it('the same annotator on two desktops: a later edit is not a conflict, two edits made apart are, and both stay in the history', async () => {
    const url = await freshStore();
    const m = maintainerDb('twice', false);
    const laptop = copyOf(m.file, 'twice-laptop');
    const desk = copyOf(m.file, 'twice-desk');
    configureSync(m.db, { postgres: url, role: 'maintainer' });
    await runSync(m.db);
    configureSync(laptop.db, { postgres: url, role: 'annotator', annotator: 'alice' });
    configureSync(desk.db, { postgres: url, role: 'annotator', annotator: 'alice' });
    // Sequential: the laptop decides, the desk sees it and changes it.
    judge(laptop.db, m.campaign, 'alice', 'yes', 'ambiguity', 1);
    await runSync(laptop.db);
    await runSync(desk.db);
    judge(desk.db, m.campaign, 'alice', 'no', 'ambiguity', 1);
    await runSync(desk.db);
    const calm = await runSync(laptop.db);
    expect(calm.pulled).toBe(1);
    expect(calm.conflicts).toBe(0);
    // Apart: both decide the same criterion offline, differently.
    judge(laptop.db, m.campaign, 'alice', 'yes', 'clarification', 1);
    judge(desk.db, m.campaign, 'alice', 'no', 'clarification', 1);
    await runSync(laptop.db);
    const clash = await runSync(desk.db);
    expect(clash.conflicts).toBe(1);
    expect(clash.warnings.join(' ')).toMatch(/adjudicate/);
    const back = await runSync(laptop.db);
    expect(back.conflicts).toBe(1);
    await runSync(m.db);
    // The maintainer sees the clash as an open conflict, to adjudicate.
    const flagged = get<{ n: number }>(m.db, sql`SELECT count(*) AS n FROM judgments WHERE conflict = 1`)!.n;
    expect(flagged).toBe(1);
    expect(openConflicts(m.db, m.campaign.id)).toEqual([expect.objectContaining({ criterion: 'clarification', annotator: 'alice' })]);
    expect(judgmentsOf(m.db)).toHaveLength(4);
    expect(await storeCount(url)).toEqual({ total: 4, distinct: 4 });
  }, 60_000);
});

describe('the CLI', () => {
  it('awb team init sets a database up without keeping the password, syncs, and team status tells the state', async () => {
    const url = await freshStore();
    const m = maintainerDb('cli', false);
    m.db.close();
    const env = { PGPASSWORD: PG_PASSWORD };
    const init = awb(['team', 'init', '--postgres', url.replace(`:${PG_PASSWORD}@`, '@'), '--role', 'maintainer', '--db', m.file, '--json'], env);
    expect(init.status, init.stderr).toBe(0);
    expect(JSON.parse(init.stdout)).toMatchObject({ pushed: 0, campaigns: 1 });
    const status = awbJson<{ sync: { configured: boolean; store: string; role: string; lastSyncAt: string | null } }>(['team', 'status', '--db', m.file]);
    expect(status.json.sync).toMatchObject({ configured: true, role: 'maintainer', store: url.replace(`:${PG_PASSWORD}@`, '@') });
    expect(status.json.sync.lastSyncAt).not.toBeNull();
    // Without the password, a clear message saying where it comes from.
    const noPassword = awb(['team', 'sync', '--db', m.file], { PGPASSWORD: '' });
    expect(noPassword.status).toBe(1);
    expect(noPassword.stderr).toMatch(/asks for a password: set PGPASSWORD/);
    expect(fs.readFileSync(m.file).includes(Buffer.from(PG_PASSWORD))).toBe(false);
    const added = awbJson<{ token: string }>(['team', 'account', 'add', 'maria', '--role', 'maintainer', '--db', m.file]);
    expect(added.json.token).toMatch(/^awb_\d+_/);
    const people = awbJson<{ name: string; role: string }[]>(['team', 'account', 'list', '--db', m.file]);
    expect(people.json).toEqual([expect.objectContaining({ name: 'maria', role: 'maintainer' })]);
  }, 120_000);
});

describe('bad input and interruptions', () => {
  it('a sync killed with kill -9 half-way leaves both sides consistent, and the next sync stores each judgment once', async () => {
    const url = await freshStore();
    const m = maintainerDb('killed', false);
    const alice = copyOf(m.file, 'killed-alice');
    configureSync(m.db, { postgres: url, role: 'maintainer' });
    await runSync(m.db);
    const bare = url.replace(`:${PG_PASSWORD}@`, '@');
    configureSync(alice.db, { postgres: bare, role: 'annotator', annotator: 'alice' });
    const N = 80_000;
    bulkJudgments(alice.db, m.campaign.id, 'alice', N);
    alice.db.close();

    // The store's judgment table is locked against writers: the push of 80,000 judgments starts
    // and waits there, and the kill lands while it is under way.
    const lock = await lockTable(url, 'awb_judgments', 'SHARE');
    const child = spawn(process.execPath, [AWB, 'team', 'sync', '--db', alice.file], { cwd: ROOT, env: { ...process.env, PGPASSWORD: PG_PASSWORD } });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<NodeJS.Signals | null>((r) => child.once('exit', (_code, signal) => r(signal)));
    await Promise.race([lock.waited(), exited.then(() => Promise.reject(new Error(`sync ended before it could be killed: ${stderr}`)))]);
    expect(child.exitCode).toBeNull();
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    await lock.release();

    const partial = await storeCount(url);
    // The push is one transaction: all of it or none of it.
    expect([0, N]).toContain(partial.total);
    const reopened = open(alice.file);
    expect(judgmentsOf(reopened)).toHaveLength(N);
    const report = await runSync(reopened, { env: { ...process.env, PGPASSWORD: PG_PASSWORD } });
    expect(report.pushed + report.alreadyOnServer).toBe(N);
    expect(await storeCount(url)).toEqual({ total: N, distinct: N });
    expect(judgmentsOf(reopened)).toHaveLength(N);
    // The store's password was never written to the SQLite file.
    reopened.close();
    expect(fs.readFileSync(alice.file).includes(Buffer.from(PG_PASSWORD))).toBe(false);
  }, 120_000);

  it('PostgreSQL going away mid-sync: a clear message, nothing half-written, and the next sync completes', async () => {
    const url = await freshStore();
    const m = maintainerDb('gone', false);
    const alice = copyOf(m.file, 'gone-alice');
    configureSync(m.db, { postgres: url, role: 'maintainer' });
    await runSync(m.db);
    configureSync(alice.db, { postgres: url, role: 'annotator', annotator: 'alice' });
    const N = 150_000;
    bulkJudgments(alice.db, m.campaign.id, 'alice', N);
    // The push waits on a lock the test holds; the cluster is stopped while it waits.
    const lock = await lockTable(url, 'awb_judgments', 'SHARE');
    const syncing = runSync(alice.db).then(
      () => null,
      (error: Error) => error,
    );
    await lock.waited();
    await cluster.stop('immediate');
    const failed = await syncing;
    await lock.release();
    expect(failed?.message).toMatch(/went away|Cannot reach/);
    expect(failed?.message).not.toContain(PG_PASSWORD);
    expect(syncStatus(alice.db).lastError).toMatch(/went away|Cannot reach/);
    expect(syncStatus(alice.db).pending).toBe(N);
    // While it is down: a clear message, work goes on offline.
    await expect(runSync(alice.db)).rejects.toThrow(/Cannot reach the shared store/);
    await cluster.start();
    expect((await storeCount(url)).total).toBe(0);
    const report = await runSync(alice.db);
    expect(report.pushed).toBe(N);
    expect(await storeCount(url)).toEqual({ total: N, distinct: N });
    expect(syncStatus(alice.db).lastError).toBeNull();
  }, 120_000);

  it('a desktop whose campaign was deleted on the server keeps its judgments and is told so', async () => {
    const url = await freshStore();
    const m = maintainerDb('deleted', false);
    const alice = copyOf(m.file, 'deleted-alice');
    configureSync(m.db, { postgres: url, role: 'maintainer' });
    await runSync(m.db);
    configureSync(alice.db, { postgres: url, role: 'annotator', annotator: 'alice' });
    const made = judge(alice.db, m.campaign, 'alice', 'yes');
    await removeStoreCampaign(m.db, m.campaign.uid);
    const report = await runSync(alice.db);
    expect(report.pushed).toBe(0);
    expect(report.deletedOnServer).toEqual([{ uid: m.campaign.uid, name: m.campaign.name, heldJudgments: made }]);
    expect(report.warnings.join(' ')).toMatch(/was deleted on the shared store/);
    expect(judgmentsOf(alice.db)).toHaveLength(made);
    // The maintainer's next sync does not bring it back.
    await runSync(m.db);
    expect((await runSync(alice.db)).deletedOnServer).toHaveLength(1);
  }, 60_000);

  it('clocks that disagree: a warning with the skew, and judgments ordered by arrival, each stored once', async () => {
    const url = await freshStore();
    const m = maintainerDb('skew', false);
    const alice = copyOf(m.file, 'skew-alice');
    configureSync(m.db, { postgres: url, role: 'maintainer' });
    await runSync(m.db);
    configureSync(alice.db, { postgres: url, role: 'annotator', annotator: 'alice' });
    const made = judge(alice.db, m.campaign, 'alice', 'yes');
    const ahead = await runSync(alice.db, { now: () => new Date(Date.now() + 3 * 3600_000) });
    expect(ahead.clockSkewSeconds).toBeGreaterThan(3 * 3600 - 60);
    expect(ahead.warnings.join(' ')).toMatch(/ahead of the shared store/);
    expect(ahead.pushed).toBe(made);
    const behind = await runSync(alice.db, { now: () => new Date(Date.now() - 7200_000) });
    expect(behind.clockSkewSeconds).toBeLessThan(-7000);
    expect(behind.pushed).toBe(0);
    expect(await storeCount(url)).toEqual({ total: made, distinct: made });
  }, 60_000);
});

// ---- desktops that start empty -----------------------------------------------------------------

/** A maintainer database whose instances carry interpretations, answers, evidence and passages. */
function richMaintainer(name: string, count = 12): { file: string; db: WritableDB } {
  const file = tmp.file(`${name}.db`);
  const db = open(file);
  writeRich(db, Array.from({ length: count }, (_, i) => i));
  return { file, db };
}

function writeRich(db: WritableDB, indexes: readonly number[]): void {
  transaction(db, () => {
    const context = new WriteContext(db, 'test');
    for (const i of indexes) writeRecord(context, AwbRecord.parse(richRecord(i)));
  });
}

function emptyDesktop(name: string): { file: string; db: WritableDB } {
  const file = tmp.file(`${name}.db`);
  return { file, db: open(file) };
}

/** Instance ids by stable key (dataset / source id / type), as releases and sync key them. */
function idsByKey(db: WritableDB): Map<string, number> {
  const rows = all<{ id: number; key: string }>(
    db,
    sql`SELECT i.id, d.name || '/' || b.source_id || '/' || i.ambiguity_type AS key
        FROM instances i JOIN base_questions b ON b.id = i.base_question_id JOIN datasets d ON d.id = b.dataset_id`,
  );
  return new Map(rows.map((r) => [r.key, r.id]));
}

function count(db: WritableDB, table: 'instances' | 'base_questions' | 'passages' | 'campaigns' | 'assignments' | 'protocols' | 'interpretations'): number {
  return (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
}

/** The detail view without this database's own row ids. */
function withoutIds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutIds);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).filter(([k]) => k !== 'id' && !/Id$/.test(k) && k !== 'createdAt' && k !== 'updatedAt').map(([k, v]) => [k, withoutIds(v)]));
  }
  return value;
}

function campaignOf(db: WritableDB, uid: string): CampaignView | undefined {
  const row = get<{ id: number }>(db, sql`SELECT id FROM campaigns WHERE uid = ${uid}`);
  return row && campaignView(db, row.id);
}

async function storeRows(url: string, query: string): Promise<Record<string, unknown>[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(query)).rows as Record<string, unknown>[];
  } finally {
    await client.end();
  }
}

describe('a desktop that starts empty', () => {
  it('team init as an annotator brings the campaign, its instances and the queue; judgments flow both ways; a second sync changes nothing', async () => {
    const url = await freshStore();
    const m = richMaintainer('empty-m');
    const campaign = createCampaign(m.db, { name: 'Rivers', protocol: 'march-validation', annotators: ['alice', 'bob'], perInstance: 1, seed: 3, blind: false, selection: { types: ['semantic', 'constraint'] } });
    expect(campaign.items.length).toBe(12);
    configureSync(m.db, { postgres: url, role: 'maintainer', annotator: 'maria' });
    await runSync(m.db);

    // alice's laptop: a database with nothing in it.
    const alice = emptyDesktop('empty-alice');
    expect(count(alice.db, 'instances')).toBe(0);
    alice.db.close();
    const init = awb(['team', 'init', '--postgres', cluster.bareUrl(url.split('/').at(-1)), '--role', 'annotator', '--annotator', 'alice', '--db', alice.file, '--json'], { PGPASSWORD: PG_PASSWORD });
    expect(init.status, init.stderr).toBe(0);
    expect(JSON.parse(init.stdout)).toMatchObject({ campaigns: 1, notHeld: [] });
    const a = open(alice.file);

    const received = campaignOf(a, campaign.uid)!;
    expect(received).toBeDefined();
    expect({ name: received.name, blind: received.blind, seed: received.seed, perInstance: received.perInstance, annotators: received.annotators }).toEqual({
      name: 'Rivers',
      blind: false,
      seed: 3,
      perInstance: 1,
      annotators: ['alice', 'bob'],
    });
    expect([received.protocol.key, received.protocol.version, received.protocol.criteria]).toEqual([campaign.protocol.key, campaign.protocol.version, campaign.protocol.criteria]);
    // Every instance (the campaign is not blind: others' judgments name them too), no more.
    expect(count(a, 'instances')).toBe(12);
    const mine = idsByKey(a);
    const theirs = idsByKey(m.db);
    const keyOfTheirs = new Map([...theirs].map(([k, id]) => [id, k]));
    const keyOfMine = new Map([...mine].map(([k, id]) => [id, k]));
    expect(received.items.map((id) => keyOfMine.get(id))).toEqual(campaign.items.map((id) => keyOfTheirs.get(id)));
    const assignments = (view: CampaignView, keys: Map<number, string>) => view.assignments.map((s) => `${s.annotator} ${s.position} ${keys.get(s.instanceId)}`).sort();
    expect(assignments(received, keyOfMine)).toEqual(assignments(campaign, keyOfTheirs));
    // Each instance reads the same here as on the maintainer's desktop.
    for (const [key, id] of theirs) {
      const here = mine.get(key)!;
      expect(readInstanceRecord(a, here)).toEqual(readInstanceRecord(m.db, id));
      const detail = instanceDetail(a, here);
      expect(withoutIds(detail)).toEqual(withoutIds(instanceDetail(m.db, id)));
      expect(detail.interpretations[0]!.shortAnswer).toMatchObject({ text: 'Medway' });
      expect(detail.evidence.map((e) => e.passage.text)).toEqual(['The Medway flows through Kent.', 'Mill towns grew along rivers.']);
    }
    // Her own queue, as the maintainer assigned it.
    const queue = new DatabaseJudging(a, received.id, 'alice').queue().items;
    expect(queue.map((i) => keyOfMine.get(i.instanceId))).toEqual(new DatabaseJudging(m.db, campaign.id, 'alice').queue().items.map((i) => keyOfTheirs.get(i.instanceId)));
    expect(queue.length).toBe(6);

    // alice judges offline, syncs; the maintainer gets her judgments on the right instances.
    const made = judge(a, received, 'alice', 'yes');
    const pushed = await runSync(a, { env: { ...process.env, PGPASSWORD: PG_PASSWORD } });
    expect(pushed.pushed).toBe(made);
    const pulled = await runSync(m.db);
    expect(pulled.pulled).toBe(made);
    const judgedKeys = (db: WritableDB, keys: Map<number, string>) =>
      all<{ instance_id: number; value: string }>(
        db,
        sql`SELECT s.instance_id, j.value FROM judgments j JOIN assignments s ON s.id = j.assignment_id JOIN annotators n ON n.id = s.annotator_id WHERE n.name = 'alice'`,
      )
        .map((r) => `${keys.get(r.instance_id)} ${r.value}`)
        .sort();
    expect(judgedKeys(m.db, keyOfTheirs)).toEqual(judgedKeys(a, keyOfMine));
    expect(judgedKeys(m.db, keyOfTheirs)).toHaveLength(made);

    // bob judges on the maintainer's copy of his queue; alice (not blind) receives them.
    const bobMade = judge(m.db, campaign, 'bob', 'no');
    await runSync(m.db);
    const back = await runSync(a, { env: { ...process.env, PGPASSWORD: PG_PASSWORD } });
    expect(back.pulled).toBe(bobMade);

    // A second round changes nothing on either side, and the store keeps each record once.
    const before = { instances: count(a, 'instances'), passages: count(a, 'passages'), assignments: count(a, 'assignments'), campaigns: count(a, 'campaigns'), protocols: count(a, 'protocols') };
    const stamps = await storeRows(url, 'SELECT key, updated_at FROM awb_instances ORDER BY key');
    expect(stamps).toHaveLength(12);
    for (const db of [m.db, a]) {
      const idle = await runSync(db, { env: { ...process.env, PGPASSWORD: PG_PASSWORD } });
      expect([idle.pushed, idle.pulled, idle.assignmentsPulled, idle.conflicts]).toEqual([0, 0, 0, 0]);
    }
    expect({ instances: count(a, 'instances'), passages: count(a, 'passages'), assignments: count(a, 'assignments'), campaigns: count(a, 'campaigns'), protocols: count(a, 'protocols') }).toEqual(before);
    expect(await storeRows(url, 'SELECT key, updated_at FROM awb_instances ORDER BY key')).toEqual(stamps);

    // An instance the maintainer changes is replaced on the store, and only that one.
    const changedId = campaign.items[0]!;
    run(m.db, sql`UPDATE interpretations SET clarified_question = 'Which river runs past the mill town in Maine?' WHERE instance_id = ${changedId} AND position = 1`);
    await runSync(m.db);
    const after = await storeRows(url, 'SELECT key, updated_at FROM awb_instances ORDER BY key');
    const moved = after.filter((row, i) => (row.updated_at as Date).getTime() !== (stamps[i]!.updated_at as Date).getTime()).map((row) => row.key);
    expect(moved).toEqual([keyOfTheirs.get(changedId)]);
  }, 120_000);

  it('a desktop receives only the campaigns it is assigned in; of a blind one only its own instances; instances it holds are reused', async () => {
    const url = await freshStore();
    const m = richMaintainer('assigned-m', 16);
    const ids = [...idsByKey(m.db).values()].sort((x, y) => x - y);
    const open_ = createCampaign(m.db, { name: 'Open', protocol: 'march-validation', annotators: ['alice'], seed: 1, blind: false, selection: { instanceIds: ids.slice(0, 6) } });
    // A protocol of the maintainer's own, at its second version.
    const river = (label: string) => ({ key: 'river-check', name: 'River check', criteria: [{ id: 'ambiguity', label, question: 'Does the question allow more than one interpretation?', scale: { kind: 'yesno' } }] });
    saveProtocol(m.db, river('Is it ambiguous?'));
    const v2 = saveProtocol(m.db, river('Is the question ambiguous as stated?'));
    expect(v2.version).toBe(2);
    const blind = createCampaign(m.db, { name: 'Blind', protocol: 'river-check', annotators: ['carol', 'dan'], perInstance: 1, seed: 5, blind: true, selection: { instanceIds: ids.slice(6, 16) } });
    configureSync(m.db, { postgres: url, role: 'maintainer' });
    await runSync(m.db);

    // carol already holds two of the blind campaign's instances (imported from the same records).
    const carol = emptyDesktop('assigned-carol');
    const carolsItems = blind.assignments.filter((s) => s.annotator === 'carol').map((s) => s.instanceId);
    const keyOfTheirs = new Map([...idsByKey(m.db)].map(([k, id]) => [id, k]));
    const index = (id: number) => ids.indexOf(id);
    writeRich(carol.db, carolsItems.slice(0, 2).map(index));
    expect(count(carol.db, 'instances')).toBe(2);
    configureSync(carol.db, { postgres: url, role: 'annotator', annotator: 'carol' });
    const report = await runSync(carol.db);
    expect(report.campaigns).toBe(1);
    expect(campaignOf(carol.db, open_.uid)).toBeUndefined();
    const got = campaignOf(carol.db, blind.uid)!;
    expect(got.blind).toBe(true);
    expect([got.protocol.key, got.protocol.version, got.protocol.criteria]).toEqual(['river-check', 2, blind.protocol.criteria]);
    // Only her own instances, the two she had kept as they were (no duplicate).
    expect(count(carol.db, 'instances')).toBe(carolsItems.length);
    expect(count(carol.db, 'base_questions')).toBe(carolsItems.length);
    const keyOfMine = new Map([...idsByKey(carol.db)].map(([k, id]) => [id, k]));
    expect([...keyOfMine.values()].sort()).toEqual(carolsItems.map((id) => keyOfTheirs.get(id)).sort());
    expect(got.assignments.every((s) => s.annotator === 'carol')).toBe(true);
    expect(new DatabaseJudging(carol.db, got.id, 'carol').queue().items).toHaveLength(carolsItems.length);

    // dan judges; carol never receives his judgments, the maintainer does.
    const dan = emptyDesktop('assigned-dan');
    configureSync(dan.db, { postgres: url, role: 'annotator', annotator: 'dan' });
    await runSync(dan.db);
    const danMade = judge(dan.db, campaignOf(dan.db, blind.uid)!, 'dan', 'no');
    await runSync(dan.db);
    expect((await runSync(carol.db)).pulled).toBe(0);
    expect(judgmentsOf(carol.db, 'dan')).toHaveLength(0);
    expect((await runSync(m.db)).pulled).toBe(danMade);

    // Someone assigned nowhere receives nothing.
    const eve = emptyDesktop('assigned-eve');
    configureSync(eve.db, { postgres: url, role: 'annotator', annotator: 'eve' });
    const none = await runSync(eve.db);
    expect(none.campaigns).toBe(0);
    expect([count(eve.db, 'campaigns'), count(eve.db, 'instances')]).toEqual([0, 0]);
  }, 120_000);

  it('a pull cut short (a crash while writing, PostgreSQL stopped, kill -9) leaves no half-made campaign, and the next sync completes it', async () => {
    const url = await freshStore();
    const m = richMaintainer('cut-m', 40);
    const campaign = createCampaign(m.db, { name: 'Cut', protocol: 'march-validation', annotators: ['alice'], seed: 1, blind: false, selection: {} });
    // A long history to pull, so that the interruptions below land in the middle of a pull.
    const N = 100_000;
    bulkJudgments(m.db, campaign.id, 'alice', N);
    configureSync(m.db, { postgres: url, role: 'maintainer' });
    await runSync(m.db);
    const nothing = (db: WritableDB) => [count(db, 'campaigns'), count(db, 'instances'), count(db, 'base_questions'), count(db, 'passages'), count(db, 'assignments'), count(db, 'interpretations')];
    const complete = (db: WritableDB) => {
      const view = campaignOf(db, campaign.uid)!;
      expect(view.items).toHaveLength(40);
      expect(view.assignments).toHaveLength(40);
      expect(count(db, 'instances')).toBe(40);
      expect(judgmentsOf(db)).toHaveLength(N);
    };

    // A failure after the campaign row is written, before the transaction ends.
    const crash = emptyDesktop('cut-crash');
    configureSync(crash.db, { postgres: url, role: 'annotator', annotator: 'alice' });
    await expect(
      runSync(crash.db, {
        log: (line) => {
          if (line.startsWith('Created campaign')) throw new Error('the desktop went down');
        },
      }),
    ).rejects.toThrow(/went down/);
    expect(nothing(crash.db)).toEqual([0, 0, 0, 0, 0, 0]);
    await runSync(crash.db);
    complete(crash.db);

    // PostgreSQL stopped while the campaign is being read.
    const gone = emptyDesktop('cut-gone');
    configureSync(gone.db, { postgres: url, role: 'annotator', annotator: 'alice' });
    let stopping: Promise<void> | undefined;
    const failed = await runSync(gone.db, {
      log: (line) => {
        if (line.startsWith('Receiving campaign') && !stopping) stopping = cluster.stop('immediate');
      },
    }).then(
      () => null,
      (error: Error) => error,
    );
    await stopping;
    await cluster.start();
    expect(failed?.message).toMatch(/went away during the pull/);
    expect(nothing(gone.db)).toEqual([0, 0, 0, 0, 0, 0]);
    await runSync(gone.db);
    complete(gone.db);

    // kill -9 during `awb team sync`: all of the campaign or none of it.
    const killed = emptyDesktop('cut-killed');
    configureSync(killed.db, { postgres: cluster.bareUrl(url.split('/').at(-1)), role: 'annotator', annotator: 'alice' });
    killed.db.close();
    // Reading the judgments (part of the pull: this desktop has nothing to push) waits on a lock.
    const lock = await lockTable(url, 'awb_judgments', 'ACCESS EXCLUSIVE');
    const child = spawn(process.execPath, [AWB, 'team', 'sync', '--db', killed.file], { cwd: ROOT, env: { ...process.env, PGPASSWORD: PG_PASSWORD } });
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    await Promise.race([lock.waited(), exited.then(() => Promise.reject(new Error(`sync ended before it could be killed: ${stderr}`)))]);
    expect(child.exitCode).toBeNull();
    child.kill('SIGKILL');
    await exited;
    await lock.release();
    const reopened = open(killed.file);
    const state = nothing(reopened);
    if (state[0] === 0) expect(state).toEqual([0, 0, 0, 0, 0, 0]);
    else complete(reopened);
    await runSync(reopened, { env: { ...process.env, PGPASSWORD: PG_PASSWORD } });
    complete(reopened);
    expect((await runSync(reopened, { env: { ...process.env, PGPASSWORD: PG_PASSWORD } })).assignmentsPulled).toBe(0);
  }, 120_000);
});
