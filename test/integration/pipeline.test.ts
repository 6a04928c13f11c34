import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { openDatabase } from '../../db/connection';
import type { WritableDB } from '../../db/sql';
import { listInstances } from '../../db/queries/instances';
import { importFile } from '../../electron/services/import/import-file';
import { LlmClient } from '../../electron/services/pipeline/llm';
import { itemTrace, parseConfig, pipelineFunnel, runPipeline } from '../../electron/services/pipeline/run';
import { inThread, startRetrievalWorker } from '../../electron/services/pipeline/retrieval-work';
import { embedCorpus } from '../../electron/services/retrieval/models';
import { EmbeddedRetriever } from '../../electron/services/retrieval/search';
import { instanceDetail } from '../../electron/services/browse';
import { InstanceQuery } from '../../shared/api';
import { PIPELINE_STAGES } from '../../shared/domain';
import { AWB, awbJson, awbJsonAsync } from '../helpers/cli';
import { ROOT, tempDir, writeFile } from '../helpers/db';
import { heldReplies, startFakeOpenAI, type ChatReply, type FakeOpenAI } from '../helpers/fake-openai';
import { pipelineBrain, schemaOf, SPRINGFIELD_RECORDS } from '../helpers/fake-pipeline';

/**
 * The pipeline against a fake OpenAI-compatible server on 127.0.0.1, through the real `openai`
 * SDK: a full run, the cache, resume after kill -9, and every kind of bad answer.
 */

const tmp = tempDir('awb-pipeline-');
let fake: FakeOpenAI;


function config(overrides: Record<string, unknown> = {}, endpoint: Record<string, unknown> = {}) {
  return {
    endpoints: { fake: { baseURL: fake.url, apiKeyEnv: 'AWB_TEST_KEY', maxInFlight: 8, retries: 2, timeoutMs: 2000, ...endpoint } },
    detectors: ['det-a', 'det-b', 'det-c', 'det-d'].map((model) => ({ endpoint: 'fake', model })),
    generator: { endpoint: 'fake', model: 'gen' },
    filters: ['fil-a', 'fil-b', 'fil-c'].map((model) => ({ endpoint: 'fake', model })),
    retrieval: { corpus: 'Springfields', mode: 'hybrid', k: 3 },
    prices: { gen: { input: 2, output: 8 } },
    // These tests count the calls of a run that asks every voter; early exit has its own (pipeline-economy.test.ts).
    earlyExit: { enabled: false },
    ...overrides,
  };
}

async function freshDb(name: string): Promise<{ db: WritableDB; file: string }> {
  const file = tmp.file(name);
  const db = openDatabase(file);
  const data = writeFile(tmp.file(`${name}.json`), JSON.stringify(SPRINGFIELD_RECORDS));
  expect((await importFile(db, { file: data, format: 'musique', dataset: 'Springfields' })).committed).toBe(true);
  await embedCorpus(db, { corpus: 'Springfields', provider: 'offline', dimensions: 256 });
  return { db, file };
}

const chatRequests = () => fake.requests.filter((r) => r.path.endsWith('/chat/completions'));

beforeAll(async () => {
  fake = await startFakeOpenAI();
});
afterAll(async () => {
  await fake.close();
  tmp.cleanup();
});
beforeEach(() => {
  fake.requests.length = 0;
  fake.chat = pipelineBrain({ ambiguous: (q) => q.includes('Springfield') });
});

describe('the pipeline config', () => {
  it('refuses a filter model that is the generator, and unknown endpoints', () => {
    expect(() => parseConfig(config({ filters: [{ endpoint: 'fake', model: 'gen' }] }))).toThrow(/filters\.0\.model: the filter model "gen" is the generator/);
    expect(() => parseConfig(config({ generator: { endpoint: 'nowhere', model: 'gen' } }))).toThrow(/generator\.endpoint: no endpoint named "nowhere"/);
    expect(() => parseConfig({ ...config(), temperature: 'hot' })).toThrow(/temperature/);
  });

  it('validates the shipped example', () => {
    const example = JSON.parse(fs.readFileSync(`${ROOT}/resources/pipeline.example.json`, 'utf8')) as unknown;
    const parsed = parseConfig(example);
    expect(parsed.detectors).toHaveLength(4);
    expect(parsed.filters).toHaveLength(3);
    expect(parsed).toMatchObject({ temperature: 0, maxTokens: 512 });
  });

  it('points every endpoint at AWB_BASE_URL when it is set', () => {
    process.env.AWB_BASE_URL = 'http://127.0.0.1:9/v1';
    try {
      const parsed = parseConfig(config({}, { baseURL: 'https://api.example.com/v1' }));
      expect(Object.values(parsed.endpoints).map((e) => e.baseURL)).toEqual(['http://127.0.0.1:9/v1']);
    } finally {
      delete process.env.AWB_BASE_URL;
    }
  });

  it('needs a key for a remote endpoint, named by its variable', async () => {
    const { db } = await freshDb('keys.db');
    expect(() => new LlmClient(db, parseConfig(config({}, { baseURL: 'https://api.example.com/v1', apiKeyEnv: 'AWB_MISSING_KEY' })))).toThrow(/set the environment variable AWB_MISSING_KEY/);
    db.close();
  });
});

describe('a full run', () => {
  let db: WritableDB;
  beforeAll(async () => {
    ({ db } = await freshDb('full.db'));
  });
  afterAll(() => db.close());

  it('builds a checked instance through all nine stages, with provenance on every generated field', async () => {
    const run = await runPipeline(db, { config: config() });
    expect(run.status).toBe('done');
    expect(run.retrieval).toBe('worker');
    expect(run.stages.map((s) => s.stage)).toEqual([...PIPELINE_STAGES]);
    // 2 questions × 3 types × 4 detectors, then one instance: clarify 1, decompose 2, answer 2, merge 1, filter 3.
    expect(run.stages.find((s) => s.stage === 'detect')).toMatchObject({ processed: 2, done: 2, calls: 24 });
    expect(run.calls).toBe(24 + 1 + 2 + 2 + 1 + 3);
    expect(chatRequests()).toHaveLength(run.calls);
    expect(run.costUsd).toBeGreaterThan(0);
    expect(run.stages.find((s) => s.stage === 'filter')).toMatchObject({ processed: 1, done: 1 });

    const id = (db.prepare("SELECT id FROM instances WHERE ambiguity_type = 'semantic'").get() as { id: number }).id;
    const detail = instanceDetail(db, id);
    expect(detail.status).toBe('ready');
    expect(detail.interpretations.map((r) => [r.clarifiedQuestion, r.shortAnswer?.text])).toEqual([
      ['Which river flows through Springfield, Illinois?', 'Sangamon River'],
      ['Which river flows through Springfield, Massachusetts?', 'Connecticut River'],
    ]);
    for (const interpretation of detail.interpretations) {
      const span = interpretation.shortAnswer!;
      const passage = interpretation.evidence.find((e) => e.passage.id === span.passageId)?.passage ?? interpretation.answerPassage!;
      expect(passage.text.slice(span.start!, span.end!)).toBe(span.text);
      expect(span.provenance).toMatchObject({ source: 'llm', model: 'fake/gen', promptVersion: 'short_answer@v1' });
      expect(interpretation.provenance).toMatchObject({ source: 'llm', model: 'fake/gen', promptVersion: 'clarify_semantic@v1' });
      expect(interpretation.subQuestions.map((s) => s.question)).toEqual([interpretation.clarifiedQuestion]);
    }
    expect(detail.longAnswers[0]!.text).toMatch(/Sangamon River.*Connecticut River/);
    expect(detail.filterVotes.map((v) => [v.model, v.verdict])).toEqual([['fake/fil-a', 'aligned'], ['fake/fil-b', 'aligned'], ['fake/fil-c', 'aligned']]);
    // Every detector's vote is kept.
    expect((db.prepare('SELECT count(*) AS n FROM detection_votes').get() as { n: number }).n).toBe(24);
    // The search rows the stages rewrote, commit by commit, are merged into one segment at the end.
    expect(db.prepare('SELECT count(DISTINCT segid) FROM instances_fts_idx').pluck().get()).toBe(1);
    expect(listInstances(db, InstanceQuery.parse({ search: 'Sangamon', sort: 'status' })).map((r) => r.id)).toEqual([id]);
    // The structured output request names the stage's schema.
    const clarifyRequest = chatRequests().find((r) => schemaOf(r.body as never) === 'clarify')!;
    expect(clarifyRequest.body.response_format).toMatchObject({ type: 'json_schema', json_schema: { name: 'clarify', strict: true, schema: { additionalProperties: false } } });
    expect(clarifyRequest.body).toMatchObject({ temperature: 0, max_tokens: 512 });
  });

  it('sends zero requests when re-run, and lays out the funnel', async () => {
    const before = chatRequests().length;
    const again = await runPipeline(db, { config: config() });
    expect(again.calls).toBe(0);
    expect(chatRequests().length).toBe(before);
    const funnel = pipelineFunnel(db);
    expect(funnel.types).toEqual(['semantic']);
    expect(funnel.rows.map((r) => [r.step, r.total])).toEqual([
      ['base questions screened', 2],
      ['detected ambiguous', 1],
      ['clarified (2+ interpretations)', 1],
      ['answered (2+ supported answers)', 1],
      ['short answers within the token limit', 1],
      ['after collisions', 1],
      ['kept by the filter', 1],
    ]);
    expect(funnel.averageHops.semantic).toBe(2);
    expect(funnel.averageQuestionWords.semantic).toBe(5);
  });

  it("traces an item: each stage's outcome and every call with its prompt and raw answer", () => {
    const id = (db.prepare("SELECT id FROM instances WHERE ambiguity_type = 'semantic'").get() as { id: number }).id;
    const trace = itemTrace(db, `inst:${id}`);
    expect(trace.stages.map((s) => s.stage)).toEqual(expect.arrayContaining(['detect', 'clarify', 'filter']));
    const clarify = trace.calls.find((c) => c.stage === 'clarify')!;
    expect(clarify.messages[1]!.content).toContain('Which river flows through Springfield?');
    expect(clarify.response).toContain('clarified_questions');
  });
});

describe('retrieval off the main thread', () => {
  it('gives the same cues and evidence in the worker as in-thread, and passes errors back as errors', async () => {
    const { db, file } = await freshDb('work.db');
    const corpusId = (db.prepare("SELECT id FROM corpora WHERE name = 'Springfields'").get() as { id: number }).id;
    const local = inThread(db, new EmbeddedRetriever(db));
    const worker = await startRetrievalWorker(file);
    try {
      expect(worker.where).toBe('worker');
      const question = 'Which river flows through Springfield in 1998?';
      const cues = await worker.cues(question, corpusId, 3);
      expect(cues).toEqual(await local.cues(question, corpusId, 3));
      expect(cues.constraints).toEqual([{ kind: 'date', text: '1998', hits_without: expect.any(Number) }]);
      const request = { clarifiedQuestion: 'Which river flows through Springfield, Illinois?', subQuestions: ['Where is Springfield, Illinois?'], k: 3, mode: 'hybrid' as const, corpus: 'Springfields' };
      const rows = await worker.evidence(request);
      expect(rows.length).toBeGreaterThan(0);
      expect(rows).toEqual(await local.evidence(request));
      await expect(worker.evidence({ ...request, corpus: 'No such corpus' })).rejects.toThrow(/No such corpus/);
    } finally {
      await worker.close();
      db.close();
    }
    await expect(worker.cues('Anything?', null, 3)).rejects.toThrow(/retrieval worker stopped/);
  });
});

describe('retrieval only when needed', () => {
  it('starts no retrieval worker for a run that retrieves nothing', async () => {
    const { db } = await freshDb('no-retrieval.db');
    const run = await runPipeline(db, { config: config({ detection: { types: ['semantic'], rule: 'all' } }), stages: ['detect'] });
    expect(run).toMatchObject({ status: 'done', calls: 8, retrieval: null });
    db.close();
  });
});

describe('the cache', () => {
  it('answers a repeated call from the database, unless told not to', async () => {
    const { db } = await freshDb('cache.db');
    await runPipeline(db, { config: config(), stages: ['detect'] });
    expect(chatRequests()).toHaveLength(24);
    db.exec("DELETE FROM pipeline_items WHERE stage = 'detect'");
    const cached = await runPipeline(db, { config: config(), stages: ['detect'] });
    expect(cached).toMatchObject({ calls: 0, cachedCalls: 24 });
    expect(chatRequests()).toHaveLength(24);
    db.exec("DELETE FROM pipeline_items WHERE stage = 'detect'");
    const fresh = await runPipeline(db, { config: config(), stages: ['detect'], noCache: ['detect'] });
    expect(fresh.calls).toBe(24);
    expect(chatRequests()).toHaveLength(48);
    db.close();
  });
});

describe('bad answers and bad endpoints', () => {
  async function runWith(override: (schema: string, index: number) => ChatReply | undefined, endpoint: Record<string, unknown> = {}) {
    const { db } = await freshDb(`faults-${Math.random().toString(36).slice(2)}.db`);
    fake.chat = pipelineBrain({ ambiguous: (q) => q.includes('Springfield'), override: (schema, _b, index) => override(schema, index) });
    const run = await runPipeline(db, { config: config({}, endpoint) });
    return { db, run };
  }

  it('repairs malformed JSON once, and keeps going', async () => {
    let broken = 0;
    const { db, run } = await runWith((schema) => (schema === 'clarify' && broken++ === 0 ? { content: '{"clarified_questions": ["Which river' } : undefined));
    expect(run.status).toBe('done');
    const statuses = db.prepare("SELECT status FROM llm_calls WHERE stage = 'clarify' ORDER BY id").all();
    expect(statuses).toEqual([{ status: 'error' }, { status: 'ok' }]);
    expect(db.prepare("SELECT status FROM instances WHERE ambiguity_type = 'semantic'").get()).toEqual({ status: 'ready' });
    db.close();
  });

  it('fails an item whose answers stay wrong, keeping the reason and the raw output, and finishes the run', async () => {
    const { db, run } = await runWith((schema) => (schema === 'clarify' ? { content: '{"questions": "not a list"}' } : undefined));
    expect(run.status).toBe('done');
    expect(run.stages.find((s) => s.stage === 'clarify')).toMatchObject({ processed: 1, failed: 1 });
    const failure = db.prepare("SELECT reason, raw_output FROM pipeline_items WHERE stage = 'clarify'").get() as { reason: string; raw_output: string };
    expect(failure.reason).toMatch(/does not fit the schema: .*clarified_questions.*; the repair attempt failed too/);
    expect(failure.raw_output).toContain('not a list');
    expect(db.prepare("SELECT status, stage FROM instances WHERE ambiguity_type = 'semantic'").get()).toEqual({ status: 'building', stage: 'detect' });
    db.close();
  });

  it('records refusals, empty answers and truncated output as reasons', async () => {
    for (const [reply, reason] of [
      [{ refusal: 'I cannot help with that.' }, /the model refused: I cannot help/],
      [{ content: '' }, /the answer was empty/],
      [{ content: '{"clarified_questions": ["Which ri', finishReason: 'length' }, /cut off at the token limit/],
    ] as [ChatReply, RegExp][]) {
      const { db } = await runWith((schema) => (schema === 'clarify' ? reply : undefined));
      expect((db.prepare("SELECT reason FROM pipeline_items WHERE stage = 'clarify'").get() as { reason: string }).reason).toMatch(reason);
      db.close();
    }
  });

  it('drops an interpretation whose answer is not a span of its passages, and removes the instance left with one', async () => {
    const { db } = await runWith((schema, index) => (schema === 'short_answer' && index % 2 === 0 ? { content: JSON.stringify({ answer: 'Mississippi River', passage: 1 }) } : undefined));
    const instance = db.prepare("SELECT id, status, removed_stage, removed_reason FROM instances WHERE ambiguity_type = 'semantic'").get() as { id: number; status: string; removed_stage: string; removed_reason: string };
    expect(instance).toMatchObject({ status: 'removed', removed_stage: 'answer' });
    expect(instance.removed_reason).toMatch(/fewer than 2/);
    const dropped = db.prepare('SELECT dropped_reason FROM interpretations WHERE instance_id = ? AND status = ?').all(instance.id, 'dropped') as { dropped_reason: string }[];
    expect(dropped.map((d) => d.dropped_reason)).toEqual(['answer: "Mississippi River" is not a span of any retrieved passage']);
    db.close();
  });

  it('removes an instance whose two interpretations collide after normalisation', async () => {
    const { db } = await runWith((schema) => (schema === 'short_answer' ? { content: JSON.stringify({ answer: 'River', passage: 1 }) } : undefined));
    expect(db.prepare("SELECT status, removed_stage FROM instances WHERE ambiguity_type = 'semantic'").get()).toEqual({ status: 'removed', removed_stage: 'collide' });
    db.close();
  });

  it('removes an instance one filter model judges misaligned (the default rule: all must agree)', async () => {
    const { db } = await runWith((schema, index) => (schema === 'filter' && index % 3 === 0 ? { content: JSON.stringify({ aligned: false, reason: 'interpretation 2 is not a different question' }) } : undefined));
    const row = db.prepare("SELECT status, removed_reason FROM instances WHERE ambiguity_type = 'semantic'").get() as { status: string; removed_reason: string };
    expect(row.status).toBe('removed');
    expect(row.removed_reason).toMatch(/filter: 1 of 3 filter models judged it misaligned .*interpretation 2 is not a different question/);
    db.close();
  });

  it('retries 429 (honouring retry-after) and 500, then succeeds', async () => {
    let n = 0;
    const { db, run } = await runWith((schema) => {
      if (schema !== 'clarify') return undefined;
      n++;
      return n === 1 ? { status: 429, retryAfter: 1 } : n === 2 ? { status: 500 } : undefined;
    });
    expect(n).toBe(3);
    expect(run.status).toBe('done');
    expect(db.prepare("SELECT status FROM instances WHERE ambiguity_type = 'semantic'").get()).toEqual({ status: 'ready' });
    db.close();
  });

  it('fails the item on an HTML error page or a timeout, with the reason, and the rest of the run goes on', async () => {
    const { db, run } = await runWith((schema) => (schema === 'clarify' ? { status: 502, raw: '<html><body><h1>502 Bad Gateway</h1></body></html>' } : undefined), { retries: 1 });
    expect(run.status).toBe('done');
    expect((db.prepare("SELECT reason FROM pipeline_items WHERE stage = 'clarify'").get() as { reason: string }).reason).toMatch(/the call failed: 502 \(an HTML page, not JSON\)/);
    db.close();
    const slow = await runWith((schema) => (schema === 'filter' ? { content: '{}', delayMs: 1500 } : undefined), { retries: 0, timeoutMs: 300 });
    expect((slow.db.prepare("SELECT reason FROM pipeline_items WHERE stage = 'filter'").get() as { reason: string }).reason).toMatch(/the call failed: .*timed out/i);
    slow.db.close();
  });

  it('fails every item with the reason when the endpoint is down, and keeps the database consistent', async () => {
    const { db } = await freshDb('down.db');
    const closed = await startFakeOpenAI();
    await closed.close();
    const run = await runPipeline(db, { config: config({}, { baseURL: closed.url, retries: 0 }), stages: ['detect'] });
    expect(run).toMatchObject({ status: 'done', calls: 24 });
    expect(run.stages[0]).toMatchObject({ stage: 'detect', processed: 2, failed: 2, done: 0 });
    const reasons = db.prepare("SELECT reason FROM pipeline_items WHERE stage = 'detect' AND status = 'failed'").all() as { reason: string }[];
    expect(reasons).toHaveLength(2);
    for (const { reason } of reasons) expect(reason).toBe(`12 calls: the call failed: could not reach ${closed.url}: ECONNREFUSED`);
    expect(db.prepare("SELECT count(*) AS n FROM detection_votes").get()).toEqual({ n: 0 });
    expect(db.prepare("SELECT count(*) AS n FROM instances WHERE ambiguity_type <> 'unspecified'").get()).toEqual({ n: 0 });
    db.close();
  });

  it('asks for JSON mode, or puts the schema in the prompt, where an endpoint has no schema support', async () => {
    const { db } = await runWith(() => undefined, { structuredOutput: 'json_object' });
    const request = chatRequests().at(-1)!;
    expect(request.body.response_format).toEqual({ type: 'json_object' });
    expect((request.body.messages as { content: string }[])[0]!.content).toMatch(/matching this JSON Schema/);
    db.close();
    fake.requests.length = 0;
    const text = await runWith((schema) => (schema === 'filter' ? { content: 'Sure! ```json\n{"aligned": true, "reason": "fine"}\n```' } : undefined), { structuredOutput: 'text' });
    expect(chatRequests().at(-1)!.body.response_format).toBeUndefined();
    expect(text.db.prepare("SELECT status FROM instances WHERE ambiguity_type = 'semantic'").get()).toEqual({ status: 'ready' });
    text.db.close();
  });
});

describe('limits and cancellation', () => {
  it("never has more requests in flight at an endpoint than its maxInFlight, however many items run at once", async () => {
    const { db } = await freshDb('in-flight.db');
    const brain = pipelineBrain({ ambiguous: (q) => q.includes('Springfield') });
    const held = heldReplies();
    let inFlight = 0;
    let most = 0;
    let answered = 0;
    fake.chat = async (body, index) => {
      most = Math.max(most, ++inFlight);
      const reply = await held.hold(brain(body, index));
      inFlight--;
      answered++;
      return reply;
    };
    const running = runPipeline(db, { config: config({ concurrency: 64 }, { maxInFlight: 3 }), stages: ['detect'] });
    // The 24 calls are all ready at once. Each is let go only when three are held, so a fourth
    // let through by a broken cap would be held beside them and counted.
    for (let released = 0; released < 24; released++) {
      await vi.waitFor(() => expect(held.count).toBe(Math.min(3, 24 - released)), { timeout: 20_000, interval: 2 });
      held.releaseOne();
      await vi.waitFor(() => expect(answered).toBe(released + 1), { timeout: 20_000, interval: 2 });
    }
    const run = await running;
    expect(run.calls).toBe(24);
    expect(most).toBe(3);
    db.close();
  });

  it('stops on cancel with the run marked cancelled, and the next run repeats none of the completed calls', async () => {
    const { db } = await freshDb('cancel.db');
    const brain = pipelineBrain({ ambiguous: (q) => q.includes('Springfield') });
    const controller = new AbortController();
    const held = heldReplies();
    let seen = 0;
    // The seventh call cancels the run while it is in flight; it and any call after it never answer.
    fake.chat = (body, index) => {
      if (++seen < 7) return brain(body, index);
      if (seen === 7) controller.abort();
      return held.hold(brain(body, index));
    };
    const cancelled = await runPipeline(db, { config: config({}, { maxInFlight: 2 }), stages: ['detect'], signal: controller.signal });
    held.releaseAll();
    expect(cancelled.status).toBe('cancelled');
    const completed = (db.prepare("SELECT count(*) AS n FROM llm_calls WHERE status = 'ok'").get() as { n: number }).n;
    expect(completed).toBeGreaterThan(0);
    expect(completed).toBeLessThan(24);
    expect(db.prepare("SELECT count(*) AS n FROM pipeline_items WHERE stage = 'detect' AND status = 'done'").get()).toEqual({ n: 0 });

    fake.chat = brain;
    fake.requests.length = 0;
    const resumed = await runPipeline(db, { config: config(), stages: ['detect'] });
    expect(resumed.status).toBe('done');
    expect(resumed.cachedCalls).toBe(completed);
    expect(resumed.calls).toBe(24 - completed);
    // (A request aborted in the first run may still reach the server after it: count by content.)
    const key = (body: { model?: unknown; messages?: unknown }) => JSON.stringify([body.model, body.messages]);
    const done = new Set((db.prepare("SELECT request FROM llm_calls WHERE status = 'ok' AND run_id = ?").all(cancelled.id) as { request: string }[]).map((r) => key(JSON.parse(r.request) as Record<string, unknown>)));
    expect(done.size).toBe(completed);
    expect(chatRequests().filter((r) => done.has(key(r.body)))).toEqual([]);
    expect(db.prepare("SELECT status FROM runs WHERE kind = 'pipeline' ORDER BY id").all()).toEqual([{ status: 'cancelled' }, { status: 'done' }]);
    db.close();
  });
});

describe('the CLI', () => {
  it('runs, reports JSON and resumes after kill -9 without repeating a completed call', async () => {
    const { db, file } = await freshDb('killed.db');
    db.close();
    const configFile = writeFile(tmp.file('pipeline.json'), JSON.stringify(config({ concurrency: 2 }, { maxInFlight: 2 })));
    const brain = pipelineBrain({ ambiguous: (q) => q.includes('Springfield') });
    const held = heldReplies();
    let seen = 0;
    // Ten calls answer; the eleventh is held, so the kill lands mid-run with a call in flight.
    fake.chat = (body, index) => (++seen <= 10 ? brain(body, index) : held.hold(brain(body, index)));
    const child = spawn(process.execPath, [AWB, 'pipeline', 'run', '--config', configFile, '--db', file, '--json'], { cwd: ROOT, stdio: 'ignore', env: { ...process.env, AWB_TEST_KEY: 'k' } });
    await vi.waitFor(() => expect(held.count).toBeGreaterThan(0), { timeout: 30_000, interval: 5 });
    child.kill('SIGKILL');
    await new Promise((resolve) => child.on('exit', resolve));
    held.releaseAll();
    const check = openDatabase(file);
    const completed = new Set((check.prepare("SELECT request_hash FROM llm_calls WHERE status = 'ok'").all() as { request_hash: string }[]).map((r) => r.request_hash));
    check.close();
    expect(completed.size).toBeGreaterThan(0);
    const sentBefore = chatRequests().length;
    // The hash of what the fake received is the cache key the client stored (so the check below bites).
    expect(chatRequests().filter((r) => completed.has(LlmClient.hash(fake.url, r.body))).length).toBe(completed.size);

    fake.chat = brain;
    const resumed = await awbJsonAsync<{ status: string; calls: number; cachedCalls: number }>(['pipeline', 'run', '--config', configFile, '--db', file]);
    expect(resumed.status).toBe(0);
    expect(resumed.json.status).toBe('done');
    // No call that had completed before the kill was sent again.
    const resent = chatRequests()
      .slice(sentBefore)
      .map((r) => LlmClient.hash(fake.url, r.body))
      .filter((hash) => completed.has(hash));
    expect(resent).toEqual([]);
    const status = awbJson<{ stages: { stage: string; done: number }[]; runs: { status: string }[] }>(['pipeline', 'status', '--db', file]);
    expect(status.json.stages.find((s) => s.stage === 'filter')!.done).toBe(1);
    expect(status.json.runs.map((r) => r.status)).toEqual(['done', 'failed']);
    // The killed run still says what it sent and spent.
    const killed = (status.json.runs as unknown as { calls: number; promptTokens: number; costUsd: number; error: string }[])[1]!;
    expect(killed.calls).toBe(completed.size);
    // (Detection models have no price in this config: tokens, not dollars, show what was spent.)
    expect(killed.promptTokens).toBeGreaterThan(0);
    expect(killed.error).toMatch(/stopped before it finished/);
    const funnel = awbJson<{ rows: { step: string; total: number }[] }>(['pipeline', 'funnel', '--db', file]);
    expect(funnel.json.rows.at(-1)).toEqual({ step: 'kept by the filter', counts: { semantic: 1 }, total: 1 });
  });
});

afterEach(() => {
  delete process.env.AWB_BASE_URL;
});
