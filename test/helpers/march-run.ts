import fs from 'node:fs';
import path from 'node:path';
import { openDatabase } from '../../db/connection';
import type { WritableDB } from '../../db/sql';
import { importFile } from '../../electron/services/import/import-file';
import { embedCorpus } from '../../electron/services/retrieval/models';
import { musiqueRecord, rng } from './synthetic';

/**
 * A MARCH-shaped run for the economy tests and the bench: synthetic MuSiQue questions (four
 * passages each), MARCH's models with their OpenRouter prices (resources/pipeline.example.json),
 * and a config against a fake endpoint whose answers follow MARCH_PROFILE.
 */

export const MARCH_PRICES = {
  'openai/gpt-4.1': { input: 2.0, output: 8.0 },
  'meta-llama/llama-4-maverick': { input: 0.15, output: 0.6 },
  'qwen/qwen3-235b-a22b': { input: 0.13, output: 0.6 },
  'anthropic/claude-sonnet-4': { input: 3.0, output: 15.0 },
};

/**
 * The fake profile draws false-yes rates by the position a model's name ends with, so the detectors
 * and filters are named in MARCH's order with a position suffix: `#1` is the first named.
 */
export function marchConfig(url: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const ref = (model: string) => ({ endpoint: 'fake', model });
  return {
    endpoints: { fake: { baseURL: url, maxInFlight: 64, retries: 2, timeoutMs: 30_000 } },
    detectors: ['openai/gpt-4.1-1', 'meta-llama/llama-4-maverick-2', 'qwen/qwen3-235b-a22b-3', 'anthropic/claude-sonnet-4-4'].map(ref),
    generator: ref('openai/gpt-4.1'),
    filters: ['meta-llama/llama-4-maverick-1', 'qwen/qwen3-235b-a22b-2', 'anthropic/claude-sonnet-4-3'].map(ref),
    retrieval: { corpus: 'march', mode: 'hybrid', k: 3 },
    concurrency: 64,
    prices: Object.fromEntries(
      Object.entries(MARCH_PRICES).flatMap(([model, price]) => [[model, price], ...[1, 2, 3, 4].map((n) => [`${model}-${n}`, price])]),
    ),
    ...overrides,
  };
}

/** A fresh database holding `count` synthetic questions (seeded: the same questions every time) and their passages, embedded. */
export async function marchDb(file: string, count: number): Promise<WritableDB> {
  const db = openDatabase(file);
  const random = rng(26);
  const records = Array.from({ length: count }, (_, i) => {
    const record = musiqueRecord(i, random, 500);
    return { ...record, paragraphs: record.paragraphs.slice(0, 4), question_decomposition: record.question_decomposition.map((s) => ({ ...s, paragraph_support_idx: Math.min(s.paragraph_support_idx, 3) })) };
  });
  const json = path.join(path.dirname(file), `${path.basename(file)}.questions.json`);
  fs.writeFileSync(json, JSON.stringify(records));
  await importFile(db, { file: json, format: 'musique', dataset: 'march' });
  await embedCorpus(db, { corpus: 'march', provider: 'offline', dimensions: 256 });
  return db;
}

/** What a run kept and removed, by question and type, and the content of every kept instance (no votes, no provenance). */
export function outcomes(db: WritableDB): { kept: string[]; removed: string[]; content: Record<string, unknown> } {
  const rows = db
    .prepare(
      `SELECT i.id, b.source_id || '/' || i.ambiguity_type AS key, i.status, i.removed_stage FROM instances i JOIN base_questions b ON b.id = i.base_question_id
       WHERE i.ambiguity_type <> 'unspecified' ORDER BY key`,
    )
    .all() as { id: number; key: string; status: string; removed_stage: string | null }[];
  const content: Record<string, unknown> = {};
  for (const row of rows.filter((r) => r.status === 'ready')) {
    content[row.key] = {
      interpretations: db
        .prepare('SELECT position, clarified_question, short_answer, answer_start, answer_end, status, dropped_reason FROM interpretations WHERE instance_id = ? ORDER BY position')
        .all(row.id),
      subQuestions: db.prepare('SELECT s.position, s.question FROM sub_questions s JOIN interpretations p ON p.id = s.interpretation_id WHERE p.instance_id = ? ORDER BY p.position, s.position').all(row.id),
      evidence: db.prepare('SELECT e.rank, e.passage_id, e.score FROM evidence e WHERE e.instance_id = ? ORDER BY e.interpretation_id, e.rank').all(row.id),
      longAnswers: db.prepare('SELECT position, text FROM long_answers WHERE instance_id = ? ORDER BY position').all(row.id),
    };
  }
  return {
    kept: rows.filter((r) => r.status === 'ready').map((r) => r.key),
    removed: rows.filter((r) => r.status === 'removed').map((r) => `${r.key}@${r.removed_stage}`),
    content,
  };
}
