import fs from 'node:fs';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { checkpointFile, openDatabase } from '../../db/connection';
import { getSetting, setSetting } from '../../db/queries/settings';
import { beginWrite, get, sql, type WritableDB } from '../../db/sql';
import { checkpointInBackground, checkpointsDone, commitThenCheckpoint } from '../../electron/services/checkpoints';
import { importFile } from '../../electron/services/import/import-file';
import { MUSIQUE, tempDir } from '../helpers/db';

// Large writes commit without SQLite's own checkpoint and have a worker thread copy the log into
// the database file (electron/services/checkpoints.ts). What a checkpoint has done shows in a copy
// of the database file made without its log: it holds only what was copied.

const tmp = tempDir('awb-checkpoint-');
afterAll(() => tmp.cleanup());
afterEach(() => checkpointsDone());

let n = 0;
function fresh(): { db: WritableDB; file: string } {
  const file = tmp.file(`db-${++n}.db`);
  const db = openDatabase(file);
  checkpointFile(file); // the schema into the file, so that a copy of it alone opens
  return { db, file };
}

/** Opens a copy of the database file alone and asks it something. */
function inFileAlone<T>(file: string, ask: (db: WritableDB) => T): T {
  const copy = tmp.file(`alone-${++n}.db`);
  fs.copyFileSync(file, copy);
  const alone = openDatabase(copy, { migrate: false });
  try {
    return ask(alone);
  } finally {
    alone.close();
  }
}

const baseQuestions = (db: WritableDB) => get<{ n: number }>(db, sql`SELECT count(*) AS n FROM base_questions`)!.n;

describe('an import that checkpoints in the background', () => {
  it('leaves its log to a worker, which copies all of it into the file; the connection checkpoints again afterwards', async () => {
    const { db, file } = fresh();
    const report = await importFile(db, { file: MUSIQUE, format: 'musique', checkpointInBackgroundFrom: 0 });
    expect(report).toMatchObject({ imported: 100, committed: true });
    await checkpointsDone();
    // A commit of this size (well under SQLite's 1,000-page threshold) never checkpoints by itself:
    // the questions are in the file because the worker copied them.
    expect(inFileAlone(file, baseQuestions)).toBe(100);
    const { log, checkpointed } = checkpointFile(file);
    expect(checkpointed).toBe(log);
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    db.close();
  });

  it('a small file commits as before, its log left to the next ordinary checkpoint', async () => {
    const { db, file } = fresh();
    await importFile(db, { file: MUSIQUE, format: 'musique' });
    await checkpointsDone();
    expect(baseQuestions(db)).toBe(100);
    expect(inFileAlone(file, baseQuestions)).toBe(0);
    db.close();
  });

  it('a checkpoint that fails loses nothing and gives the connection its own checkpoints back', async () => {
    const { db, file } = fresh();
    await beginWrite(db);
    setSetting(db, 'theme', 'dark');
    commitThenCheckpoint(db, () => checkpointInBackground(tmp.file('not-there.db')));
    expect(getSetting(db, 'theme')).toBe('dark');
    await checkpointsDone();
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    expect(inFileAlone(file, (alone) => getSetting(alone, 'theme'))).toBeUndefined();
    await expect(checkpointInBackground(tmp.file('not-there.db'))).rejects.toThrow(/not-there\.db/);
    expect(fs.existsSync(tmp.file('not-there.db'))).toBe(false);
    db.close();
  });

  it('a commit that fails starts no checkpoint and releases its hold', async () => {
    const { db } = fresh();
    let started = false;
    // No transaction is open, so the commit fails.
    expect(() =>
      commitThenCheckpoint(db, async () => {
        started = true;
      }),
    ).toThrow();
    await checkpointsDone();
    expect(started).toBe(false);
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    db.close();
  });
});
