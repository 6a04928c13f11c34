import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../db/connection';
import type { WritableDB } from '../../db/sql';
import { importFile } from '../../electron/services/import/import-file';
import { LlmClient } from '../../electron/services/pipeline/llm';
import { runPipeline } from '../../electron/services/pipeline/run';
import { embedCorpus } from '../../electron/services/retrieval/models';
import { tempDir, writeFile } from '../helpers/db';
import { startFakeOpenAI, type FakeOpenAI } from '../helpers/fake-openai';
import { pipelineBrain } from '../helpers/fake-pipeline';
import { everyVoterConfig, shortQuestions, storedRows } from '../helpers/pipeline-rows';

/**
 * Group commit (items answered in one turn of the event loop commit together) must never lose a
 * paid call. A run whose group commit fails part-way (as a full disk or a killed process would
 * leave it) keeps every answer the endpoint gave, fails loudly rather than count the lost items as
 * done, and the next run redoes those items from the cache alone: it sends no request twice and
 * stores what an uninterrupted run stores, row by row.
 */

const tmp = tempDir('awb-group-commit-');
let fake: FakeOpenAI;
let questionsFile: string;

const config = () => everyVoterConfig(fake.url, 'groups');

async function freshDb(name: string): Promise<WritableDB> {
  const db = openDatabase(tmp.file(name));
  await importFile(db, { file: questionsFile, format: 'musique', dataset: 'groups' });
  await embedCorpus(db, { corpus: 'groups', provider: 'offline', dimensions: 256 });
  return db;
}

/** The request bodies the fake endpoint received from `from` on, as text (a request sent twice shows twice). */
const sentSince = (from: number) => fake.requests.slice(from).filter((r) => r.path.endsWith('/chat/completions')).map((r) => JSON.stringify(r.body));

/** The stored rows, with each call compared by what it asked and answered (its id, time and latency differ between databases). */
function rowsOf(db: WritableDB): Record<string, string[]> {
  const calls = db.prepare('SELECT request_hash, model, stage, status, response, error, prompt_tokens, completion_tokens FROM llm_calls').all().map((r) => JSON.stringify(r)).sort();
  return { ...storedRows(db), calls };
}

/** Makes the connection's next group commit after `armed()` turns true fail, as a full disk would (SQLite rolls the group back). */
function failOneGroupCommit(db: WritableDB, armed: () => boolean): { failed: () => boolean } {
  const exec = db.exec.bind(db);
  let failed = false;
  (db as { exec: (source: string) => WritableDB }).exec = (source: string) => {
    if (source === 'COMMIT' && !failed && armed()) {
      failed = true;
      throw Object.assign(new Error('database or disk is full (simulated)'), { code: 'SQLITE_FULL' });
    }
    return exec(source) as WritableDB;
  };
  return { failed: () => failed };
}

beforeAll(async () => {
  fake = await startFakeOpenAI();
  fake.chat = pipelineBrain({ ambiguous: (q) => q.length % 3 === 0 });
  const records = shortQuestions(40, 8);
  questionsFile = writeFile(tmp.file('questions.json'), JSON.stringify(records));
});
afterAll(async () => {
  await fake.close();
  tmp.cleanup();
});

describe('group commit', () => {
  it('loses no paid call when a group fails to commit, and the next run redoes its items from the cache', async () => {
    const reference = await freshDb('reference.db');
    const whole = await runPipeline(reference, { config: config() });
    expect(whole.status).toBe('done');
    const expected = rowsOf(reference);
    reference.close();

    const db = await freshDb('crash.db');
    // Half the questions answered once already: the run below replays those from the cache (in groups) and pays for the rest.
    const warmStart = fake.requests.length;
    const warm = await runPipeline(db, { config: config(), limit: 20 });
    expect(warm.status).toBe('done');
    db.exec(`DELETE FROM pipeline_items; DELETE FROM detection_votes; DELETE FROM instances WHERE ambiguity_type <> 'unspecified';`);
    const before = fake.requests.length;
    const fault = failOneGroupCommit(db, () => sentSince(before).length >= 60);
    await expect(runPipeline(db, { config: config() })).rejects.toThrow(/disk is full \(simulated\)/);
    expect(fault.failed()).toBe(true);
    const paid = sentSince(before);
    expect(paid.length).toBeGreaterThanOrEqual(60);
    // Every answer the endpoint gave is stored, the lost group notwithstanding.
    const storedHashes = new Set(db.prepare("SELECT request_hash FROM llm_calls WHERE status = 'ok'").pluck().all() as string[]);
    expect(sentSince(warmStart).filter((body) => !storedHashes.has(LlmClient.hash(fake.url, JSON.parse(body))))).toEqual([]);
    const afterFailure = fake.requests.length;

    const resumed = await runPipeline(db, { config: config() });
    expect(resumed.status).toBe('done');
    // Nothing paid for before the failure is asked again: those answers came from the cache.
    const again = new Set(sentSince(afterFailure));
    expect(paid.filter((body) => again.has(body))).toEqual([]);
    expect(rowsOf(db)).toEqual(expected);
    db.close();
  });
});
