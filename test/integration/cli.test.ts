import { spawn } from 'node:child_process';
import fs from 'node:fs';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import type { ImportReport, Stats } from '../../shared/api';
import { AWB, awb, awbJson } from '../helpers/cli';
import { ASQA, MUSIQUE, ROOT, tempDir, writeFile } from '../helpers/db';
import { musiqueRecord, rng } from '../helpers/synthetic';

const tmp = tempDir('awb-cli-');
afterAll(() => tmp.cleanup());

describe('awb CLI', () => {
  it('prints help and exits 0; a usage mistake exits 2', () => {
    const help = awb(['--help']);
    expect(help.status).toBe(0);
    for (const command of ['import', 'stats', 'export', 'serve']) expect(help.stdout).toContain(command);
    const importHelp = awb(['import', '--help']);
    expect(importHelp.stdout.replace(/\s+/g, ' ')).toMatch(/--format <format> the file format \(musique \| asqa \| ambignq \| condambigqa \| squad2 \| awb\)/);
    expect(importHelp.stdout).toContain('--db <path>');
    expect(importHelp.stdout).toContain('--json');
    const bad = awb(['import', MUSIQUE, '--format', 'nope']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/dataset:import: format: Invalid option: expected one of "musique"\|"asqa"/);
  });

  it('runs from the bundles made on first use, with the same answers as from the sources through tsx', () => {
    const fromBundle = awb(['--help'], { AWB_DEBUG_BUNDLES: '1' });
    expect(fromBundle.stderr).toMatch(/^awb: running .*dist[\\/]node[\\/][\w-]+[\\/]awb\.cjs\n$/);
    const fromSource = awb(['--help'], { AWB_FROM_SOURCE: '1', AWB_DEBUG_BUNDLES: '1' });
    expect(fromSource.stderr).toBe('awb: running the sources through tsx\n');
    expect(fromBundle.stdout).toBe(fromSource.stdout);
    const bad = ['import', MUSIQUE, '--format', 'nope', '--json'];
    expect(awb(bad)).toEqual(awb(bad, { AWB_FROM_SOURCE: '1' }));
  });

  it('imports, counts and exports with --db and --json', () => {
    const db = tmp.file('cli.db');
    const first = awbJson<ImportReport>(['import', MUSIQUE, '--format', 'musique', '--db', db]);
    expect(first.status).toBe(0);
    expect(first.json).toMatchObject({ read: 100, imported: 100, duplicates: 0, rejected: 0, errors: [] });
    const again = awbJson<ImportReport>(['import', MUSIQUE, '--format', 'musique', '--db', db]);
    expect(again.json).toMatchObject({ imported: 0, duplicates: 100 });
    expect(awbJson<ImportReport>(['import', ASQA, '--format', 'asqa', '--db', db, '--dataset', 'ASQA dev']).json.imported).toBe(300);

    const stats = awbJson<Stats>(['stats', '--db', db]).json;
    expect(stats).toMatchObject({ datasets: 2, baseQuestions: 400, instances: 300 });
    expect(stats.instancesByType.unspecified).toBe(300);
    expect(stats.instancesByStatus.ready).toBe(300);
    expect(stats.interpretations).toBeGreaterThan(300);
    expect(stats.passages).toBeGreaterThan(1000);

    const out = tmp.file('out.jsonl');
    const exported = awbJson<{ records: number; instances: number }>(['export', '--format', 'jsonl', '--out', out, '--db', db, '--dataset', 'ASQA dev']);
    expect(exported.json).toMatchObject({ records: 300, instances: 300 });
    expect(fs.readFileSync(out, 'utf8').trim().split('\n')).toHaveLength(300);

    const text = awb(['stats', '--db', db]);
    expect(text.stdout).toMatch(/base questions\s+400/);
  });

  it('exits non-zero and imports nothing when a record is invalid', () => {
    const db = tmp.file('bad.db');
    const file = writeFile(tmp.file('bad.jsonl'), '{"id": "x", "question": "q?", "paragraphs": "not a list"}\n');
    const result = awbJson<ImportReport>(['import', file, '--format', 'musique', '--db', db]);
    expect(result.status).toBe(1);
    expect(result.json).toMatchObject({ imported: 0, rejected: 1, committed: false });
    expect(result.json.errors[0]).toEqual({ location: 'bad.jsonl: line 1', field: 'paragraphs', message: 'Invalid input: expected array, received string' });
    const human = awb(['import', file, '--format', 'musique', '--db', db]);
    expect(human.status).toBe(1);
    expect(human.stdout).toMatch(/bad\.jsonl: line 1 · paragraphs: Invalid input: expected array, received string/);
    expect(human.stdout).toMatch(/Nothing was imported/);
    expect(awbJson<Stats>(['stats', '--db', db]).json.baseQuestions).toBe(0);
    // --skip-invalid with nothing valid left imported nothing: still a failure.
    const skipped = awbJson<ImportReport>(['import', file, '--format', 'musique', '--skip-invalid', '--db', db]);
    expect(skipped.json).toMatchObject({ imported: 0, rejected: 1, committed: true });
    expect(skipped.status).toBe(1);
    const mixed = writeFile(tmp.file('mixed.jsonl'), `${fs.readFileSync(file, 'utf8')}${JSON.stringify({ id: 'ok1', question: 'Who?', answer: 'Me', paragraphs: [{ idx: 0, title: 'T', paragraph_text: 'Me.', is_supporting: true }], question_decomposition: [] })}\n`);
    const partly = awbJson<ImportReport>(['import', mixed, '--format', 'musique', '--skip-invalid', '--db', db]);
    expect(partly.json).toMatchObject({ imported: 1, rejected: 1, committed: true });
    expect(partly.status).toBe(0);
  });

  it('reports a missing file as an error in JSON', () => {
    const result = awbJson<{ error: { code: string; message: string } }>(['import', tmp.file('missing.json'), '--format', 'musique', '--db', tmp.file('m.db')]);
    expect(result.status).toBe(1);
    expect(result.json.error).toMatchObject({ code: 'not_found' });
  });

  it('uses the user data directory by default (AWB_HOME overrides it)', () => {
    const home = tmp.file('home');
    const result = awbJson<Stats>(['stats'], { AWB_HOME: home });
    expect(result.status).toBe(0);
    expect(fs.existsSync(`${home}/workbench.db`)).toBe(true);
  });

  it('a kill -9 in the middle of an import leaves the database exactly as before', async () => {
    const db = tmp.file('killed.db');
    expect(awbJson<ImportReport>(['import', MUSIQUE, '--format', 'musique', '--db', db]).status).toBe(0);
    const before = awbJson<Stats>(['stats', '--db', db]).json;

    // A file big enough that the import is still running when it is killed.
    const random = rng(3);
    const big = tmp.file('big.jsonl');
    const out = fs.openSync(big, 'w');
    for (let i = 0; i < 6000; i++) fs.writeSync(out, `${JSON.stringify(musiqueRecord(i, random))}\n`);
    fs.closeSync(out);

    const child = spawn(process.execPath, [AWB, 'import', big, '--format', 'musique', '--db', db, '--dataset', 'big'], { cwd: ROOT, stdio: 'ignore' });
    // Wait until the import has written into the WAL (the transaction is open), then kill it.
    const wal = `${db}-wal`;
    const startSize = fs.existsSync(wal) ? fs.statSync(wal).size : 0;
    await new Promise<void>((resolve, reject) => {
      const started = Date.now();
      const poll = setInterval(() => {
        if (fs.existsSync(wal) && fs.statSync(wal).size > startSize + 4 * 1024 * 1024) {
          clearInterval(poll);
          resolve();
        } else if (Date.now() - started > 30_000 || child.exitCode !== null) {
          clearInterval(poll);
          reject(new Error('the import finished or never started writing'));
        }
      }, 20);
    });
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    expect(child.signalCode).toBe('SIGKILL');

    const after = awbJson<Stats>(['stats', '--db', db]).json;
    expect(after).toEqual(before);
    const raw = new Database(db, { readonly: true });
    expect(raw.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(raw.prepare("SELECT count(*) AS n FROM datasets WHERE name = 'big'").get()).toEqual({ n: 0 });
    raw.close();
  });
});
