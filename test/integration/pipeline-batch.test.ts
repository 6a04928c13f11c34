import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../db/connection';
import type { WritableDB } from '../../db/sql';
import { importFile } from '../../electron/services/import/import-file';
import { runPipeline } from '../../electron/services/pipeline/run';
import { embedCorpus } from '../../electron/services/retrieval/models';
import { getRun } from '../../db/queries/runs';
import { tempDir, writeFile } from '../helpers/db';
import type { FakeOpenAI } from '../helpers/fake-openai';
import { fakeOpenAIForFile } from '../helpers/fake-openai-suite';
import { pipelineBrain, SPRINGFIELD_RECORDS } from '../helpers/fake-pipeline';

/**
 * Batch mode through OpenAI's Batch API (issue 26, item 3), with the real `openai` SDK against a
 * fake Batch endpoint on 127.0.0.1 whose time moves one step per poll: the same outcome as
 * synchronous calls at half the price, and each bad case: a batch that expires part done, lines
 * that fail, a provider without batches, a batch that never completes, a run closed while its
 * batch is out (resumed under the same id, nothing paid asked twice, even when the batch id was
 * never stored), and a cost ceiling reached mid-stage.
 */

const tmp = tempDir('awb-batch-');
let fake: FakeOpenAI;
const PRICES = { gen: { input: 2, output: 8 }, ...Object.fromEntries(['det-a', 'det-b', 'det-c', 'det-d', 'fil-a', 'fil-b', 'fil-c'].map((m) => [m, { input: 1, output: 2 }])) };

function config(batch: Record<string, unknown> = {}, more: Record<string, unknown> = {}) {
  return {
    endpoints: { fake: { baseURL: fake.url, apiKeyEnv: 'AWB_TEST_KEY', maxInFlight: 8, retries: 1, timeoutMs: 60_000 } },
    detectors: ['det-a', 'det-b', 'det-c', 'det-d'].map((model) => ({ endpoint: 'fake', model })),
    generator: { endpoint: 'fake', model: 'gen' },
    filters: ['fil-a', 'fil-b', 'fil-c'].map((model) => ({ endpoint: 'fake', model })),
    retrieval: { corpus: 'Springfields', mode: 'hybrid', k: 3 },
    prices: PRICES,
    earlyExit: { order: 'config' },
    batch: { enabled: true, pollSeconds: 0.01, idleFlushMs: 20, ...batch },
    ...more,
  };
}

let counter = 0;
async function freshDb(): Promise<WritableDB> {
  const db = openDatabase(tmp.file(`batch-${++counter}.db`));
  const data = writeFile(tmp.file(`batch-${counter}.json`), JSON.stringify(SPRINGFIELD_RECORDS));
  await importFile(db, { file: data, format: 'musique', dataset: 'Springfields' });
  await embedCorpus(db, { corpus: 'Springfields', provider: 'offline', dimensions: 256 });
  return db;
}

const chat = () => fake.requests.filter((r) => r.path.endsWith('/chat/completions'));
const kept = (db: WritableDB) => db.prepare("SELECT ambiguity_type || ':' || status AS s FROM instances WHERE ambiguity_type <> 'unspecified' ORDER BY 1").all();
const batches = (db: WritableDB) => db.prepare('SELECT state, attempt, requests, completed, failed FROM llm_batches ORDER BY id').all() as { state: string; attempt: number; requests: number; completed: number; failed: number }[];
const modes = (db: WritableDB) => db.prepare('SELECT mode, count(*) AS n FROM llm_calls GROUP BY mode ORDER BY mode').all();

fakeOpenAIForFile((f) => {
  fake = f;
  f.chat = pipelineBrain({ ambiguous: (q) => q.includes('Springfield') });
  f.batch.options = {};
}, tmp.cleanup);

describe('a batched run', () => {
  it('keeps what a synchronous run keeps, every call answered by a batch at half the synchronous price', async () => {
    const syncDb = await freshDb();
    const sync = await runPipeline(syncDb, { config: config({ enabled: false }) });
    const db = await freshDb();
    fake.requests.length = 0;
    const run = await runPipeline(db, { config: config() });
    expect(run.status).toBe('done');
    expect(kept(db)).toEqual(kept(syncDb));
    expect(kept(db)).toContainEqual({ s: 'semantic:ready' });
    expect(chat()).toHaveLength(0);
    expect(modes(db)).toEqual([{ mode: 'batch', n: sync.calls }]);
    expect(run.costUsd).toBeCloseTo(sync.costUsd / 2, 10);
    expect(batches(db).every((b) => b.state === 'completed' && b.failed === 0)).toBe(true);
    // One batch per endpoint, model and stage round: the four detectors, then the generator's stages, then the filters in order.
    expect(new Set((db.prepare('SELECT model FROM llm_batches').all() as { model: string }[]).map((b) => b.model))).toEqual(new Set(['det-a', 'det-b', 'det-c', 'det-d', 'gen', 'fil-a', 'fil-b', 'fil-c']));
    expect(run.stages.find((s) => s.stage === 'detect')!.batchCalls).toBe(run.stages.find((s) => s.stage === 'detect')!.calls);
    syncDb.close();
    db.close();
  });

  it('reads back what an expired batch finished (it is paid for) and sends the rest again', async () => {
    fake.batch.options = { expireAfterPolls: 1, expireDone: 0.6 };
    const db = await freshDb();
    const before = fake.batch.answered.length;
    const run = await runPipeline(db, { config: config({ resubmit: 3 }) });
    expect(run.status).toBe('done');
    expect(kept(db)).toContainEqual({ s: 'semantic:ready' });
    const all = batches(db);
    expect(all.some((b) => b.attempt > 1)).toBe(true);
    expect(all.some((b) => b.state === 'expired' && b.completed > 0)).toBe(true);
    expect(db.prepare('SELECT count(*) AS n FROM llm_batches WHERE ingested_at IS NULL').get()).toEqual({ n: 0 });
    // Every line answered once: nothing read back was asked again.
    const answered = fake.batch.answered.slice(before);
    expect(new Set(answered).size).toBe(answered.length);
    // What no batch answered in the end went synchronously (a one-line batch that expires never finishes its line).
    expect(answered.length + chat().length).toBe(run.calls);
    db.close();
  });

  it('sends failed lines in another batch, then synchronously; with fallback "fail" their items fail with the reason', async () => {
    fake.batch.options = { failEvery: 2 };
    const db = await freshDb();
    const run = await runPipeline(db, { config: config({ resubmit: 0 }) });
    expect(run.status).toBe('done');
    expect(kept(db)).toContainEqual({ s: 'semantic:ready' });
    expect(chat().length).toBeGreaterThan(0);
    expect((modes(db) as { mode: string }[]).map((m) => m.mode)).toEqual(['batch', 'sync']);
    db.close();

    const failing = await freshDb();
    const stopped = await runPipeline(failing, { config: config({ resubmit: 0, fallback: 'fail' }), stages: ['detect'] });
    expect(stopped.stages[0]!.failed).toBeGreaterThan(0);
    const reason = (failing.prepare("SELECT reason FROM pipeline_items WHERE status = 'failed'").get() as { reason: string }).reason;
    expect(reason).toMatch(/not answered in a batch \(batch \d+: status 500: scripted line failure\), and batch.fallback is "fail"/);
    failing.close();
  });

  it('goes synchronously where the provider has no Batch API, and says so; with fallback "fail" the run stops with the reason', async () => {
    fake.batch.options = { supported: false };
    const db = await freshDb();
    const run = await runPipeline(db, { config: config() });
    expect(run.status).toBe('done');
    expect(kept(db)).toContainEqual({ s: 'semantic:ready' });
    expect(run.log.some((l) => /endpoint fake \(http:\/\/127\.0\.0\.1:\d+\/v1\) has no Batch API \(404 on \/files\): its calls go synchronously/.test(l))).toBe(true);
    expect(modes(db)).toEqual([{ mode: 'sync', n: run.calls }]);
    db.close();

    const strict = await freshDb();
    const stopped = await runPipeline(strict, { config: config({ fallback: 'fail' }) });
    expect(stopped.status).toBe('cancelled');
    expect(stopped.error).toMatch(/has no Batch API .*batch.fallback is "fail": the run stopped/);
    expect(strict.prepare("SELECT count(*) AS n FROM pipeline_items WHERE status = 'failed'").get()).toEqual({ n: 0 });
    strict.close();
  });

  it('cancels a batch that never completes after maxWaitHours, keeps what it finished, and sends the rest again', async () => {
    fake.batch.options = { neverComplete: true };
    const db = await freshDb();
    const run = await runPipeline(db, { config: config({ maxWaitHours: 1e-9, resubmit: 1 }), stages: ['detect'] });
    expect(run.status).toBe('done');
    expect(batches(db).some((b) => b.completed > 0 && b.failed > 0)).toBe(true);
    expect(run.log.some((l) => /was still in_progress after 1e-9 h: cancelled; what it finished is kept/.test(l))).toBe(true);
    // The rest went synchronously in the end; every question was decided.
    expect(chat().length).toBeGreaterThan(0);
    expect(run.stages[0]).toMatchObject({ processed: 2, done: 2, failed: 0 });
    db.close();
  });

  it('sends a batch again when the provider queue was full', async () => {
    fake.batch.options = { tokenLimitOnce: true };
    const db = await freshDb();
    const run = await runPipeline(db, { config: config(), stages: ['detect'] });
    expect(run.status).toBe('done');
    expect(run.log.some((l) => /token_limit_exceeded/.test(l))).toBe(true);
    expect(chat()).toHaveLength(0);
    db.close();
  });
});

describe('a run closed while its batch is out', () => {
  it('is waiting, and resumes under the same id from the stored batch, asking nothing twice, even when the batch id was never stored', async () => {
    fake.batch.options = { neverComplete: true };
    const db = await freshDb();
    const before = fake.batch.created.length;
    const answeredBefore = fake.batch.answered.length;
    const controller = new AbortController();
    // Close the run once its first batch is in progress at the provider.
    const handle = fake.batch.handle;
    fake.batch.handle = async (...args) => {
      const reply = await handle(...args);
      if (reply && /"status":"in_progress"/.test(reply.body)) controller.abort();
      return reply;
    };
    const first = await runPipeline(db, { config: config(), stages: ['detect'], signal: controller.signal });
    fake.batch.handle = handle;
    expect(first.status).toBe('waiting');
    expect(getRun(db, first.id)!.status).toBe('waiting');
    expect(fake.batch.created.length).toBeGreaterThan(before);
    // As if the process had died between creating one batch and storing its id.
    db.prepare("UPDATE llm_batches SET state = 'uploaded', provider_batch_id = NULL WHERE id = (SELECT min(id) FROM llm_batches)").run();

    fake.batch.options = {};
    const resumed = await runPipeline(db, { config: config(), stages: ['detect'], resume: first.id });
    expect(resumed.id).toBe(first.id);
    expect(resumed.status).toBe('done');
    // Every batch created at the provider is one stored here: the one whose id was lost was found by its metadata, not created again.
    expect(fake.batch.created.length - before).toBe((db.prepare('SELECT count(*) AS n FROM llm_batches').get() as { n: number }).n);
    const answered = fake.batch.answered.slice(answeredBefore);
    expect(new Set(answered).size).toBe(answered.length);
    expect(chat()).toHaveLength(0);
    expect(db.prepare("SELECT count(*) AS n FROM pipeline_items WHERE stage = 'detect' AND status = 'done'").get()).toEqual({ n: 2 });
    db.close();
  });
});

describe('a cost ceiling', () => {
  it('stops the run before a call would pass it, keeps every paid answer, and a higher ceiling finishes with no call repeated', async () => {
    const db = await freshDb();
    const first = await runPipeline(db, { config: config({ enabled: false }, { budget: { maxUsd: 0.005 } }) });
    expect(first.status).toBe('cancelled');
    expect(first.error).toMatch(/^cost ceiling reached: \$[\d.]+ spent and \$[\d.]+ reserved by calls in flight, of \$0\.0050\. The next call would have passed it/);
    expect(first.costUsd).toBeLessThanOrEqual(0.005);
    // The calls already on their way when the ceiling was reached finished, and each is recorded.
    expect(first.calls).toBeGreaterThan(0);
    expect(first.calls).toBe(chat().length);
    expect(db.prepare("SELECT count(*) AS n FROM pipeline_items WHERE status = 'failed'").get()).toEqual({ n: 0 });
    const second = await runPipeline(db, { config: config({ enabled: false }, { budget: { maxUsd: 1 } }) });
    expect(second.status).toBe('done');
    const bodies = chat().map((r) => JSON.stringify(r.body));
    expect(new Set(bodies).size).toBe(bodies.length);
    expect(kept(db)).toContainEqual({ s: 'semantic:ready' });
    db.close();
  });

  it('refuses a ceiling in dollars when a model has no price, before any call', async () => {
    const db = await freshDb();
    await expect(runPipeline(db, { config: config({}, { prices: { gen: { input: 2, output: 8 } }, budget: { maxUsd: 1 } }) })).rejects.toThrow(/budget.maxUsd needs a price for every model, and det-a, det-b, det-c, det-d, fil-a, fil-b, fil-c have none/);
    expect(chat()).toHaveLength(0);
    db.close();
  });
});
