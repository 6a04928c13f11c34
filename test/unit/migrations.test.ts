import fs from 'node:fs';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { engineVersions, openDatabase } from '../../db/connection';
import { checkRegistry, latestVersion, migrate, schemaVersion, SchemaTooNewError, type Migration } from '../../db/migrate';
import { migrations } from '../../db/migrations';
import { memoryDb, tempDir } from '../helpers/db';

describe('migrations', () => {
  it('bring a new database to the latest version, with every table STRICT', () => {
    const db = memoryDb();
    expect(schemaVersion(db)).toBe(latestVersion());
    const tables = db
      .prepare("SELECT name, sql FROM sqlite_schema WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%' AND name NOT LIKE '%fts%'")
      .all() as { name: string; sql: string }[];
    expect(tables.length).toBeGreaterThan(10);
    for (const table of tables) expect(table.sql, table.name).toMatch(/STRICT/);
  });

  it('let FTS5 buffer 16 MB of new terms before writing a segment', () => {
    const db = memoryDb();
    expect(db.prepare("SELECT v FROM passages_fts_config WHERE k = 'hashsize'").get()).toEqual({ v: 16 * 1024 * 1024 });
  });

  it('are numbered 1, 2, 3... and the registry refuses gaps', () => {
    expect(() => checkRegistry(migrations)).not.toThrow();
    const broken: Migration[] = [{ version: 1, name: 'a', up: () => undefined }, { version: 3, name: 'c', up: () => undefined }];
    expect(() => checkRegistry(broken)).toThrow(/expected 2/);
  });

  it('run once: a second migrate changes nothing', () => {
    const db = memoryDb();
    expect(migrate(db)).toEqual({ from: latestVersion(), to: latestVersion() });
  });

  it('apply all pending migrations in one transaction: a failure leaves the database as it was', () => {
    const db = new Database(':memory:');
    const list: Migration[] = [
      { version: 1, name: 'one', up: (d) => d.exec('CREATE TABLE one (x INTEGER) STRICT') },
      { version: 2, name: 'two', up: (d) => d.exec('CREATE TABLE two (x INTEGER) STRICT; SELECT * FROM missing_table') },
    ];
    expect(() => migrate(db, list)).toThrow(/Migration 2 \(two\) failed/);
    expect(schemaVersion(db)).toBe(0);
    expect(db.prepare("SELECT count(*) AS n FROM sqlite_schema WHERE name = 'one'").get()).toEqual({ n: 0 });
  });

  it('refuse a database written by a newer version, and leave it untouched', () => {
    const tmp = tempDir();
    try {
      const file = tmp.file('newer.db');
      openDatabase(file).close();
      const raw = new Database(file);
      raw.pragma('user_version = 999');
      raw.close();
      const before = fs.readFileSync(file);
      expect(() => openDatabase(file)).toThrow(SchemaTooNewError);
      expect(() => openDatabase(file)).toThrow(/newer version of Ambiguity Workbench \(schema version 999/);
      expect(fs.readFileSync(file).equals(before)).toBe(true);
    } finally {
      tmp.cleanup();
    }
  });

  it('open files in WAL mode with foreign keys on, sqlite-vec loaded and FTS5 present', () => {
    const tmp = tempDir();
    try {
      const logs: string[] = [];
      const db = openDatabase(tmp.file('w.db'), { log: (m) => logs.push(m) });
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
      const versions = engineVersions(db);
      expect(versions.sqliteVec).toMatch(/^v\d+\.\d+/);
      expect(versions.fts5).toBe(true);
      expect(logs[0]).toMatch(/^SQLite 3\.\d+\.\d+, sqlite-vec v\d/);
      expect(db.prepare('SELECT vec_length(?) AS n').get(new Float32Array([1, 2, 3]))).toEqual({ n: 3 });
      db.close();
    } finally {
      tmp.cleanup();
    }
  });

  it('enforce the domain with constraints (types, removal reasons, spans)', () => {
    const db = memoryDb();
    db.exec(`INSERT INTO datasets (id, name, source_format) VALUES (1, 'd', 'awb');
             INSERT INTO base_questions (id, dataset_id, source_id, question) VALUES (1, 1, 'q1', 'Q?');`);
    const insert = (type: string, status: string, reason: string | null) =>
      db
        .prepare(`INSERT INTO instances (base_question_id, dataset_id, ambiguity_type, status, stage, removed_reason) VALUES (1, 1, ?, ?, 'imported', ?)`)
        .run(type, status, reason);
    expect(() => insert('lexical', 'ready', null)).toThrow(/CHECK/);
    expect(() => insert('semantic', 'removed', null)).toThrow(/CHECK/);
    expect(() => insert('semantic', 'ready', 'why')).toThrow(/CHECK/);
    insert('semantic', 'ready', null);
    expect(() => insert('semantic', 'ready', null)).toThrow(/UNIQUE/);
    expect(() => db.prepare('INSERT INTO instances (base_question_id, dataset_id, ambiguity_type, status, stage) VALUES (99, 1, ?, ?, ?)').run('syntactic', 'ready', 'imported')).toThrow(/FOREIGN KEY/);
    expect(() => db.prepare("INSERT INTO interpretations (instance_id, position, short_answer) VALUES (1, 0, 'x')").run()).toThrow(/CHECK/);
  });
});
