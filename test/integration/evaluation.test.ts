import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { openDatabase } from '../../db/connection';
import type { WritableDB } from '../../db/sql';
import { evalItemDetail } from '../../electron/services/evaluation/items';
import { saveEvalPrompt } from '../../electron/services/evaluation/prompts';
import { compareEvalRuns, createEvalRun, evalRunSummary, executeEvalRun } from '../../electron/services/evaluation/run';
import { importFile } from '../../electron/services/import/import-file';
import { EvalStartRequest, type EvalItemDetail, type EvalRunSummary } from '../../shared/api';
import { EVAL_PROMPTS } from '../../shared/eval/methods/prompts';
import { AWB, awbJsonAsync } from '../helpers/cli';
import { CONDAMBIGQA, failCommits, tempDir, writeFile } from '../helpers/db';
import { brain, json, questionOf, schemaOf, type Body } from '../helpers/fake-eval';
import { heldReplies, startFakeOpenAI, type FakeOpenAI } from '../helpers/fake-openai';

/**
 * Evaluation runs against a fake OpenAI-compatible server on 127.0.0.1 through the real `openai`
 * SDK: every method's steps scripted, bad answers and actions, loops, timeouts, a failing
 * endpoint, and a kill -9 followed by a resume that repeats no completed call.
 */

const tmp = tempDir('awb-eval-');
let fake: FakeOpenAI;

const chats = () => fake.requests.filter((r) => r.path.endsWith('/chat/completions'));

let dbFile: string;
let db: WritableDB;

function configFile(endpoint: Record<string, unknown> = {}): string {
  return writeFile(
    tmp.file(`config-${Math.random().toString(36).slice(2)}.json`),
    JSON.stringify({ endpoints: { fake: { baseURL: fake.url, apiKeyEnv: 'AWB_TEST_KEY', maxInFlight: 8, retries: 0, timeoutMs: 3000, ...endpoint } }, prices: { gen: { input: 2, output: 8 } } }),
  );
}

function request(overrides: Record<string, unknown> = {}, endpoint: Record<string, unknown> = {}): EvalStartRequest {
  return EvalStartRequest.parse({ method: 'naive-rag', model: { endpoint: 'fake', model: 'gen' }, configPath: configFile(endpoint), dataset: 'cond', corpus: 'cond', k: 3, ...overrides });
}

async function evaluate(overrides: Record<string, unknown> = {}, endpoint: Record<string, unknown> = {}): Promise<EvalRunSummary> {
  const id = createEvalRun(db, request(overrides, endpoint));
  return executeEvalRun(db, id);
}

function items(runId: number): EvalItemDetail[] {
  return (db.prepare('SELECT id FROM eval_items WHERE run_id = ? ORDER BY position').all(runId) as { id: number }[]).map((r) => evalItemDetail(db, r.id));
}

beforeAll(async () => {
  fake = await startFakeOpenAI();
  dbFile = tmp.file('eval.db');
  db = openDatabase(dbFile);
  expect((await importFile(db, { file: CONDAMBIGQA, format: 'condambigqa', dataset: 'cond' })).committed).toBe(true);
});
afterAll(async () => {
  db.close();
  await fake.close();
  tmp.cleanup();
});
beforeEach(() => {
  fake.requests.length = 0;
  fake.chat = (body) => brain(body as Body);
});

describe('the simple methods', () => {
  it('runs NaiveRAG end to end: answers, citations, metrics, reader, judge, usage and a trace of every call', async () => {
    const run = await evaluate({ reader: { kind: 'llm', model: { endpoint: 'fake', model: 'reader' } }, judge: { endpoint: 'fake', model: 'judge' } });
    expect(run).toMatchObject({ status: 'done', total: 3, done: 3, failed: 0, method: 'naive-rag', model: 'fake/gen', retrievalMode: 'bm25', reader: 'llm fake/reader', judge: 'fake/judge' });
    // 3 answers + 6 reader calls (one per gold interpretation) + 3 judgements.
    expect(chats()).toHaveLength(12);
    expect(run.calls).toBe(12);
    const [bridge, cup, tower] = items(run.id);
    expect(bridge!.longAnswer).toContain('1883');
    // A standard baseline answers in prose: no short answers of its own, so no answer count.
    expect(bridge!.shortAnswers).toEqual([]);
    expect(bridge!.metrics.answer_count).toBeNull();
    expect(bridge!.strEm).toBe(1);
    expect(tower!.strEm).toBe(0.5);
    expect(tower!.collapsed).toBe(true);
    expect(cup!.collapsed).toBe(false);
    // Citations are passage keys; the out-of-range number 99 is kept as invalid (it counts against precision) and noted.
    expect(bridge!.citations.filter((c) => !c.startsWith('cond#'))).toEqual(['invalid:99']);
    // Two passages found: the gold citation that names no fragment ("River crossings") is reported on import, not added to the corpus.
    expect(bridge!.notes).toContain('cited passage 99; the list has 2');
    // Keys agree between the corpus and the gold: what the answer cites is checked against what the gold cites.
    expect(bridge!.metrics.citation_precision).toBeGreaterThan(0);
    expect(bridge!.retrievalMiss).toBe(false);
    expect(bridge!.citations.length).toBeLessThanOrEqual(3);
    expect(bridge!.metrics.citation_precision).toBeTypeOf('number');
    expect(bridge!.metrics.judge_rationale).toBe('Covers the interpretations it names.');
    expect(bridge!.judgeMean).toBe(4);
    expect(bridge!.metrics.reader_answers).toHaveLength(2);
    expect(bridge!.disambigF1).toBeGreaterThan(0);
    // The trace: the search, the answering call with its prompt and raw output, the reader and the judge.
    expect(bridge!.steps.map((s) => s.kind)).toEqual(['retrieve', 'generate', 'note', 'reader', 'reader', 'judge']);
    const answering = bridge!.trace.find((c) => c.id === bridge!.steps[1]!.callId)!;
    expect(answering.messages[1]!.content).toContain('When did the bridge open?');
    expect(answering.response).toContain('"answer"');
    expect(answering).toMatchObject({ promptTokens: 100, completionTokens: 20, status: 'ok' });
    expect(answering.costUsd).toBeCloseTo((100 * 2 + 20 * 8) / 1e6);
    // Per-query usage counts the method's call only (reader and judge are the evaluation's own).
    expect(bridge!.calls).toBe(1);
    expect(run.usage).toMatchObject({ n: 3 });
    expect(run.usage!.latencyMs.p99).toBeGreaterThan(0);
    expect(run.metrics.str_em!.value).toBeCloseTo(((1 + 1 + 0.5) / 3) * 100);
    expect(run.metrics.str_em!.ci).not.toBeNull();
    expect(run.metrics.dr).toBeDefined();
    expect(Object.keys(run.byType)).toEqual(['unspecified']);
    expect(run.promptVersions.eval_rag).toMatch(/^eval_rag@v\d+$/);
  });

  it('runs No Retrieval, CoT and CoT+RAG with one call each and no search where none is due', async () => {
    for (const method of ['no-retrieval', 'cot', 'cot-rag']) {
      fake.requests.length = 0;
      const run = await evaluate({ method });
      expect(run.status).toBe('done');
      expect(run.done).toBe(3);
      expect(chats().map((r) => schemaOf(r.body as Body))).toEqual(Array(3).fill(method === 'no-retrieval' ? 'plain_answer' : method === 'cot' ? 'reasoned_plain_answer' : 'reasoned_cited_plain_answer'));
      const kinds = items(run.id)[0]!.steps.map((s) => s.kind);
      expect(kinds.includes('retrieve')).toBe(method === 'cot-rag');
      // Only a method that can cite is scored on citation precision.
      expect('citation_precision' in items(run.id)[0]!.metrics).toBe(method === 'cot-rag');
      expect(run.metrics.str_em!.value).toBeCloseTo(((1 + 1 + 0.5) / 3) * 100);
    }
  });

  it('answers a repeated run from the cache, sending nothing', async () => {
    await evaluate({ method: 'cot' });
    fake.requests.length = 0;
    const again = await evaluate({ method: 'cot' });
    expect(chats()).toHaveLength(0);
    expect(again).toMatchObject({ status: 'done', done: 3, calls: 0, cachedCalls: 3 });
    expect(items(again.id)[0]!.steps[0]!.cached).toBe(true);
    // A cached call still counts what it cost when it was made, per query.
    expect(items(again.id)[0]!.calls).toBe(1);
  });

  it('falls back to BM25 when the corpus has no vectors, and says so', async () => {
    const run = await evaluate({ retrieval: 'hybrid', method: 'naive-rag' });
    expect(run.status).toBe('done');
    expect(run.retrievalMode).toBe('bm25');
    expect(run.notes.join(' ')).toMatch(/no vectors, so hybrid retrieval fell back to BM25/);
    const item = items(run.id)[0]!;
    expect(item.notes.join(' ')).toMatch(/fell back to BM25/);
    expect((item.steps[0]!.content as { mode: string }).mode).toBe('bm25');
  });

  it('uses an edited prompt as a new version and records it', async () => {
    const saved = saveEvalPrompt(db, 'eval_direct', 'Answer briefly, in JSON.', 'Q: {{question}}\nKey: "answer".');
    expect(() => saveEvalPrompt(db, 'eval_direct', 'x', '{{nope}}')).toThrow(/Unknown placeholder \{\{nope\}\}/);
    const run = await evaluate({ method: 'no-retrieval', limit: 1 });
    expect(run.promptVersions.eval_direct).toBe(`eval_direct@v${saved.version}`);
    expect((chats()[0]!.body.messages as { content: string }[])[0]!.content).toBe('Answer briefly, in JSON.');
    // Back to the built-in wording (as a newer version) for the tests that follow.
    const restored = saveEvalPrompt(db, 'eval_direct', EVAL_PROMPTS.eval_direct.system, EVAL_PROMPTS.eval_direct.user);
    expect(restored.version).toBe(saved.version + 1);
  });
});

describe('bad answers, loops and failing endpoints', () => {
  it('marks an item failed with its reason after a malformed answer and a failed repair, and goes on', async () => {
    fake.chat = (body) => (questionOf(body as Body).includes('cup') ? { content: 'Sure, the answer is Harbour City.' } : brain(body as Body));
    const run = await evaluate({ method: 'no-retrieval', noCache: true });
    expect(run).toMatchObject({ status: 'done', done: 2, failed: 1 });
    const cup = items(run.id)[1]!;
    expect(cup.status).toBe('failed');
    expect(cup.error).toMatch(/eval_direct: the answer is not valid JSON.*the repair attempt failed too/);
    // The failed call and its repair are both in the trace.
    expect(cup.trace.length).toBe(2);
    expect(run.metrics.str_em!.n).toBe(2);
  });

  it('fails items with the reason when calls time out or the endpoint answers 500, and the run finishes', async () => {
    fake.chat = (body) => (questionOf(body as Body).includes('tower') ? { content: '{}', delayMs: 1500 } : questionOf(body as Body).includes('cup') ? { status: 500 } : brain(body as Body));
    const run = await evaluate({ method: 'cot', noCache: true }, { timeoutMs: 400 });
    expect(run).toMatchObject({ status: 'done', done: 1, failed: 2 });
    const [, cup, tower] = items(run.id);
    expect(cup!.error).toMatch(/the call failed: 500/);
    expect(tower!.error).toMatch(/timed out/i);
  });

  it('fails every item with the reason when the endpoint is down', async () => {
    const closed = await startFakeOpenAI();
    await closed.close();
    const run = await evaluate({ method: 'cot' }, { baseURL: closed.url });
    expect(run).toMatchObject({ status: 'done', done: 0, failed: 3 });
    expect(items(run.id)[0]!.error).toMatch(/could not reach .*ECONNREFUSED/);
  });
});

describe('comparison, kill and resume', () => {
  it('compares two runs on the same items with paired statistics', async () => {
    const a = await evaluate({ method: 'no-retrieval' });
    fake.chat = (body) => (questionOf(body as Body).includes('bridge') ? json({ reasoning: 'hmm', answer: 'No idea.' }) : brain(body as Body));
    const b = await evaluate({ method: 'cot', noCache: true });
    const comparison = compareEvalRuns(db, a.id, b.id, 0.5, 200);
    expect(comparison.paired).toBe(3);
    const strEm = comparison.metrics.find((m) => m.metric === 'str_em')!;
    expect(strEm.meanA).toBeCloseTo(250 / 3);
    expect(strEm.meanB).toBeCloseTo(150 / 3);
    expect(strEm.bootstrap!.difference).toBeCloseTo(-100 / 3);
    expect(strEm.mcnemar).toMatchObject({ onlyA: 1, onlyB: 0 });
    expect(strEm.wilcoxon!.nonZero).toBe(1);
  });

  it('resumes a run killed with kill -9 without repeating a completed call', async () => {
    // Each item takes two calls (answer, judge). Item 2's answer waits until item 1 is stored (the
    // run writes finished items in batches), then answers; its judging call is held, so the kill
    // lands with one item done and a call of the next completed.
    const held = heldReplies();
    const finished = () => (db.prepare("SELECT count(*) AS n FROM eval_items i JOIN eval_runs r ON r.id = i.run_id WHERE r.model LIKE '%gen-killed' AND i.status = 'done'").get() as { n: number }).n;
    let seen = 0;
    fake.chat = async (body) => {
      if (++seen === 3) await vi.waitFor(() => expect(finished()).toBe(1), { timeout: 20_000, interval: 5 });
      return seen <= 3 ? brain(body as Body) : held.hold(brain(body as Body));
    };
    const config = configFile({ maxInFlight: 1 });
    const child = spawn(
      process.execPath,
      [AWB, 'eval', 'run', '--config', config, '--method', 'cot', '--model', 'fake/gen-killed', '--dataset', 'cond', '--concurrency', '1', '--judge', 'fake/judge-killed', '--db', dbFile, '--json'],
      { env: { ...process.env }, stdio: 'ignore' },
    );
    await vi.waitFor(() => expect(held.count).toBe(1), { timeout: 30_000, interval: 5 });
    const runId = (db.prepare('SELECT id FROM eval_runs ORDER BY id DESC LIMIT 1').get() as { id: number }).id;
    expect(finished()).toBe(1);
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    held.releaseAll();
    const completed = new Set(
      (db.prepare("SELECT request FROM llm_calls WHERE run_id = ? AND status = 'ok'").all(runId) as { request: string }[]).map((r) =>
        JSON.stringify((JSON.parse(r.request) as { messages: unknown }).messages),
      ),
    );
    expect(completed.size).toBeGreaterThanOrEqual(2);
    const before = (db.prepare("SELECT count(*) AS n FROM eval_items WHERE run_id = ? AND status = 'done'").get(runId) as { n: number }).n;
    expect(before).toBeLessThan(3);
    // The run's counts moved with the items stored before the kill.
    expect(db.prepare('SELECT done, status FROM eval_runs WHERE id = ?').get(runId)).toEqual({ done: before, status: 'running' });
    fake.requests.length = 0;
    fake.chat = (body) => brain(body as Body);
    const resumed = await awbJsonAsync<EvalRunSummary>(['eval', 'run', '--resume', String(runId), '--db', dbFile]);
    expect(resumed.status).toBe(0);
    expect(resumed.json).toMatchObject({ id: runId, status: 'done', done: 3, failed: 0 });
    const sentAgain = chats().filter((r) => completed.has(JSON.stringify(r.body.messages)));
    expect(sentAgain).toHaveLength(0);
    // Items finished before the kill were not re-run: the resumed session sent calls only for the rest.
    expect(chats().length).toBeLessThan(6);
    expect(evalRunSummary(db, runId).metrics.judge_mean!.value).toBe(4);
  });
});

describe('readers, HyDE and cancelling', () => {
  it('reads with a pluggable reader endpoint and says which reader produced Disambig-F1', async () => {
    const server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        const { context } = JSON.parse(body) as { question: string; context: string };
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ answer: context.includes('1883') ? '1883' : '' }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/read`;
    try {
      const run = await evaluate({ method: 'no-retrieval', limit: 1, reader: { kind: 'http', url } });
      expect(run.reader).toBe(`http ${url}`);
      const item = items(run.id)[0]!;
      expect(item.metrics.reader_answers).toEqual(['1883', '1883']);
      // Token F1 of "1883" against "1883" and against "2004" / "May 2004": (1 + 0) / 2.
      expect(item.disambigF1).toBe(0.5);
      expect(item.steps.filter((s) => s.kind === 'reader')).toHaveLength(2);
    } finally {
      server.close();
    }
  });

  it('keeps every paid answer when a group commit fails, stops saying why, and resumes without asking again', async () => {
    // The second group commit of answers fails, as on a full disk: SQLite rolls the group back.
    let commits = 0;
    const restore = failCommits(db, () => ++commits === 2);
    const id = createEvalRun(db, request({ method: 'cot', model: { endpoint: 'fake', model: 'gen-full-disk' }, concurrency: 1, noCache: true }));
    try {
      await expect(executeEvalRun(db, id)).rejects.toThrow(/database or disk is full/);
    } finally {
      restore();
    }
    expect(commits).toBeGreaterThanOrEqual(2);
    expect(evalRunSummary(db, id)).toMatchObject({ status: 'failed', done: 3 });
    const sent = chats().map((r) => JSON.stringify(r.body.messages));
    const kept = (db.prepare("SELECT request FROM llm_calls WHERE run_id = ? AND status = 'ok'").all(id) as { request: string }[]).map((r) =>
      JSON.stringify((JSON.parse(r.request) as { messages: unknown }).messages),
    );
    // Every answer the endpoint gave is in the call log, the rolled-back ones written again.
    expect(sent.length).toBeGreaterThan(0);
    expect(new Set(kept)).toEqual(new Set(sent));
    // Every item asked again (as if none had been stored) is answered from the call log alone.
    db.prepare("UPDATE eval_items SET status = 'pending' WHERE run_id = ?").run(id);
    fake.requests.length = 0;
    const resumed = await executeEvalRun(db, id);
    expect(resumed).toMatchObject({ status: 'done', failed: 0 });
    expect(chats()).toHaveLength(0);
  });

  it('cancels a run between items and resumes it to the end', async () => {
    const controller = new AbortController();
    let requests = 0;
    const held = heldReplies();
    // Cancelled while the second item is being judged: its answering call is complete, the item is
    // not. The judging call is held, so the cancel lands while it is in flight.
    fake.chat = (body) => {
      if (++requests < 4) return brain(body as Body);
      if (requests === 4) controller.abort();
      return held.hold(brain(body as Body));
    };
    const id = createEvalRun(db, request({ method: 'cot', model: { endpoint: 'fake', model: 'gen-cancelled' }, concurrency: 1, judge: { endpoint: 'fake', model: 'judge-cancelled' }, noCache: true }));
    const cancelled = await executeEvalRun(db, id, { signal: controller.signal });
    held.releaseAll();
    expect(cancelled.status).toBe('cancelled');
    expect(cancelled.done).toBe(1);
    expect(cancelled.error).toMatch(/resume the run/);
    const completed = new Set(
      (db.prepare("SELECT request FROM llm_calls WHERE run_id = ? AND status = 'ok'").all(id) as { request: string }[]).map((r) =>
        JSON.stringify((JSON.parse(r.request) as { messages: unknown }).messages),
      ),
    );
    expect(completed.size).toBe(3);
    fake.chat = (body) => brain(body as Body);
    fake.requests.length = 0;
    const resumed = await executeEvalRun(db, id);
    expect(resumed).toMatchObject({ status: 'done', done: 3, failed: 0 });
    // Even with fresh calls asked for, the resume repeats none that the first session completed.
    expect(chats().filter((r) => completed.has(JSON.stringify(r.body.messages)))).toHaveLength(0);
  });
});

describe('a release split', () => {
  it('evaluates the frozen records of one split, and the CLI lists, shows and compares runs as JSON', async () => {
    const release = await awbJsonAsync<{ counts: Record<string, number> }>(['release', 'create', 'Cond', '1.0.0', '--dataset', 'cond', '--out', tmp.file('release'), '--db', dbFile]);
    expect(release.status).toBe(0);
    const a = await evaluate({ method: 'condqa-oracle', dataset: undefined, release: 'Cond@1.0.0', split: 'train', noCache: true });
    expect(a).toMatchObject({ status: 'done', sourceKind: 'release', source: 'Cond@1.0.0:train', total: release.json.counts.train });
    const item = items(a.id)[0]!;
    // The gold comes from the frozen record: conditions for the oracle setting, fragments to cite.
    expect(item.gold.interpretations.every((i) => i.condition)).toBe(true);
    expect(item.gold.fragments.length).toBeGreaterThan(0);
    expect(item.metrics.citation_precision).toBeTypeOf('number');
    const b = await evaluate({ method: 'condqa', dataset: undefined, release: 'Cond', split: 'train' });
    const list = await awbJsonAsync<EvalRunSummary[]>(['eval', 'list', '--db', dbFile]);
    expect(list.json.slice(0, 2).map((r) => r.id)).toEqual([b.id, a.id]);
    const shown = await awbJsonAsync<EvalRunSummary>(['eval', 'show', String(a.id), '--db', dbFile]);
    expect(shown.json).toMatchObject({ id: a.id, method: 'condqa-oracle', done: a.done });
    const compared = await awbJsonAsync<{ paired: number; metrics: { metric: string }[] }>(['eval', 'compare', String(a.id), String(b.id), '--db', dbFile]);
    expect(compared.status).toBe(0);
    expect(compared.json.paired).toBe(a.done);
    expect(compared.json.metrics.map((m) => m.metric)).toContain('str_em');
    const bad = await awbJsonAsync<unknown>(['eval', 'compare', String(a.id), '999999', '--db', dbFile]).catch((e: Error) => e);
    expect(bad instanceof Error ? bad.message : JSON.stringify(bad)).toMatch(/No evaluation run 999999/);
  });
});

describe('the request', () => {
  it('refuses a release and a dataset together, an unknown endpoint, and a retrieving method without a corpus', () => {
    expect(EvalStartRequest.safeParse({ method: 'cot', model: { endpoint: 'fake', model: 'gen' }, config: {}, dataset: 'cond', release: 'r' }).success).toBe(false);
    expect(() => createEvalRun(db, request({ model: { endpoint: 'nowhere', model: 'gen' } }))).toThrow(/model: no endpoint named "nowhere"/);
    expect(() => createEvalRun(db, request({ method: 'react', corpus: undefined }))).toThrow(/ReAct searches a corpus/);
    expect(() => createEvalRun(db, request({ dataset: 'missing' }))).toThrow(/No dataset named "missing"/);
    expect(fs.existsSync(dbFile)).toBe(true);
  });
});
