import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '../../db/connection';
import type { WritableDB } from '../../db/sql';

export const ROOT = path.resolve(import.meta.dirname, '..', '..');
export const DEMO = path.join(ROOT, 'resources', 'demo');
export const MUSIQUE = path.join(DEMO, 'musique_ans_train_sample100.json');
export const ASQA = path.join(DEMO, 'asqa_dev_sample300.json');
export const AMBIGNQ = path.join(DEMO, 'ambignq_dev_sample300_full.json');
export const CONDAMBIGQA = path.join(ROOT, 'test', 'fixtures', 'condambigqa_sample.json');

/**
 * Makes `db`'s COMMITs fail, as on a full disk, whenever `fails()` says so (it is asked once per
 * COMMIT, so it can count them): SQLite rolls that transaction back. Returns the undo.
 */
export function failCommits(db: WritableDB, fails: () => boolean): () => void {
  const exec = db.exec.bind(db);
  const patched = db as { exec: (source: string) => unknown };
  patched.exec = (source: string) => {
    if (source === 'COMMIT' && fails()) throw new Error('database or disk is full');
    return exec(source);
  };
  return () => {
    patched.exec = exec;
  };
}

export function memoryDb(): WritableDB {
  return openDatabase(':memory:');
}

/** A fresh temporary directory, removed by the returned cleanup. */
export function tempDir(prefix = 'awb-test-'): { dir: string; file: (name: string) => string; cleanup: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  return { dir, file: (name) => path.join(dir, name), cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

export function writeFile(file: string, content: string | Buffer): string {
  fs.writeFileSync(file, content);
  return file;
}

export function readJson<T>(file: string): T {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as T;
}
