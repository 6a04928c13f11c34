import fs from 'node:fs';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { engineVersions, openDatabase } from '../../db/connection';
import { checkRegistry, latestVersion, migrate, schemaVersion, SchemaTooNewError, type Migration } from '../../db/migrate';
import { migrations } from '../../db/migrations';
import { withoutUpdateAliases } from '../../db/migrations/0022-triggers-without-update-aliases';
import { baseQuestionPageQuery } from '../../db/queries/base-questions';
import { getOrCreateCorpus } from '../../db/queries/corpora';
import { createModel, getModel, getModelState, saveModelState, storeEmbeddings, toBlob } from '../../db/queries/embeddings';
import { instanceFacetCounts } from '../../db/queries/instances-facets';
import { countInstances, listInstances, pageIdsQuery, readInstancePage } from '../../db/queries/instances';
import { orderCountErrors } from '../../db/queries/instances-order-checks';
import { upsertPassage } from '../../db/queries/passages';
import { codeBlocksAfter, codeBlockSummary } from '../../db/queries/vector-code-blocks';
import { all, explain, sql, transaction, type ReadableDB, type WritableDB } from '../../db/sql';
import { importFile } from '../../electron/services/import/import-file';
import { FrozenRecords } from '../../electron/services/release/frozen';
import { BaseQuestionQuery, InstanceQuery } from '../../shared/api';
import { encodeVector, layoutBlock } from '../../shared/retrieval/vector-codes';
import { toFtsQuery } from '../../shared/search';
import { AMBIGNQ, memoryDb, tempDir } from '../helpers/db';
import { plansOf } from '../helpers/query-plans';
import { fillInstances, rng, words } from '../helpers/synthetic';

describe('migrations', () => {
  // SQLite's own tables (sqlite_sequence, kept for AUTOINCREMENT) cannot be STRICT.
  it('bring a new database to the latest version, with every table STRICT', () => {
    const db = memoryDb();
    expect(schemaVersion(db)).toBe(latestVersion());
    const tables = db
      .prepare("SELECT name, sql FROM sqlite_schema WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%' AND name NOT LIKE '%fts%' AND name NOT LIKE 'sqlite_%'")
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

  it('0006 renames the instance search column to interpretations and rebuilds every row from the database', () => {
    const db = openDatabase(':memory:', { migrate: false });
    migrate(db, migrations.slice(0, 5));
    expect(schemaVersion(db)).toBe(5);
    db.exec(`
      INSERT INTO datasets (id, name, source_format) VALUES (1, 'd', 'awb');
      INSERT INTO base_questions (id, dataset_id, source_id, question) VALUES (1, 1, 'q1', 'When did the bridge open?'), (2, 1, 'q2', 'Who wrote the anthem?');
      INSERT INTO instances (id, base_question_id, dataset_id, ambiguity_type, status, stage) VALUES
        (1, 1, 1, 'semantic', 'ready', 'imported'), (2, 2, 1, 'semantic', 'ready', 'imported');
      INSERT INTO interpretations (instance_id, position, clarified_question, condition, short_answer, answer_aliases, status) VALUES
        (1, 0, 'When did the suspension bridge open?', 'If the nineteenth-century crossing is meant', '1883', '["eighteen eighty-three"]', 'active'),
        (2, 0, 'Who wrote the lyrics?', 'If the words are meant', 'Key', '[]', 'active');
      INSERT INTO long_answers (instance_id, position, text) VALUES (2, 0, 'The lyricist was a lawyer.');
      -- As the pipeline wrote rows before: clarified questions and answers, no condition.
      INSERT INTO instances_fts (rowid, question, readings) VALUES
        (1, 'When did the bridge open?', 'When did the suspension bridge open? 1883'),
        (2, 'Who wrote the anthem?', 'Who wrote the lyrics? Key');
    `);
    const count = (search: string) => countInstances(db, InstanceQuery.parse({ search }));
    expect(count('nineteenth')).toBe(0);

    expect(migrate(db)).toEqual({ from: 5, to: latestVersion() });
    const columns = (db.prepare('PRAGMA table_info(instances_fts)').all() as { name: string }[]).map((c) => c.name);
    expect(columns).toEqual(['question', 'interpretations']);
    // What was found before still is, and now also by condition, alias and long answer.
    expect(count('suspension')).toBe(1);
    expect(count('anthem')).toBe(1);
    expect(count('nineteenth')).toBe(1);
    expect(count('eighty')).toBe(1);
    expect(listInstances(db, InstanceQuery.parse({ search: 'lyricist' })).map((r) => r.id)).toEqual([2]);
    // The delete trigger came back with the table.
    db.exec('DELETE FROM instances WHERE id = 1');
    expect(count('suspension')).toBe(0);
    expect(count('anthem')).toBe(1);
  });

  /**
   * A migration that remakes the instance search table with other prefix indexes, on a database
   * at the schema before it (with the later migrations' own steps: today's importer writes their
   * columns): every search finds the same rows with the same ranks, to the bit.
   */
  async function expectSameSearchesAcross(name: string, prefix: RegExp) {
    const db = openDatabase(':memory:', { migrate: false });
    const at = migrations.findIndex((m) => m.name === name);
    migrate(db, migrations.slice(0, at));
    db.transaction(() => {
      for (const later of migrations.slice(at + 1)) later.up(db);
    })();
    await importFile(db, { file: AMBIGNQ, format: 'ambignq', dataset: 'a' });
    // Whole words and their prefixes of 1 to 6 characters, alone and after another word.
    const words = [...new Set(all<{ question: string }>(db, sql`SELECT question FROM base_questions ORDER BY id LIMIT 40`).flatMap((r) => r.question.toLowerCase().match(/[a-z]{4,}/g) ?? []))];
    const searches = words.flatMap((w, k) => [w, ...[1, 2, 3, 4, 6].map((n) => w.slice(0, n)), `${words[(k + 7) % words.length]} ${w.slice(0, 3)}`, `${words[(k + 3) % words.length]} ${w[0]}`]);
    expect(searches.length).toBeGreaterThan(300);
    const ranked = () =>
      searches.map((text) => all<{ rowid: number; rank: number }>(db, sql`SELECT rowid, rank FROM instances_fts WHERE instances_fts MATCH ${toFtsQuery(text, { prefixLast: true })} ORDER BY rank, rowid`));
    const before = ranked();
    expect(before.filter((rows) => rows.length > 1).length).toBeGreaterThan(200);
    db.transaction(() => migrations[at]!.up(db))();
    expect(String(all<{ sql: string }>(db, sql`SELECT sql FROM sqlite_schema WHERE name = 'instances_fts'`)[0]!.sql)).toMatch(prefix);
    expect(ranked()).toEqual(before);
    // The delete trigger came back with the table.
    const id = before.find((rows) => rows.length > 0)![0]!.rowid;
    db.prepare('DELETE FROM instances WHERE id = ?').run(id);
    expect(ranked().flat().some((r) => r.rowid === id)).toBe(false);
  }

  it('0018 gives the instance search prefix indexes: every search finds the same rows with the same ranks, to the bit', async () => {
    await expectSameSearchesAcross('instance-search-prefixes', /prefix = '2 3 4'/);
  });

  it('0020 gives the instance search a one-letter prefix index: every search finds the same rows with the same ranks, to the bit', async () => {
    await expectSameSearchesAcross('instance-search-one-letter-prefix', /prefix = '1 2 3 4'/);
  });

  it('0011 moves frozen release records into compressed chunks, every record and hash kept', () => {
    const db = openDatabase(':memory:', { migrate: false });
    migrate(db, migrations.slice(0, 10));
    const release = db.prepare(
      `INSERT INTO releases (id, name, version, selection, split, thresholds, gate, licence, counts, instances, files, card, metadata, app_version, schema_version, dir)
       VALUES (?, 'R', ?, '{}', '{}', '{}', '{}', 'CC-BY-4.0', '{}', ?, '[]', '', '{}', 'test', 1, '/tmp/r')`,
    );
    const content = db.prepare('INSERT OR IGNORE INTO release_contents (sha256, content) VALUES (?, ?)');
    const entry = db.prepare('INSERT INTO release_instances (release_id, key, split, position, ambiguity_type, instance_id, content_sha256) VALUES (?, ?, ?, ?, ?, NULL, ?)');
    const hashOf = (n: number) => n.toString(16).padStart(64, '0');
    // Release 1: 2,500 records (three chunks); release 2 shares its first 10 records (one stored row each before).
    release.run(1, '1.0.0', 2500);
    release.run(2, '2.0.0', 10);
    for (let n = 0; n < 2500; n++) {
      content.run(hashOf(n), JSON.stringify({ n, text: `record ${n}` }));
      entry.run(1, `k${String(n).padStart(5, '0')}`, n % 10 ? 'train' : 'test', n, 'semantic', hashOf(n));
    }
    for (let n = 0; n < 10; n++) entry.run(2, `k${String(n).padStart(5, '0')}`, 'train', n, 'semantic', hashOf(n));

    migrate(db);
    expect(db.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'release_contents'").pluck().get()).toBe(0);
    expect(db.prepare('SELECT release_id, records FROM release_chunks ORDER BY id').all()).toEqual([
      { release_id: 1, records: 1000 },
      { release_id: 1, records: 1000 },
      { release_id: 1, records: 500 },
      { release_id: 2, records: 10 },
    ]);
    const frozen = new FrozenRecords(db as unknown as ReadableDB);
    const rows = db.prepare('SELECT key, position, content_sha256 AS hash, chunk, line FROM release_instances WHERE release_id = 1 ORDER BY key').all() as { key: string; position: number; hash: string; chunk: number; line: number }[];
    expect(rows).toHaveLength(2500);
    for (const row of rows) {
      expect(frozen.record<{ n: number }>(row).n).toBe(Number.parseInt(row.hash, 16));
      expect(row.position).toBe(Number.parseInt(row.hash, 16));
    }
    const last = db.prepare("SELECT chunk, line FROM release_instances WHERE release_id = 2 AND key = 'k00009'").get() as { chunk: number; line: number };
    expect(frozen.record<{ text: string }>(last).text).toBe('record 9');
    // The compressed chunks are much smaller than the text they hold.
    const stored = db.prepare('SELECT sum(length(content)) FROM release_chunks').pluck().get() as number;
    expect(stored).toBeLessThan(2500 * 28 / 3);
  });

  it('0019 labels MuSiQue\'s unanswerable questions, keys the instance counts by domain with the same totals, and keeps the triggers', () => {
    const db = openDatabase(':memory:', { migrate: false });
    migrate(db, migrations.slice(0, 18));
    db.exec(`
      INSERT INTO datasets (id, name, source_format) VALUES (1, 'd', 'musique'), (2, 'e', 'asqa');
      INSERT INTO base_questions (id, dataset_id, source_id, question, answerable) VALUES
        (1, 1, 'q1', 'Which river?', 1), (2, 1, 'q2', 'Which lake?', 0), (3, 2, 'q3', 'Who sang it?', NULL);
      INSERT INTO instances (id, base_question_id, dataset_id, ambiguity_type, status, stage, hops) VALUES
        (1, 1, 1, 'semantic', 'ready', 'filter', 2), (2, 2, 1, 'semantic', 'building', 'detect', 2), (3, 3, 2, 'unspecified', 'ready', 'imported', NULL);
    `);
    const before = db.prepare('SELECT dataset_id, ambiguity_type, status, hops, n FROM instance_counts ORDER BY 1, 2, 3, 4').all();
    migrate(db, migrations.slice(0, 19));
    expect(schemaVersion(db)).toBe(19);
    // Migration 17's order counts, kept by their own triggers, still agree with the table.
    expect(orderCountErrors(db as unknown as ReadableDB)).toEqual([]);
    expect(db.prepare('SELECT id, answerability FROM base_questions ORDER BY id').all()).toEqual([
      { id: 1, answerability: null },
      { id: 2, answerability: 'unanswerable' },
      { id: 3, answerability: null },
    ]);
    expect(db.prepare('SELECT p.source, p.detail FROM base_questions b JOIN provenance p ON p.id = b.answerability_provenance_id').all()).toEqual([
      { source: 'rule', detail: 'answerable = false in the source' },
    ]);
    expect(db.prepare('SELECT dataset_id, ambiguity_type, status, hops, n FROM instance_counts WHERE n > 0 ORDER BY 1, 2, 3, 4').all()).toEqual(before);
    expect(db.prepare("SELECT DISTINCT domain FROM instance_counts").pluck().all()).toEqual(['']);
    // The triggers follow a domain being set, and facets count by it from the counts table.
    db.exec("UPDATE instances SET domain = 'geography-places' WHERE id IN (1, 2)");
    const facets = instanceFacetCounts(db as unknown as ReadableDB, InstanceQuery.parse({}));
    expect(facets.domains).toEqual([
      { value: 'none', count: 1 },
      { value: 'geography-places', count: 2 },
    ]);
    expect(countInstances(db as unknown as ReadableDB, InstanceQuery.parse({ domains: ['geography-places'] }))).toBe(2);
    expect(listInstances(db as unknown as ReadableDB, InstanceQuery.parse({ domains: ['none'], sort: 'domain' })).map((r) => r.id)).toEqual([3]);
    db.exec('DELETE FROM instances WHERE id = 2');
    expect(countInstances(db as unknown as ReadableDB, InstanceQuery.parse({ domains: ['geography-places'] }))).toBe(1);
    expect(() => db.exec("UPDATE instances SET domain = 'gardening' WHERE id = 1")).toThrow(/CHECK/);
    expect(() => db.exec("INSERT INTO construction_rounds (instance_id, round, status) VALUES (1, 1, 'rejected')")).toThrow(/CHECK/);
  });

  it('0023 indexes the instances by base question: pages sorted by question read its entries, not the rows, and stay the same', () => {
    const db = openDatabase(':memory:', { migrate: false });
    migrate(db, migrations.slice(0, 19));
    fillInstances(db, 600, 3);
    const queries = [
      InstanceQuery.parse({ sort: 'question', statuses: ['ready'], offset: 40, limit: 30 }),
      InstanceQuery.parse({ sort: 'source_id', direction: 'desc', hops: [3], offset: 7, limit: 50 }),
      InstanceQuery.parse({ sort: 'question', direction: 'desc', types: ['constraint'], offset: 250, limit: 20 }),
    ];
    const ids = () => queries.map((q) => listInstances(db as unknown as ReadableDB, q).map((r) => r.id));
    const walk = (q: InstanceQuery) => pageIdsQuery(q, 'walk-index');
    const plans = (q: InstanceQuery) => plansOf(db as unknown as WritableDB, (d) => all(d, walk(q))).join(' | ');
    const before = ids();
    // Before: each question's instances through the unique key, then sorted by id.
    for (const q of queries) expect(plans(q), q.sort).toMatch(/TEMP B-TREE/);
    migrate(db);
    expect(schemaVersion(db)).toBe(latestVersion());
    expect(ids()).toEqual(before);
    expect(before.flat().length).toBeGreaterThan(60);
    // The join from a base question to its instances reads the new index alone (the filters on its entries, the ids in order).
    for (const q of queries) {
      const plan = plans(q);
      expect(plan, q.sort).toMatch(/SEARCH i USING COVERING INDEX instances_by_base_question \(base_question_id=\?\)/);
      expect(plan, q.sort).not.toMatch(/TEMP B-TREE/);
    }
  });

  it('0027 and 0033: a question-sorted page reads no base question row and no seek per question, the same pages, and the triggers keep both the counts and the order', () => {
    const db = openDatabase(':memory:', { migrate: false });
    migrate(db, migrations.slice(0, migrations.findIndex((m) => m.name === 'base-questions-question-with-source')));
    fillInstances(db, 6000, 5);
    // Pages deep enough, or of filters matching enough rows, that the order counts place them (the plan 'position').
    const queries = [
      InstanceQuery.parse({ sort: 'question', statuses: ['ready'], offset: 40, limit: 30 }),
      InstanceQuery.parse({ sort: 'question', direction: 'desc', types: ['constraint'], offset: 150, limit: 20 }),
      InstanceQuery.parse({ sort: 'question', offset: 2500, limit: 50 }),
    ];
    // The pages by the plain walk (an ORDER BY along the base questions' index), at the old schema and after.
    const walked = () => queries.map((q) => all<{ id: number }>(db as unknown as ReadableDB, pageIdsQuery(q, 'walk-index')).map((r) => r.id));
    const before = walked();
    expect(before.flat().length).toBe(100);
    migrate(db);
    expect(schemaVersion(db)).toBe(latestVersion());
    const pages = () => queries.map((q) => readInstancePage(db as unknown as ReadableDB, q));
    expect(pages().map((page) => page.plan)).toEqual(['position', 'position', 'position']);
    expect(pages().map((page) => page.rows.map((r) => r.id))).toEqual(before);
    // 0027: the plain walk reads the text and the source id from the index alone.
    const walkPlans = queries.flatMap((q) => plansOf(db as unknown as WritableDB, (d) => all(d, pageIdsQuery(q, 'walk-index')))).join(' | ');
    expect(walkPlans).toMatch(/(SCAN|SEARCH) b USING COVERING INDEX base_questions_question/);
    // 0033: the placed page walks the question order's own table, then reads each kept instance's row; no base question.
    const pagePlans = queries.flatMap((q) => plansOf(db as unknown as WritableDB, (d) => readInstancePage(d, q))).join(' | ');
    expect(pagePlans).toMatch(/SEARCH w USING PRIMARY KEY/);
    expect(pagePlans).not.toMatch(/base_questions|instances_by_base_question/);
    // The triggers follow an edited question, deleted instances and an instance moved to another
    // question, in the counts and in the order's table.
    db.exec("UPDATE base_questions SET question = 'Aaa first' WHERE id = 3; DELETE FROM instances WHERE id IN (10, 11)");
    const moved = db
      .prepare(
        `UPDATE instances SET base_question_id = (SELECT b.id FROM base_questions b WHERE b.dataset_id = instances.dataset_id AND b.id <> instances.base_question_id
           AND NOT EXISTS (SELECT 1 FROM instances j WHERE j.base_question_id = b.id AND j.ambiguity_type = instances.ambiguity_type) ORDER BY b.question LIMIT 1)
         WHERE id = 12`,
      )
      .run();
    expect(moved.changes).toBe(1);
    expect(orderCountErrors(db as unknown as ReadableDB)).toEqual([]);
    expect(pages().map((page) => page.rows.map((r) => r.id))).toEqual(walked());
  });

  it('0014 keeps every vote, allows not_needed only without a call, and adds batches and call modes', () => {
    const db = openDatabase(':memory:', { migrate: false });
    migrate(db, migrations.slice(0, 13));
    db.exec(`
      INSERT INTO datasets (id, name, source_format) VALUES (1, 'd', 'awb');
      INSERT INTO base_questions (id, dataset_id, source_id, question) VALUES (1, 1, 'q1', 'Which river flows through Springfield?');
      INSERT INTO instances (id, base_question_id, dataset_id, ambiguity_type, status, stage) VALUES (7, 1, 1, 'semantic', 'ready', 'filter');
      INSERT INTO provenance (id, source, detail) VALUES (3, 'llm', 'detect');
      INSERT INTO detection_votes VALUES (1, 'semantic', 'f/det-a', 'yes', '[]', 'two cities', 3), (1, 'syntactic', 'f/det-a', 'no', '[]', 'one parse', NULL);
      INSERT INTO filter_votes (id, instance_id, model, verdict, reason, provenance_id) VALUES (41, 7, 'f/fil-a', 'aligned', 'fine', 3);
      INSERT INTO model_prices VALUES ('gen', 2, 8);
    `);
    migrate(db);
    expect(db.prepare('SELECT base_question_id, ambiguity_type, model, verdict, reason, provenance_id, run_id, asked_position FROM detection_votes ORDER BY ambiguity_type').all()).toEqual([
      { base_question_id: 1, ambiguity_type: 'semantic', model: 'f/det-a', verdict: 'yes', reason: 'two cities', provenance_id: 3, run_id: null, asked_position: null },
      { base_question_id: 1, ambiguity_type: 'syntactic', model: 'f/det-a', verdict: 'no', reason: 'one parse', provenance_id: null, run_id: null, asked_position: null },
    ]);
    expect(db.prepare('SELECT id, verdict FROM filter_votes').all()).toEqual([{ id: 41, verdict: 'aligned' }]);
    db.exec(`INSERT INTO detection_votes (base_question_id, ambiguity_type, model, verdict, reason) VALUES (1, 'semantic', 'f/det-b', 'not_needed', 'not asked')`);
    // A vote not asked has no call behind it and no place in the order asked.
    expect(() => db.exec(`INSERT INTO detection_votes (base_question_id, ambiguity_type, model, verdict, provenance_id) VALUES (1, 'semantic', 'f/det-c', 'not_needed', 3)`)).toThrow(/CHECK/);
    expect(() => db.exec(`INSERT INTO filter_votes (instance_id, model, verdict, asked_position) VALUES (7, 'f/fil-b', 'not_needed', 2)`)).toThrow(/CHECK/);
    expect(() => db.exec(`INSERT INTO filter_votes (instance_id, model, verdict) VALUES (7, 'f/fil-b', 'maybe')`)).toThrow(/CHECK/);
    // Old calls read as synchronous; prices keep their values, batch prices empty.
    db.exec(`INSERT INTO llm_calls (request_hash, endpoint, model, request, status) VALUES ('h', 'x', 'gen', '{}', 'ok')`);
    expect(db.prepare('SELECT mode, batch_id, ambiguity_type FROM llm_calls').get()).toEqual({ mode: 'sync', batch_id: null, ambiguity_type: null });
    expect(() => db.exec(`UPDATE llm_calls SET mode = 'later'`)).toThrow(/CHECK/);
    expect(db.prepare('SELECT input_per_million, batch_input_per_million FROM model_prices').get()).toEqual({ input_per_million: 2, batch_input_per_million: null });
    expect(() => db.exec(`INSERT INTO llm_batches (run_id, stage, endpoint, base_url, model, state, requests) VALUES (1, 'detect', 'f', 'u', 'm', 'planned', 1)`)).toThrow(/FOREIGN KEY/);
  });

  it('triggers-without-update-aliases lets ALTER TABLE rename and drop columns again, with the same triggers in the same order', () => {
    const db = openDatabase(':memory:', { migrate: false });
    migrate(db, migrations.slice(0, 21));
    const triggersOf = () => db.prepare(`SELECT name, tbl_name FROM sqlite_master WHERE type = 'trigger' ORDER BY rowid`).all();
    const before = triggersOf();
    // SQLite's schema check rejects an UPDATE that names its target by an alias inside a trigger.
    expect(() => db.exec('ALTER TABLE datasets RENAME TO datasets_renamed')).toThrow(/no such column: c\.n/);
    db.exec('ALTER TABLE datasets ADD COLUMN scratch TEXT');
    expect(() => db.exec('ALTER TABLE datasets DROP COLUMN scratch')).toThrow(/no such column: c\.n/);
    // Up to 0022 itself: later migrations add triggers of their own.
    migrate(db, migrations.slice(0, 22));
    expect(triggersOf()).toEqual(before);
    const sqlOf = db.prepare(`SELECT sql FROM sqlite_master WHERE type = 'trigger'`).pluck().all() as string[];
    expect(sqlOf.filter((text) => /UPDATE\s+\w+\s+AS\s/i.test(text))).toEqual([]);
    db.exec('ALTER TABLE datasets RENAME TO datasets_renamed; ALTER TABLE datasets_renamed RENAME TO datasets');
    db.exec('ALTER TABLE datasets DROP COLUMN scratch');
    expect(withoutUpdateAliases('UPDATE t AS c SET n = c.n - m.n FROM t m WHERE c.k = m.k; UPDATE u AS g SET size = g.size;')).toBe(
      'UPDATE t SET n = t.n - m.n FROM t m WHERE t.k = m.k; UPDATE u SET size = u.size;',
    );
  });

  it('0024 lets a corpus be read batch by batch after an id, in id order, without reading or sorting the rest', () => {
    const db = memoryDb();
    const a = getOrCreateCorpus(db, 'a');
    const b = getOrCreateCorpus(db, 'b');
    transaction(db, () => {
      for (let i = 0; i < 3000; i++) upsertPassage(db, { corpusId: i % 3 === 0 ? b : a, sourceId: null, title: `${i}`, text: `${i}`, origin: 't' });
    });
    const queries = [
      'SELECT id, title, text FROM passages WHERE corpus_id = ? AND id > ? ORDER BY id LIMIT 100',
      'SELECT id, title, text FROM passages WHERE corpus_id = ? AND id > ? AND id % 2 = 0 ORDER BY id LIMIT 100',
    ];
    const plan = (query: string) => (db.prepare(`EXPLAIN QUERY PLAN ${query}`).all(a, 10) as { detail: string }[]).map((r) => r.detail).join('; ');
    for (const query of queries) expect(plan(query)).not.toMatch(/TEMP B-TREE|sqlite_autoindex_passages_1/);
    // Without the index (and before any statistics), the deduplication index is chosen and every later passage sorted.
    db.exec('DROP INDEX passages_by_corpus');
    for (const query of queries) expect(plan(query)).toMatch(/USING INDEX sqlite_autoindex_passages_1 .*TEMP B-TREE FOR ORDER BY/);
    const ids = (db.prepare('SELECT id FROM passages WHERE corpus_id = ? AND id > ? ORDER BY id LIMIT 5').all(a, 10) as { id: number }[]).map((r) => r.id);
    expect(ids).toEqual([11, 12, 14, 15, 17]);
  });

  it('llm-calls-run-index-dropped: a run\'s calls are still found through an index, and deleting the run still clears them', () => {
    const db = memoryDb();
    expect(all(db, sql`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'llm_calls' AND name = 'llm_calls_run'`)).toEqual([]);
    db.exec(`INSERT INTO runs (id, kind, status) VALUES (1, 'pipeline', 'done'), (2, 'pipeline', 'done')`);
    const call = db.prepare(`INSERT INTO llm_calls (request_hash, run_id, endpoint, model, stage, request, status, prompt_tokens) VALUES (?, ?, 'e', 'm', 'detect', '{}', 'ok', 10)`);
    transaction(db, () => {
      for (let i = 0; i < 500; i++) call.run(`h${i}`, (i % 2) + 1);
    });
    for (const query of [sql`SELECT count(*), sum(prompt_tokens) FROM llm_calls WHERE run_id = ${1}`, sql`SELECT 1 FROM llm_calls WHERE run_id = ${2} LIMIT 1`]) {
      expect(explain(db, query).join('; ')).toMatch(/USING (COVERING )?INDEX llm_calls_run_stage \(run_id=\?\)/);
    }
    expect(all(db, sql`SELECT run_id, count(*) AS n FROM llm_calls GROUP BY 1 ORDER BY 1`)).toEqual([
      { run_id: 1, n: 250 },
      { run_id: 2, n: 250 },
    ]);
    db.exec('DELETE FROM runs WHERE id = 1');
    expect(all(db, sql`SELECT run_id, count(*) AS n FROM llm_calls GROUP BY 1 ORDER BY 1`)).toEqual([
      { run_id: null, n: 250 },
      { run_id: 2, n: 250 },
    ]);
  });

  it('embedding-model-fits counts a fitted model once, and every save after it tells a refit the old tag did not', () => {
    const at = migrations.findIndex((m) => m.name === 'embedding-model-fits');
    const db = openDatabase(':memory:', { migrate: false });
    migrate(db, migrations.slice(0, at));
    const fitted = transaction(db, () => createModel(db, { name: 'fitted', provider: 'offline', model: 'm', dimensions: 24, lexical: true, config: {} }));
    const unfitted = transaction(db, () => createModel(db, { name: 'unfitted', provider: 'offline', model: 'm', dimensions: 24, lexical: true, config: {} }));
    // Two fits of the same size that agree in their first 8 bytes (the sampled passage count and one frequency).
    const first = Buffer.alloc(4096, 1);
    const second = Buffer.alloc(4096, 2);
    second.fill(1, 0, 8);
    const oldTag = (state: Buffer) => `${state.subarray(0, 8).toString('hex').toUpperCase()}:${state.length}`;
    expect(oldTag(first)).toBe(oldTag(second));
    db.prepare('UPDATE embedding_models SET state = ? WHERE id = ?').run(first, fitted.id);
    migrate(db, migrations.slice(0, at + 1));
    expect(getModel(db, fitted.id)).toMatchObject({ state_bytes: 4096, state_tag: '1:4096' });
    expect(getModel(db, unfitted.id)).toMatchObject({ state_bytes: 0, state_tag: '0:0' });
    saveModelState(db, fitted.id, second);
    expect(getModel(db, fitted.id)!.state_tag).toBe('2:4096');
    expect(getModelState(db, fitted.id)).toEqual(second);
  });

  it('base-questions-facet-index reads the base questions grouped by their facet columns from an index alone, with the same groups', () => {
    const at = migrations.findIndex((m) => m.name === 'base-questions-facet-index');
    const db = openDatabase(':memory:', { migrate: false });
    migrate(db, migrations.slice(0, at));
    fillInstances(db, 3000, 6);
    db.exec(`UPDATE base_questions SET answerability = CASE id % 3 WHEN 0 THEN 'answerable' WHEN 1 THEN NULL ELSE 'ambiguous' END`);
    const grouped = 'SELECT dataset_id, hops, answerability, count(*) AS n FROM base_questions GROUP BY 1, 2, 3';
    const plan = () => (db.prepare(`EXPLAIN QUERY PLAN ${grouped}`).all() as { detail: string }[]).map((r) => r.detail).join('; ');
    const before = db.prepare(grouped).all();
    expect(plan()).not.toMatch(/COVERING INDEX/);
    migrate(db, migrations.slice(0, at + 1));
    expect(plan()).toMatch(/SCAN base_questions USING COVERING INDEX base_questions_dataset/);
    expect(plan()).not.toMatch(/TEMP B-TREE/);
    expect(db.prepare(grouped).all()).toEqual(before);
  });

  it('base-questions-sort-indexes gives the base question pages sorted by hops or dataset an index in their order, with the same rows', () => {
    const at = migrations.findIndex((m) => m.name === 'base-questions-sort-indexes');
    const db = openDatabase(':memory:', { migrate: false });
    migrate(db, migrations.slice(0, at));
    fillInstances(db, 2000, 8);
    const pages = ['hops', 'dataset'].flatMap((sort) => ['asc', 'desc'].map((direction) => baseQuestionPageQuery(BaseQuestionQuery.parse({ sort, direction, offset: 40, limit: 30 }))));
    const plans = () => pages.map((q) => (db.prepare(`EXPLAIN QUERY PLAN ${q.text}`).all(...q.params) as { detail: string }[]).map((r) => r.detail).join('; '));
    const rows = () => pages.map((q) => db.prepare(q.text).all(...q.params));
    const before = rows();
    for (const plan of plans()) expect(plan).toMatch(/TEMP B-TREE FOR (LAST TERM OF )?ORDER BY/);
    migrate(db, migrations.slice(0, at + 1));
    for (const plan of plans()) expect(plan).not.toMatch(/TEMP B-TREE/);
    expect(rows()).toEqual(before);
  });

  it('search-indexes-merged leaves each search index in one segment, finding and ranking what it did', () => {
    const at = migrations.findIndex((m) => m.name === 'search-indexes-merged');
    const db = openDatabase(':memory:', { migrate: false });
    migrate(db, migrations.slice(0, at));
    const texts: [number, string, string][] = [];
    fillInstances(db, 2000, 9, false, (id, question, interpretations) => texts.push([id, question, interpretations]));
    // Search rows rewritten in many commits, as the pipeline's stages write them: many segments.
    const rewrite = db.prepare('INSERT INTO instances_fts (rowid, question, interpretations) VALUES (?, ?, ?)');
    for (let part = 0; part < 40; part++) {
      transaction(db, () => {
        for (const [id, question, interpretations] of texts.slice(part * 50, part * 50 + 50)) {
          db.prepare('DELETE FROM instances_fts WHERE rowid = ?').run(id);
          rewrite.run(id, question, interpretations);
        }
      });
    }
    const random = rng(10);
    const searches = Array.from({ length: 30 }, () => toFtsQuery(`${words(random, 1)} ${words(random, 1).slice(0, 2)}`, { prefixLast: true })!);
    const found = () =>
      searches.map((fts) => [
        db.prepare('SELECT rowid, rank FROM instances_fts WHERE instances_fts MATCH ? ORDER BY rank, rowid').all(fts),
        db.prepare('SELECT rowid, rank FROM base_questions_fts WHERE base_questions_fts MATCH ? ORDER BY rank, rowid').all(fts),
      ]);
    // Base questions added by later imports, each in its commit.
    for (let k = 0; k < 10; k++) {
      transaction(db, () => db.prepare(`INSERT INTO base_questions (dataset_id, source_id, question) VALUES (1, ?, ?)`).run(`late-${k}`, `What ${words(random, 6)}?`));
    }
    const segments = (table: string) => db.prepare(`SELECT count(DISTINCT segid) FROM ${table}_idx`).pluck().get() as number;
    const before = found();
    expect(before.flat(2).length).toBeGreaterThan(100);
    expect(segments('instances_fts')).toBeGreaterThan(1);
    expect(segments('base_questions_fts')).toBeGreaterThan(1);
    migrate(db, migrations.slice(0, at + 1));
    expect(segments('instances_fts')).toBe(1);
    expect(segments('base_questions_fts')).toBe(1);
    expect(found()).toEqual(before);
  });

  it('vector-code-blocks writes the codes of every stored vector into blocks, as storing them now does', () => {
    const at = migrations.findIndex((m) => m.name === 'vector-code-blocks');
    const db = openDatabase(':memory:', { migrate: false });
    migrate(db, migrations.slice(0, at));
    const corpora = [getOrCreateCorpus(db, 'a'), getOrCreateCorpus(db, 'b')];
    const model = transaction(db, () => createModel(db, { name: 'm', provider: 'offline', model: 'm', dimensions: 24, lexical: true, config: {} }));
    const random = rng(3);
    const stored = new Map<number, { id: number; vector: Float32Array }[]>(corpora.map((c) => [c, []]));
    // 5,000 vectors in corpus a (two blocks: 4,096 and 904), 3 in b; one vector replaced.
    transaction(db, () => {
      for (let i = 0; i < 5003; i++) {
        const corpus = i < 5000 ? corpora[0]! : corpora[1]!;
        const { id } = upsertPassage(db, { corpusId: corpus, sourceId: null, title: `${i}`, text: `${i}`, origin: 't' });
        const vector = Float32Array.from({ length: 24 }, () => random() - 0.5);
        db.prepare(`INSERT INTO "embeddings_${model.id}" (passage_id, corpus_id, vector) VALUES (?, ?, ?)`).run(id, corpus, toBlob(vector));
        stored.get(corpus)!.push({ id, vector });
      }
    });
    expect(schemaVersion(db)).toBe(at);
    migrate(db);
    for (const corpus of corpora) {
      const rows = stored.get(corpus)!;
      const blocks = [...codeBlocksAfter(db, model.id, corpus, 0)];
      expect(blocks.map((b) => b.size)).toEqual(corpus === corpora[0] ? [4096, 904] : [3]);
      for (const [n, block] of blocks.entries()) {
        const part = rows.slice(n * 4096, (n + 1) * 4096);
        const expected = layoutBlock(24, part.map((r) => r.id), part.map((r) => encodeVector(r.vector)));
        expect({ ...block, id: 0 }).toEqual({ ...expected, id: 0 });
      }
    }
    // Vectors stored after the migration get their codes with them.
    const { id } = upsertPassage(db, { corpusId: corpora[1]!, sourceId: null, title: 'new', text: 'new', origin: 't' });
    transaction(db, () => storeEmbeddings(db, model.id, [{ passageId: id, corpusId: corpora[1]!, vector: new Float32Array(24).fill(0.5) }]));
    expect(codeBlockSummary(db, model.id, null)).toMatchObject({ blocks: 4, codes: 5004 });
  });

  it('vector-code-block-ids keeps every block and its id, and never gives a new block an id used before', () => {
    const at = migrations.findIndex((m) => m.name === 'vector-code-block-ids');
    const db = openDatabase(':memory:', { migrate: false });
    migrate(db, migrations.slice(0, at));
    const corpus = getOrCreateCorpus(db, 'a');
    const model = transaction(db, () => createModel(db, { name: 'm', provider: 'offline', model: 'm', dimensions: 32, lexical: true, config: {} }));
    const store = (title: string) => {
      const { id } = upsertPassage(db, { corpusId: corpus, sourceId: null, title, text: title, origin: 't' });
      transaction(db, () => storeEmbeddings(db, model.id, [{ passageId: id, corpusId: corpus, vector: Float32Array.from({ length: 32 }, (_, i) => Math.sin(i + id)) }]));
    };
    for (const title of ['a', 'b', 'c']) store(title);
    db.exec('DELETE FROM vector_code_blocks WHERE id = 1');
    const before = db.prepare('SELECT * FROM vector_code_blocks ORDER BY id').all();
    migrate(db, migrations.slice(0, at + 1));
    expect(schemaVersion(db)).toBe(at + 1);
    expect(db.prepare('SELECT * FROM vector_code_blocks ORDER BY id').all()).toEqual(before);
    // Emptied and written again (as a refit does), the table still gives ids above every old one.
    db.exec('DELETE FROM vector_code_blocks');
    store('d');
    expect(db.prepare('SELECT id FROM vector_code_blocks').all()).toEqual([{ id: 4 }]);
    expect(() => db.exec('UPDATE vector_code_blocks SET size = 0')).toThrow(/CHECK/);
  });
});

