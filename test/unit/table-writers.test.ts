import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../db/connection';
import { writersByTable, writeSites } from '../../scripts/table-writers';
import { ROOT } from '../helpers/db';

// One query module per table, and one writer per table (ARCHITECTURE.md, db/): checked on the
// source by the same scan `npx tsx scripts/table-writers.ts` prints.

/**
 * Tables written by the module of the table they belong to: rows that exist only as part of
 * their owner's (a question's passages, an interpretation's citations), search and count tables
 * kept with their source, and the vector store's tables, named per model at run time.
 */
const PART_OF: Record<string, string> = {
  base_question_passages: 'base-questions',
  decomposition_steps: 'base-questions',
  instances_fts: 'instances',
  passages_fts: 'passages',
  sub_questions: 'interpretations',
  interpretation_citations: 'interpretations',
  long_answer_citations: 'long-answers',
  campaign_annotators: 'campaigns',
  campaign_items: 'campaigns',
  account_sessions: 'accounts',
  account_tokens: 'accounts',
  audit_log: 'audit',
  release_chunks: 'releases',
  instance_order_settings: 'instances-order',
  release_instances: 'releases',
  llm_batch_requests: 'llm-batches',
  embedding_models: 'embeddings',
  vector_counts: 'embeddings',
  'vec_*': 'embeddings',
  '<dynamic>': 'embeddings',
};

/** Modules that read across tables on purpose, each saying why in its opening comment. */
const READERS = ['records', 'evaluation-gold', 'stats'];

const moduleOf = (table: string) => PART_OF[table] ?? table.replaceAll('_', '-');
const sqliteSites = () => writeSites(ROOT).filter((site) => site.module.startsWith('db/queries/'));

describe('the SQLite tables', () => {
  it('each have one writer module, the one named for the table (or for the table it belongs to)', () => {
    const writers = writersByTable(sqliteSites());
    expect(writers.size).toBeGreaterThan(40);
    for (const [table, modules] of writers) {
      expect(modules, table).toEqual([`db/queries/${moduleOf(table)}.ts`]);
    }
  });

  it('are each written somewhere, or only ever read (the schema has no table without an owner)', () => {
    const db = openDatabase(':memory:');
    try {
      const tables = (db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '%fts_%' AND name <> 'schema_migrations'").all() as { name: string }[]).map((r) => r.name);
      const written = writersByTable(sqliteSites());
      // Kept by triggers alone: the instance counts and the base questions' search rows (0001), the
      // instance table's order counts (0017), the failure table's counts (0025), its runs' versions
      // (0031), and the question order with its row count (0033).
      const byTriggers = [
        'instance_counts', 'base_questions_fts', 'instance_blocks', 'instance_order_counts', 'instance_fences_updated', 'instance_fences_question',
        'instance_fences_source', 'eval_item_blocks', 'eval_item_versions', 'instance_question_order', 'instance_question_order_rows',
      ];
      const unowned = tables.filter((t) => !written.has(t) && !byTriggers.includes(t));
      expect(unowned).toEqual([]);
    } finally {
      db.close();
    }
  });
});

describe('the query modules', () => {
  it('are each named for a table (or a table and an aspect of it), or are a declared cross-table reader', () => {
    const db = openDatabase(':memory:');
    const tables = new Set((db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").all() as { name: string }[]).map((r) => r.name.replaceAll('_', '-')));
    db.close();
    const modules = fs.readdirSync(path.join(ROOT, 'db', 'queries')).map((f) => f.replace(/\.ts$/, ''));
    const owners = new Set(Object.values(PART_OF));
    const unnamed = modules.filter((m) => !tables.has(m) && !owners.has(m) && !READERS.includes(m) && ![...tables].some((t) => m.startsWith(`${t}-`)));
    expect(unnamed).toEqual([]);
  });

  it('that read across tables say why in their opening comment', () => {
    for (const reader of READERS) {
      const text = fs.readFileSync(path.join(ROOT, 'db', 'queries', `${reader}.ts`), 'utf8');
      const opening = /\/\*\*[\s\S]*?\*\//.exec(text)?.[0] ?? '';
      expect(opening, reader).toMatch(/across tables/i);
    }
  });

  it('the scan finds writes in every form the modules use: upserts, INSERT OR REPLACE, names built at run time', () => {
    const sites = sqliteSites();
    const verbs = new Set(sites.map((s) => s.verb));
    expect([...verbs].sort()).toEqual(['DELETE', 'INSERT', 'UPDATE']);
    expect(sites.some((s) => s.table === 'retrieval_cache')).toBe(true);
    expect(sites.some((s) => s.table === 'vec_*')).toBe(true);
    // An upsert's DO UPDATE SET is part of its INSERT, not a write of a table named SET.
    expect(sites.some((s) => s.table.toUpperCase() === 'SET')).toBe(false);
  });
});
