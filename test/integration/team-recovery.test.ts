import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCampaign } from '../../electron/services/annotation/campaigns';
import { createHandlers, Workbench } from '../../electron/services';
import { dispatch, type AuditEntry, type ReleaseSummary } from '../../shared/api';
import { AWB, awbJson } from '../helpers/cli';
import { ROOT, tempDir, writeFile } from '../helpers/db';
import { fillInstances, musiqueRecord, rng } from '../helpers/synthetic';

/**
 * Clean recovery: two writers on one database file (processes started together) wait for each
 * other, or fail with the tool's own message and an audit row, and what each says matches what
 * it wrote; a release killed mid-way leaves a partial folder that the next run removes.
 */

const tmp = tempDir('awb-recovery-');

afterAll(() => tmp.cleanup());

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** `awb ...` in its own process; `onStderr` hears its error output as it comes. */
function start(args: string[], env: Record<string, string> = {}, onStderr?: (text: string) => void): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [AWB, ...args], { cwd: ROOT, env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      onStderr?.(stderr);
    });
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

function musiqueFile(name: string, count: number, seed: number): string {
  const random = rng(seed);
  return writeFile(tmp.file(name), `${Array.from({ length: count }, (_, i) => JSON.stringify({ ...musiqueRecord(i, random), id: `${name}-${i}` })).join('\n')}\n`);
}

function auditRows(db: string, operation: string): AuditEntry[] {
  const reader = new Database(db, { readonly: true });
  try {
    return (reader.prepare('SELECT * FROM audit_log WHERE operation = ? ORDER BY id').all(operation) as { ok: number; account: string }[]).map((r) => ({ ...r, ok: r.ok === 1 }) as unknown as AuditEntry);
  } finally {
    reader.close();
  }
}

/** Holds the database's write lock from this process, as another writer would, until released. */
function holdLock(db: string): { release: () => void } {
  const connection = new Database(db);
  connection.exec('BEGIN IMMEDIATE');
  connection.prepare(`INSERT INTO settings (key, value) VALUES ('lock-holder', '"test"') ON CONFLICT(key) DO UPDATE SET value = excluded.value`).run();
  return {
    release: () => {
      connection.exec('COMMIT');
      connection.close();
    },
  };
}

describe('two writers on one database', () => {
  const db = tmp.file('two.db');
  beforeAll(() => {
    new Workbench({ databasePath: db, mode: 'browser', version: 'test' }).close();
  });

  it('two imports started together both finish, both say so, and both are saved and audited', async () => {
    const a = musiqueFile('first.jsonl', 400, 1);
    const b = musiqueFile('second.jsonl', 400, 2);
    const [one, two] = await Promise.all([start(['import', a, '--format', 'musique', '--db', db, '--json']), start(['import', b, '--format', 'musique', '--db', db, '--json'])]);
    for (const run of [one, two]) {
      expect(run.status, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject({ committed: true, imported: 400 });
      expect(run.stderr).not.toMatch(/database is locked/);
    }
    const stats = awbJson<{ datasets: number; baseQuestions: number }>(['stats', '--db', db]).json;
    expect(stats).toMatchObject({ datasets: 2, baseQuestions: 800 });
    expect(auditRows(db, 'dataset:import').map((r) => r.ok)).toEqual([true, true]);
  }, 120_000);

  it('an import that meets another writer\'s lock waits for it, says so, and then imports', async () => {
    const lock = holdLock(db);
    const waiting = new Set<number>();
    let bothWaiting: () => void = () => undefined;
    const waited = new Promise<void>((resolve) => (bothWaiting = resolve));
    const hear = (which: number) => (text: string) => {
      if (/waiting for another write to this database to finish/.test(text)) waiting.add(which);
      if (waiting.size === 2) bothWaiting();
    };
    const runs = Promise.all([
      start(['import', musiqueFile('third.jsonl', 50, 3), '--format', 'musique', '--db', db, '--json'], {}, hear(1)),
      start(['import', musiqueFile('fourth.jsonl', 50, 4), '--format', 'musique', '--db', db, '--json'], {}, hear(2)),
    ]);
    await waited;
    lock.release();
    const [one, two] = await runs;
    for (const run of [one, two]) {
      expect(run.status, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject({ committed: true, imported: 50 });
    }
    expect(awbJson<{ datasets: number }>(['stats', '--db', db]).json.datasets).toBe(4);
  }, 120_000);

  it('a judgments import refused by the lock writes nothing, says so in its own words, exits 1, and is audited once the lock is free', async () => {
    const db = tmp.file('judged.db');
    const workbench = new Workbench({ databasePath: db, mode: 'browser', version: 'test' });
    fillInstances(workbench.db, 20, 2);
    const campaign = createCampaign(workbench.db, { name: 'Locked', protocol: 'march-validation', annotators: ['ann'], seed: 1, selection: { types: ['semantic'] } });
    workbench.close();
    const file = writeFile(tmp.file('judged.csv'), `campaign,instance_id,annotator,criterion,value\n${campaign.id},${campaign.items[0]},ann,ambiguity,yes\n`);
    const lock = holdLock(db);
    let released = false;
    const run = await start(['judgments', 'import', file, '--campaign', String(campaign.id), '--db', db], { AWB_LOCK_WAIT_MS: '300' }, (text) => {
      // The import has given up; it now waits to record that in the audit trail: let it.
      if (!released && /to record 1 call\(s\) in the audit trail/.test(text)) {
        released = true;
        lock.release();
      }
    });
    expect(released).toBe(true);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/awb: The database is busy with another write .*; nothing was written\. Try again when it finishes\./);
    expect(run.stderr).not.toMatch(/database is locked/);
    const reader = new Database(db, { readonly: true });
    expect((reader.prepare('SELECT count(*) AS n FROM judgments').get() as { n: number }).n).toBe(0);
    reader.close();
    expect(auditRows(db, 'judgment:import').map((r) => r.ok)).toEqual([false]);
  }, 60_000);
});

describe('a release killed mid-way', () => {
  it('leaves a partial folder that the next release to the same place removes, sparing one still being written', async () => {
    const db = tmp.file('release.db');
    const workbench = new Workbench({ databasePath: db, mode: 'browser', version: 'test' });
    fillInstances(workbench.db, 60, 4);
    const out = tmp.file('out/bench-1.0.0');
    fs.mkdirSync(path.dirname(out), { recursive: true });
    // What `kill -9` leaves: the folder of a process that is gone, with half its files.
    const gone = spawnSync(process.execPath, ['-e', '']).pid!;
    const killed = `${out}.partial-${gone}-m3x9k2`;
    fs.mkdirSync(killed);
    fs.writeFileSync(path.join(killed, 'test.jsonl'), '{"half": ');
    // A release another live process is writing right now, to the same place: not ours to remove.
    const live = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
    const writing = `${out}.partial-${live.pid}-abc123`;
    fs.mkdirSync(writing);
    try {
      const created = await dispatch(createHandlers(workbench), 'release:create', { name: 'Bench', version: '1.0.0', out });
      if (!created.ok) throw new Error(created.error.message);
      const job = await workbench.jobs.wait((created.value as { jobId: string }).jobId);
      expect(job.state, job.error?.message).toBe('done');
      expect((job.result as ReleaseSummary).dir).toBe(out);
      expect(fs.existsSync(killed)).toBe(false);
      expect(fs.existsSync(writing)).toBe(true);
      expect(fs.readdirSync(path.dirname(out)).sort()).toEqual([path.basename(out), path.basename(writing)].sort());
    } finally {
      live.kill();
      workbench.close();
    }
  }, 60_000);
});
