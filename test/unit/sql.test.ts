import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import Database from 'better-sqlite3';
import os from 'node:os';
import path from 'node:path';
import { openDatabase, optimize } from '../../db/connection';
import { batchPolled, batchSubmitted, batchUploaded, planBatch } from '../../db/queries/llm-batches';
import { recordCall } from '../../db/queries/llm-calls';
import { tryInsertAudit } from '../../db/queries/audit';
import { all, beginWrite, commit, DatabaseBusyError, explain, flushGroup, get, groupTransaction, insertChunks, onLockWait, rollback, run, sql, transaction } from '../../db/sql';
import { Workbench } from '../../electron/services/workbench';
import { memoryDb } from '../helpers/db';

describe('sql tagged template', () => {
  it('keeps values out of the query text', () => {
    const name = "Robert'); DROP TABLE datasets;--";
    const q = sql`SELECT * FROM datasets WHERE name = ${name} AND id > ${3}`;
    expect(q.text).toBe('SELECT * FROM datasets WHERE name = ? AND id > ?');
    expect(q.params).toEqual([name, 3]);
  });

  it('nests fragments and joins them with their parameters in order', () => {
    const where = sql.join([sql`a = ${1}`, sql`b IN ${sql.list(['x', 'y'])}`], sql` AND `);
    const q = sql`SELECT 1 WHERE ${where} LIMIT ${10}`;
    expect(q.text).toBe('SELECT 1 WHERE a = ? AND b IN (?, ?) LIMIT ?');
    expect(q.params).toEqual([1, 'x', 'y', 10]);
  });

  it('gives each call of a query its own values, and the same text', () => {
    const q = (id: number, name: string | undefined) => sql`SELECT * FROM datasets WHERE id = ${id} AND name = ${name}`;
    const [first, second] = [q(1, 'a'), q(2, undefined)];
    expect(second.text).toBe(first.text);
    expect(first.text).toBe('SELECT * FROM datasets WHERE id = ? AND name = ?');
    expect([first.params, second.params]).toEqual([[1, 'a'], [2, null]]);
  });

  it('cuts rows for multi-row inserts into power-of-two chunks, in order', () => {
    const sizes = (n: number) => [...insertChunks(Array.from({ length: n }, (_, i) => i))].map((c) => c.length);
    expect([sizes(0), sizes(1), sizes(20), sizes(100)]).toEqual([[], [1], [16, 4], [32, 32, 32, 4]]);
    expect([...insertChunks([1, 2, 3, 4, 5, 6, 7])].flat()).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it('turns booleans into 0/1 and undefined into NULL', () => {
    expect(sql`${true}, ${false}, ${undefined}`.params).toEqual([1, 0, null]);
  });

  it('an empty list matches nothing instead of producing invalid SQL', () => {
    const db = memoryDb();
    expect(all(db, sql`SELECT 1 AS x WHERE 1 IN ${sql.list([])}`)).toEqual([]);
  });

  it('checks identifiers', () => {
    expect(sql.id('datasets').text).toBe('"datasets"');
    expect(() => sql.id('datasets; DROP TABLE x')).toThrow(/Not a valid SQL identifier/);
    expect(() => sql.id('a"b')).toThrow();
  });

  it('runs queries, and a failing transaction leaves nothing behind', () => {
    const db = memoryDb();
    run(db, sql`INSERT INTO datasets (name, source_format) VALUES (${'a'}, ${'musique'})`);
    expect(() =>
      transaction(db, () => {
        run(db, sql`INSERT INTO datasets (name, source_format) VALUES (${'b'}, ${'musique'})`);
        run(db, sql`INSERT INTO datasets (name, source_format) VALUES (${'a'}, ${'musique'})`);
      }),
    ).toThrow(/UNIQUE/);
    expect(all<{ name: string }>(db, sql`SELECT name FROM datasets`).map((r) => r.name)).toEqual(['a']);
    expect(get<{ n: number }>(db, sql`SELECT count(*) AS n FROM datasets`)?.n).toBe(1);
    expect(explain(db, sql`SELECT * FROM datasets WHERE name = ${'a'}`).join(' ')).toMatch(/USING INDEX/);
  });
});

/** Two connections to one new database file, and how to close and remove them. */
function twoConnections() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'awb-lock-'));
  const file = path.join(dir, 'lock.db');
  const a = openDatabase(file, { busyTimeoutMs: 100 });
  const b = openDatabase(file, { busyTimeoutMs: 100 });
  return { a, b, done: () => (a.close(), b.close(), fs.rmSync(dir, { recursive: true, force: true })) };
}

const setting = (db: Parameters<typeof run>[0], key: string) => run(db, sql`INSERT INTO settings (key, value) VALUES (${key}, '1')`);
const keys = (db: Parameters<typeof get>[0]) => all<{ key: string }>(db, sql`SELECT key FROM settings WHERE key LIKE 'g%' ORDER BY key`).map((r) => r.key);

describe('the write lock', () => {
  it('refuses at once a write that would wait for a transaction another connection of this thread holds across awaits', async () => {
    // SQLite's busy handler would sleep this thread, the only one that can end that transaction (an import's), for the whole busy timeout.
    const { a, b, done } = twoConnections();
    try {
      await beginWrite(a);
      setting(a, 'g-held');
      const held = /busy with an import or a release of this app, which writes everything in one transaction; nothing was written/;
      expect(() => transaction(b, () => setting(b, 'g-x'))).toThrow(DatabaseBusyError);
      expect(() => transaction(b, () => setting(b, 'g-x'))).toThrow(held);
      expect(() => groupTransaction(b, () => setting(b, 'g-y'))).toThrow(held);
      expect(() => setting(b, 'g-z')).toThrow(held);
      // The audit trail holds its row back for later, as it does for another process's lock, instead of dropping it.
      expect(tryInsertAudit(b, { at: '2026-11-28T00:00:00.000Z', account: 'ada', role: 'annotator', operation: 'judgment:save', summary: '{}', ok: 1 }, 0)).toBe(false);
      // Reading goes on, and so does the holder.
      expect(keys(b)).toEqual([]);
      setting(a, 'g-held-2');
      commit(a);
      transaction(b, () => setting(b, 'g-x'));
      expect(keys(b)).toEqual(['g-held', 'g-held-2', 'g-x']);
      // The same file named another way is the same lock.
      const relative = openDatabase(path.relative(process.cwd(), a.name), { busyTimeoutMs: 100 });
      await beginWrite(relative);
      expect(() => setting(b, 'g-r')).toThrow(held);
      rollback(relative);
      relative.close();
      // Another database held on this thread (an in-memory one, another file) holds no lock of this one.
      const elsewhere = [memoryDb(), openDatabase(path.join(path.dirname(a.name), 'other.db'))];
      for (const other of elsewhere) await beginWrite(other);
      transaction(b, () => setting(b, 'g-y'));
      for (const other of elsewhere) {
        rollback(other);
        other.close();
      }
      // A refusal met inside a transaction on another file keeps its own words.
      await beginWrite(a);
      const third = openDatabase(path.join(path.dirname(a.name), 'third.db'));
      expect(() => transaction(third, () => setting(b, 'g-w'))).toThrow(held);
      rollback(a);
      third.close();
    } finally {
      done();
    }
  });

  it('refuses a write whose lock another connection keeps, before it writes anything, in words that say so', () => {
    const { a, b, done } = twoConnections();
    // A connection this code did not open stands for another process's: b waits its busy timeout, then gives up.
    const other = new Database(a.name);
    try {
      other.exec('BEGIN IMMEDIATE');
      let ran = false;
      expect(() =>
        transaction(b, () => {
          ran = true;
          run(b, sql`INSERT INTO settings (key, value) VALUES ('x', '1')`);
        }),
      ).toThrow(/busy with another write \(an import, a release or a run, perhaps in another process\) and stayed so for longer than this one waits; nothing was written/);
      expect(ran).toBe(false);
      other.exec('ROLLBACK');
      transaction(b, () => run(b, sql`INSERT INTO settings (key, value) VALUES ('x', '1')`));
      expect(get<{ n: number }>(a, sql`SELECT count(*) AS n FROM settings WHERE key = 'x'`)!.n).toBe(1);
    } finally {
      other.close();
      done();
    }
  });

  it('waits for the lock without blocking the process, then writes; says when it starts waiting', async () => {
    const { a, b, done } = twoConnections();
    try {
      a.exec('BEGIN IMMEDIATE');
      const heard: string[] = [];
      const off = onLockWait(() => heard.push('waiting'));
      let begun = false;
      const waiting = beginWrite(b, { onWait: () => heard.push('own') }).then(() => (begun = true));
      // The process is free meanwhile: this very test releases the lock.
      await new Promise((resolve) => setImmediate(resolve));
      expect(begun).toBe(false);
      expect(heard).toEqual(['own', 'waiting']);
      a.exec('COMMIT');
      await waiting;
      commit(b);
      off();
      await expect(beginWrite(a, { waitMs: 0 })).resolves.toBeUndefined();
      rollback(a);
    } finally {
      done();
    }
  });

  it('gives up waiting after waitMs, or when cancelled', async () => {
    const { a, b, done } = twoConnections();
    try {
      a.exec('BEGIN IMMEDIATE');
      await expect(beginWrite(b, { waitMs: 0 })).rejects.toThrow(/busy with another write/);
      const controller = new AbortController();
      const cancelled = beginWrite(b, { signal: controller.signal });
      controller.abort();
      await expect(cancelled).rejects.toThrow();
      a.exec('ROLLBACK');
    } finally {
      done();
    }
  });

  it('never fails a committed write for what comes after the commit: planner statistics under another lock, a failing step', () => {
    const { a, b, done } = twoConnections();
    try {
      transaction(b, () => run(b, sql`INSERT INTO settings (key, value) VALUES ('y', '2')`));
      a.exec('BEGIN IMMEDIATE');
      expect(() => optimize(b)).not.toThrow();
      a.exec('ROLLBACK');
      b.exec('BEGIN IMMEDIATE');
      run(b, sql`INSERT INTO settings (key, value) VALUES ('z', '3')`);
      expect(() =>
        commit(b, () => {
          throw new Error('after the commit');
        }),
      ).not.toThrow();
      expect(get<{ n: number }>(a, sql`SELECT count(*) AS n FROM settings WHERE key = 'z'`)!.n).toBe(1);
    } finally {
      done();
    }
  });
});

describe('group commit', () => {
  const recordAnswer = (db: Parameters<typeof run>[0], hash: string) =>
    recordCall(db, {
      hash, runId: null, endpoint: 'http://127.0.0.1/v1', model: 'fake/m', stage: 'detect', item: 'q1', request: { hash }, response: '{}',
      status: 'ok', error: null, promptTokens: 1, completionTokens: 1, latencyMs: 1, costUsd: null,
    });

  it('leaves out what a provider holds: a batch uploaded, submitted or polled is committed on return, even while a group is open', () => {
    const { a, b, done } = twoConnections();
    try {
      run(a, sql`INSERT INTO runs (id, kind, status) VALUES (1, 'pipeline', 'running')`);
      const id = planBatch(a, { runId: 1, stage: 'detect', endpoint: 'fake', baseUrl: 'http://127.0.0.1/v1', model: 'm', attempt: 1 }, [
        { request_hash: 'h1', item: 'q1', stage: 'detect', ambiguity_type: null, body: '{}' },
      ]);
      groupTransaction(a, () => setting(a, 'g1'));
      batchUploaded(a, id, 'file-1');
      batchSubmitted(a, id, 'batch-1');
      // Seen by another connection at once: a crash now could not make a resumed run send the batch again.
      expect(get<{ provider_batch_id: string }>(b, sql`SELECT provider_batch_id FROM llm_batches WHERE id = ${id}`)!.provider_batch_id).toBe('batch-1');
      groupTransaction(a, () => setting(a, 'g2'));
      batchPolled(a, id, { state: 'in_progress', completed: 0, failed: 0, outputFileId: null, errorFileId: null, errors: [] });
      expect(get<{ state: string }>(b, sql`SELECT state FROM llm_batches WHERE id = ${id}`)!.state).toBe('in_progress');
    } finally {
      done();
    }
  });

  it('commits the writes of one turn of the event loop together at the next, each atomic on its own', async () => {
    const { a, b, done } = twoConnections();
    try {
      groupTransaction(a, () => setting(a, 'g1'));
      expect(() => groupTransaction(a, () => (setting(a, 'g2'), setting(a, 'g1')))).toThrow(/UNIQUE/);
      groupTransaction(a, () => setting(a, 'g3'));
      expect(a.inTransaction).toBe(true);
      // Another connection sees nothing before the turn ends, then both good writes and not the failed one.
      expect(keys(b)).toEqual([]);
      await new Promise((resolve) => setImmediate(resolve));
      expect(a.inTransaction).toBe(false);
      expect(keys(b)).toEqual(['g1', 'g3']);
    } finally {
      done();
    }
  });

  it('commits at once when flushed, and before a write that waits for the lock begins', async () => {
    const { a, b, done } = twoConnections();
    try {
      groupTransaction(a, () => setting(a, 'g1'));
      flushGroup(a);
      expect(keys(b)).toEqual(['g1']);
      groupTransaction(a, () => setting(a, 'g2'));
      await beginWrite(a);
      setting(a, 'g3');
      rollback(a);
      expect(keys(b)).toEqual(['g1', 'g2']);
      // A plain transaction commits on return, with the group before it, unless it runs inside the group's work.
      groupTransaction(a, () => transaction(a, () => setting(a, 'g5')));
      expect(keys(b)).toEqual(['g1', 'g2']);
      transaction(a, () => setting(a, 'g6'));
      expect(keys(b)).toEqual(['g1', 'g2', 'g5', 'g6']);
      // Inside a transaction opened by someone else it is a savepoint of that one.
      a.exec('BEGIN IMMEDIATE');
      groupTransaction(a, () => setting(a, 'g4'));
      rollback(a);
      await new Promise((resolve) => setImmediate(resolve));
      expect(keys(b)).toEqual(['g1', 'g2', 'g5', 'g6']);
    } finally {
      done();
    }
  });
  it('writes a paid answer again, alone and under its id, when its group is rolled back; the failure waits for the next other write', () => {
    const { a, b, done } = twoConnections();
    const answer = (hash: string) => recordAnswer(a, hash);
    const calls = () => all<{ id: number; request_hash: string }>(b, sql`SELECT id, request_hash FROM llm_calls ORDER BY id`);
    try {
      // A commit that fails, as on a full disk: the group's other write is lost, its two answers are not.
      groupTransaction(a, () => setting(a, 'g1'));
      const first = [answer('h1'), answer('h2')];
      expect(a.inTransaction).toBe(true);
      const exec = a.exec.bind(a);
      (a as { exec: (source: string) => unknown }).exec = (source: string) => {
        if (source === 'COMMIT') throw new Error('disk I/O error');
        return exec(source);
      };
      expect(() => flushGroup(a)).toThrow(/disk I\/O error/);
      (a as { exec: (source: string) => unknown }).exec = exec;
      expect(keys(b)).toEqual([]);
      expect(calls()).toEqual([{ id: first[0], request_hash: 'h1' }, { id: first[1], request_hash: 'h2' }]);
      // A write that makes SQLite roll back the whole transaction (RAISE(ROLLBACK) here; a full disk can).
      a.exec(`CREATE TEMP TRIGGER boom BEFORE INSERT ON settings WHEN NEW.key = 'gboom' BEGIN SELECT RAISE(ROLLBACK, 'rolled back whole'); END`);
      const third = answer('h3');
      expect(() => groupTransaction(a, () => setting(a, 'gboom'))).toThrow(/rolled back whole/);
      expect(calls().map((c) => c.id)).toEqual([...first, third]);
      // An answer is still recorded after that failure; the next other group write, or a flush, reports it.
      const fourth = answer('h4');
      expect(() => groupTransaction(a, () => setting(a, 'g2'))).toThrow(/took the writes grouped with it along/);
      expect(() => flushGroup(a)).toThrow(/took the writes grouped with it along/);
      expect(calls().map((c) => c.id)).toEqual([...first, third, fourth]);
      groupTransaction(a, () => setting(a, 'g3'));
      flushGroup(a);
      expect(keys(b)).toEqual(['g3']);
    } finally {
      done();
    }
  });
  it('commits the open group when the writer connection of a job is released, and when the workbench closes', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'awb-close-'));
    const file = path.join(dir, 'close.db');
    try {
      const workbench = new Workbench({ databasePath: file, mode: 'desktop', version: 'test' });
      const writer = workbench.writer();
      groupTransaction(writer.db, () => setting(writer.db, 'g1'));
      writer.release();
      groupTransaction(workbench.db, () => setting(workbench.db, 'g2'));
      workbench.close();
      const after = openDatabase(file);
      expect(keys(after)).toEqual(['g1', 'g2']);
      after.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
  it('writes an answer through a failed rollover, a group SQLite undid beside it, and a savepoint undone alone', () => {
    const { a, b, done } = twoConnections();
    const answer = (hash: string) => recordAnswer(a, hash);
    const hashes = () => all<{ request_hash: string }>(b, sql`SELECT request_hash FROM llm_calls ORDER BY id`).map((r) => r.request_hash);
    const exec = a.exec.bind(a);
    const failCommits = (on: boolean) =>
      ((a as { exec: (source: string) => unknown }).exec = (source: string) => {
        if (on && source === 'COMMIT') throw new Error('disk I/O error');
        return exec(source);
      });
    try {
      // A group open past its 200 ms whose commit fails when the next answer rolls it over: both answers are kept.
      answer('h1');
      const until = performance.now() + 220;
      while (performance.now() < until);
      failCommits(true);
      answer('h2');
      failCommits(false);
      expect(() => flushGroup(a)).toThrow(/disk I\/O error/);
      expect(hashes()).toEqual(['h1', 'h2']);
      // A plain write beside the group that makes SQLite undo it whole: the next group write notices, the answer is kept.
      a.exec(`CREATE TEMP TRIGGER boom BEFORE INSERT ON settings WHEN NEW.key = 'gboom' BEGIN SELECT RAISE(ROLLBACK, 'rolled back whole'); END`);
      answer('h3');
      expect(() => setting(a, 'gboom')).toThrow(/rolled back whole/);
      expect(() => groupTransaction(a, () => setting(a, 'g1'))).toThrow(/SQLite rolled back the grouped writes/);
      expect(() => flushGroup(a)).toThrow(/SQLite rolled back the grouped writes/);
      expect(hashes()).toEqual(['h1', 'h2', 'h3']);
      // An answer inside a savepoint that is undone alone is not made again when its group is later lost.
      expect(() =>
        groupTransaction(a, () => {
          answer('ghost');
          throw new Error('the item failed');
        }),
      ).toThrow(/the item failed/);
      answer('h4');
      failCommits(true);
      expect(() => flushGroup(a)).toThrow(/disk I\/O error/);
      // Two groups lost before anyone flushes (each committed ahead of a plain transaction): the report names both.
      answer('h5');
      transaction(a, () => setting(a, 'g8'));
      answer('h6');
      transaction(a, () => setting(a, 'g9'));
      failCommits(false);
      expect(() => flushGroup(a)).toThrow(/disk I\/O error\); 1 of 1 answers written again; then: The grouped writes were lost \(disk I\/O error\); 1 of 1/);
      expect(hashes()).toEqual(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);
    } finally {
      failCommits(false);
      done();
    }
  });

  it('commits a group before another connection of this thread writes, which would otherwise wait for it in vain', () => {
    const { a, b, done } = twoConnections();
    try {
      groupTransaction(a, () => setting(a, 'g1'));
      transaction(b, () => setting(b, 'g2'));
      groupTransaction(a, () => setting(a, 'g3'));
      setting(b, 'g4');
      groupTransaction(a, () => setting(a, 'g5'));
      groupTransaction(b, () => setting(b, 'g6'));
      flushGroup(b);
      expect(keys(b)).toEqual(['g1', 'g2', 'g3', 'g4', 'g5', 'g6']);
      // A read on the other connection does not end the group.
      groupTransaction(a, () => setting(a, 'g7'));
      expect(keys(b)).toEqual(['g1', 'g2', 'g3', 'g4', 'g5', 'g6']);
      expect(a.inTransaction).toBe(true);
      flushGroup(a);
    } finally {
      done();
    }
  });
});
