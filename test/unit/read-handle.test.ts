import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import { BULK_CHECKPOINT_PAGES, checkpointFile, checkpointLessOften, DatabaseOpenError, holdCheckpoints, openDatabase, openReadOnlyDatabase } from '../../db/connection';
import { getSetting, setSetting } from '../../db/queries/settings';
import { beginWrite, commit, get, rollback, sql, type ReadableDB, type WritableDB } from '../../db/sql';
import { createHandlers, Workbench } from '../../electron/services';
import { dispatch } from '../../shared/api';
import { tempDir } from '../helpers/db';

// The read-only handle: a second connection that SQLite itself keeps from writing, which in WAL
// mode sees each committed write and no open transaction's.

const tmp = tempDir('awb-read-handle-');
let n = 0;
let file: string;
let writer: WritableDB;
let reader: ReadableDB;

beforeEach(() => {
  file = tmp.file(`db-${++n}.db`);
  writer = openDatabase(file);
  reader = openReadOnlyDatabase(file);
});

afterEach(() => {
  reader.close();
  writer.close();
});

afterAll(() => tmp.cleanup());

describe('the read-only handle', () => {
  it('refuses every write, whatever the code asks, and changes nothing', () => {
    setSetting(writer, 'theme', 'dark');
    // @ts-expect-error a ReadableDB is no WritableDB: the write functions do not take it
    expect(() => setSetting(reader, 'theme', 'light')).toThrow(/readonly/i);
    expect(() => reader.exec('CREATE TABLE intruder (x INTEGER)')).toThrow(/readonly/i);
    expect(() => reader.exec('DELETE FROM settings')).toThrow(/readonly/i);
    expect(getSetting(writer, 'theme')).toBe('dark');
    expect(get(writer, sql`SELECT count(*) AS n FROM sqlite_schema WHERE name = 'intruder'`)).toEqual({ n: 0 });
  });

  it('sees a write once it is committed, and not before', () => {
    setSetting(writer, 'a', 1);
    expect(getSetting(reader, 'a')).toBe(1);
    beginWrite(writer);
    setSetting(writer, 'a', 2);
    setSetting(writer, 'b', 'new');
    // The writer sees its own open transaction; the reader the last committed state.
    expect(getSetting(writer, 'a')).toBe(2);
    expect(getSetting(reader, 'a')).toBe(1);
    expect(getSetting(reader, 'b')).toBeUndefined();
    commit(writer);
    expect(getSetting(reader, 'a')).toBe(2);
    expect(getSetting(reader, 'b')).toBe('new');
    beginWrite(writer);
    setSetting(writer, 'a', 3);
    rollback(writer);
    expect(getSetting(reader, 'a')).toBe(2);
  });

  it('has sqlite-vec, FTS5 and the reading pragmas of the writer', () => {
    expect(reader.readonly).toBe(true);
    expect(reader.prepare('SELECT vec_length(vec_f32(?)) AS n').get(JSON.stringify([1, 2, 3]))).toEqual({ n: 3 });
    expect(reader.prepare("SELECT count(*) AS n FROM passages_fts WHERE passages_fts MATCH 'x'").get()).toEqual({ n: 0 });
    for (const pragma of ['busy_timeout', 'temp_store', 'cache_size']) {
      expect(reader.pragma(pragma, { simple: true }), pragma).toBe(writer.pragma(pragma, { simple: true }));
    }
  });

  it('is refused for a database that is not there yet, or in memory', () => {
    expect(() => openReadOnlyDatabase(tmp.file('missing.db'))).toThrow(DatabaseOpenError);
    expect(() => openReadOnlyDatabase(':memory:')).toThrow(/in-memory/);
  });
});

describe('the workbench', () => {
  it('answers the browsing operations from its read-only handle: what is committed, never an open write', async () => {
    const workbench = new Workbench({ databasePath: tmp.file('workbench.db'), mode: 'browser', version: 'test' });
    try {
      expect(workbench.reader).not.toBe(workbench.db);
      expect(workbench.reader.readonly).toBe(true);
      const handlers = createHandlers(workbench);
      expect(await dispatch(handlers, 'stats:get', {})).toMatchObject({ ok: true, value: { datasets: 0 } });
      // A write left open on the main connection: reads there would see it, the reader does not.
      beginWrite(workbench.db);
      workbench.db.prepare("INSERT INTO datasets (name, source_format) VALUES ('fresh', 'awb')").run();
      expect(await dispatch(handlers, 'stats:get', {})).toMatchObject({ ok: true, value: { datasets: 0 } });
      expect(await dispatch(handlers, 'dataset:list', {})).toMatchObject({ ok: true, value: [] });
      commit(workbench.db);
      expect(await dispatch(handlers, 'stats:get', {})).toMatchObject({ ok: true, value: { datasets: 1 } });
      expect(await dispatch(handlers, 'dataset:list', {})).toMatchObject({ ok: true, value: [{ name: 'fresh' }] });
    } finally {
      workbench.close();
    }
  });
});

describe('a commit that leaves its log for a checkpoint elsewhere', () => {
  // The database file alone, without its write-ahead log: what a checkpoint has copied into it.
  const fileAlone = () => {
    const copy = tmp.file(`alone-${++n}.db`);
    fs.copyFileSync(file, copy);
    const alone = openDatabase(copy, { migrate: false });
    try {
      return getSetting(alone, 'theme');
    } finally {
      alone.close();
    }
  };

  it('commits without checkpointing while held, puts the setting back after the last hold, and checkpointFile copies the log into the file', async () => {
    checkpointFile(file); // the schema into the file, so that a copy of it alone opens
    writer.pragma('wal_autocheckpoint = 1');
    const first = holdCheckpoints(writer);
    const second = holdCheckpoints(writer);
    await beginWrite(writer);
    setSetting(writer, 'theme', 'dark');
    commit(writer);
    first();
    first(); // a second call of the same release does not count
    expect(writer.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    await beginWrite(writer);
    setSetting(writer, 'theme', 'dark');
    commit(writer);
    second();
    expect(writer.pragma('wal_autocheckpoint', { simple: true })).toBe(1);
    expect(getSetting(reader, 'theme')).toBe('dark');
    expect(fileAlone()).toBeUndefined();
    const { log, checkpointed } = checkpointFile(file);
    expect(log).toBeGreaterThan(0);
    expect(checkpointed).toBe(log);
    expect(fileAlone()).toBe('dark');
    // An ordinary commit at that threshold checkpoints by itself, which is what a hold avoids.
    await beginWrite(writer);
    setSetting(writer, 'theme', 'light');
    commit(writer);
    expect(fileAlone()).toBe('light');
  });

  it('checkpoints less often during a bulk write, not at all while held meanwhile, and puts the setting back', () => {
    const setting = () => writer.pragma('wal_autocheckpoint', { simple: true });
    expect(setting()).toBe(1000);
    const bulk = checkpointLessOften(writer);
    expect(setting()).toBe(BULK_CHECKPOINT_PAGES);
    const hold = holdCheckpoints(writer);
    expect(setting()).toBe(0);
    hold();
    expect(setting()).toBe(BULK_CHECKPOINT_PAGES);
    bulk();
    bulk();
    expect(setting()).toBe(1000);
    // A connection whose own checkpoints are off stays so; one with a larger threshold keeps it.
    for (const own of [0, 50_000]) {
      writer.pragma(`wal_autocheckpoint = ${own}`);
      const undo = checkpointLessOften(writer);
      expect(setting()).toBe(own);
      undo();
      expect(setting()).toBe(own);
    }
  });

  it('never creates a database that is not there', () => {
    const missing = tmp.file('never-made/none.db');
    expect(() => checkpointFile(missing)).toThrow(DatabaseOpenError);
    expect(fs.existsSync(missing)).toBe(false);
    expect(fs.existsSync(tmp.file('never-made'))).toBe(false);
  });
});
