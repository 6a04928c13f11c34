import fs from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../db/connection';
import { recordCall } from '../../db/queries/llm-calls';
import { getRun, insertRun, markAbandonedRuns } from '../../db/queries/runs';
import type { WritableDB } from '../../db/sql';
import { exportJsonl } from '../../electron/services/export';
import { importFile } from '../../electron/services/import/import-file';
import type { AwbRecord } from '../../shared/awb-format';
import { readFakeScript, startFakeEndpoint } from '../../electron/dev/fake-model';
import { currentPrompts } from '../../electron/services/pipeline/prompts';
import { itemTrace, parseConfig, pipelineFunnel, pipelineRuns, runPipeline } from '../../electron/services/pipeline/run';
import { embedCorpus } from '../../electron/services/retrieval/models';
import { instanceDetail } from '../../electron/services/browse';
import { MUSIQUE, ROOT, tempDir, writeFile } from '../helpers/db';
import { startFakeOpenAI, type ChatReply, type FakeOpenAI } from '../helpers/fake-openai';
import { LONG_HORSE_ANSWER, MUSTANG_INTERPRETATIONS, MUSTANG_RECORDS, mustangScript, pipelineBrain, SPRINGFIELD_RECORDS, SPRINGFIELD_SCRIPT } from '../helpers/fake-pipeline';
import { promptPassages, type FakeScript } from '../../electron/dev/fake-model';

/**
 * The pipeline's MARCH rules (issue 15), each end to end: the real `openai` SDK over HTTP on
 * 127.0.0.1 against a fake model that answers from the passages in its prompts, with verdicts
 * scripted per question and faults scripted per test.
 */

const tmp = tempDir('awb-march-');
let fake: FakeOpenAI;

function config(overrides: Record<string, unknown> = {}, endpoint: Record<string, unknown> = {}) {
  return {
    endpoints: { fake: { baseURL: fake.url, apiKeyEnv: 'AWB_TEST_KEY', maxInFlight: 8, retries: 1, timeoutMs: 5000, ...endpoint } },
    detectors: ['det-a', 'det-b', 'det-c', 'det-d'].map((model) => ({ endpoint: 'fake', model })),
    generator: { endpoint: 'fake', model: 'gen' },
    filters: ['fil-a', 'fil-b', 'fil-c'].map((model) => ({ endpoint: 'fake', model })),
    retrieval: { corpus: 'Mustangs', mode: 'hybrid', k: 5 },
    prices: { gen: { input: 2, output: 8 } },
    // These tests count the calls of a run that asks every voter; early exit has its own (pipeline-economy.test.ts).
    earlyExit: { enabled: false },
    ...overrides,
  };
}

let counter = 0;
async function freshDb(options: { records?: unknown[]; dataset?: string; embed?: boolean } = {}): Promise<WritableDB> {
  const name = `march-${++counter}`;
  const db = openDatabase(tmp.file(`${name}.db`));
  const dataset = options.dataset ?? 'Mustangs';
  const data = writeFile(tmp.file(`${name}.json`), JSON.stringify(options.records ?? MUSTANG_RECORDS));
  expect((await importFile(db, { file: data, format: 'musique', dataset })).committed).toBe(true);
  if (options.embed !== false) await embedCorpus(db, { corpus: dataset, provider: 'offline', dimensions: 256 });
  return db;
}

function script(s: FakeScript, override?: (schema: string, body: { messages?: { role: string; content: string }[] }, index: number) => ChatReply | undefined) {
  fake.chat = pipelineBrain({ script: s, ...(override ? { override } : {}) });
}

const chat = () => fake.requests.filter((r) => r.path.endsWith('/chat/completions'));
const messagesOf = (r: { body: Record<string, unknown> }) => r.body.messages as { role: string; content: string }[];
const semantic = (db: WritableDB) => db.prepare("SELECT id, status, stage, removed_stage, removed_reason FROM instances WHERE ambiguity_type = 'semantic'").get() as { id: number; status: string; stage: string; removed_stage: string | null; removed_reason: string | null };
const interpretations = (db: WritableDB, id: number) =>
  db.prepare('SELECT position, clarified_question, short_answer, status, dropped_reason, extra FROM interpretations WHERE instance_id = ? ORDER BY position').all(id) as {
    position: number;
    clarified_question: string;
    short_answer: string | null;
    status: string;
    dropped_reason: string | null;
    extra: string;
  }[];

beforeAll(async () => {
  fake = await startFakeOpenAI();
});
afterAll(async () => {
  await fake.close();
  tmp.cleanup();
});
beforeEach(() => {
  fake.requests.length = 0;
  fake.embeddingFaults.length = 0;
  script(mustangScript());
});

describe('short answers end at most 10 tokens long, or the instance says why not (item 1)', () => {
  it('uses a shortening that is a shorter span of the passage', async () => {
    const db = await freshDb();
    const run = await runPipeline(db, { config: config() });
    expect(run.status).toBe('done');
    const inst = semantic(db);
    expect(inst.status).toBe('ready');
    const rows = interpretations(db, inst.id);
    expect(rows.map((r) => [r.short_answer, r.status])).toEqual([
      ['F-Series', 'active'],
      ['single-coil pickup', 'active'],
      ['horses brought to', 'active'],
    ]);
    expect(JSON.parse(rows[2]!.extra)).toMatchObject({ shortened_from: LONG_HORSE_ANSWER });
    expect(run.stages.find((s) => s.stage === 'shorten')).toMatchObject({ processed: 1, done: 1, calls: 1 });
    db.close();
  });

  it('retries once with the failure shown, then removes the interpretation with the reason', async () => {
    const db = await freshDb();
    script(mustangScript(), (schema) => (schema === 'shorten' ? { content: JSON.stringify({ answer: 'wild horses from Spain' }) } : undefined));
    const run = await runPipeline(db, { config: config() });
    const shortenCalls = chat().filter((r) => /Current answer:/.test(messagesOf(r)[1]!.content));
    expect(shortenCalls).toHaveLength(2);
    // The second try shows the model its answer and what is wrong with it.
    expect(messagesOf(shortenCalls[1]!).at(-1)!.content).toMatch(/That cannot be used: "wild horses from Spain" is not a span of the answer's passage/);
    const inst = semantic(db);
    expect(inst.status).toBe('ready');
    const horse = interpretations(db, inst.id)[2]!;
    expect(horse.status).toBe('dropped');
    expect(horse.dropped_reason).toMatch(/^shorten: the answer has 12 tokens, more than 10, and was shortened twice without success: first .* not a span .*; then .* not a span/);
    expect(run.stages.find((s) => s.stage === 'shorten')).toMatchObject({ processed: 1, done: 1, calls: 2 });
    db.close();
  });

  it('removes the instance when fewer than two interpretations are left, and counts it in the funnel', async () => {
    const db = await freshDb();
    script(mustangScript(['F-Series', LONG_HORSE_ANSWER], [MUSTANG_INTERPRETATIONS[0]!, MUSTANG_INTERPRETATIONS[2]!]), (schema) =>
      schema === 'shorten' ? { content: JSON.stringify({ answer: 'brought to the Americas by Spanish settlers in the sixteenth century' }) } : undefined,
    );
    await runPipeline(db, { config: config() });
    const inst = semantic(db);
    expect(inst).toMatchObject({ status: 'removed', removed_stage: 'shorten' });
    expect(inst.removed_reason).toBe('shorten: 1 interpretation has a short answer of at most 10 tokens, fewer than 2');
    expect(interpretations(db, inst.id)[1]!.dropped_reason).toMatch(/has 10 tokens|is not shorter|more than 10/);
    const funnel = pipelineFunnel(db);
    expect(funnel.rows.map((r) => [r.step, r.total])).toEqual([
      ['base questions screened', 1],
      ['detected ambiguous', 1],
      ['clarified (2+ interpretations)', 1],
      ['answered (2+ supported answers)', 1],
      ['short answers within the token limit', 0],
      ['after collisions', 0],
      ['kept by the filter', 0],
    ]);
    db.close();
  });
});

describe('the span check means what it says (item 2)', () => {
  it('matches on word boundaries in the passage the model named, and records a fall-back to another passage', async () => {
    const db = await freshDb();
    // The model names the Bradford passage for "Ford": "ford" is inside "Bradford" there, not a word.
    script(mustangScript(), (schema, body) => {
      if (schema !== 'short_answer' || !messagesOf({ body: body as Record<string, unknown> })[1]!.content.includes('by Ford, the maker')) return undefined;
      const passages = promptPassages(messagesOf({ body: body as Record<string, unknown> })[1]!.content);
      const bradford = passages.findIndex((p) => p.startsWith('Bradford'));
      expect(bradford).toBeGreaterThanOrEqual(0);
      return { content: JSON.stringify({ answer: 'Ford', passage: bradford + 1 }) };
    });
    await runPipeline(db, { config: config(), stages: ['detect', 'clarify', 'decompose', 'retrieve', 'answer'] });
    const inst = semantic(db);
    const ford = db.prepare('SELECT i.short_answer, i.answer_start, i.answer_end, i.extra, p.title, p.text FROM interpretations i JOIN passages p ON p.id = i.answer_passage_id WHERE i.instance_id = ? AND i.position = 0').get(inst.id) as {
      short_answer: string;
      answer_start: number;
      answer_end: number;
      extra: string;
      title: string;
      text: string;
    };
    expect(ford.title).toBe('Ford Mustang');
    expect(ford.text.slice(ford.answer_start, ford.answer_end)).toBe('Ford');
    expect(ford.text.slice(ford.answer_start - 4, ford.answer_start)).toBe('The ');
    expect(JSON.parse(ford.extra)).toMatchObject({ answer_check: { note: expect.stringMatching(/^not in passage \d+, the one the model named; found in passage \d+$/) } });
    db.close();
  });

  it('drops an answer taken from the question rather than a passage, saying so', async () => {
    const db = await freshDb();
    script(mustangScript(), (schema, body) =>
      schema === 'short_answer' && messagesOf({ body: body as Record<string, unknown> })[1]!.content.includes('Fender, the maker') ? { content: JSON.stringify({ answer: 'the maker of the Mustang guitar', passage: 1 }) } : undefined,
    );
    await runPipeline(db, { config: config() });
    const rows = interpretations(db, semantic(db).id);
    expect(rows[1]).toMatchObject({ status: 'dropped', dropped_reason: 'answer: "the maker of the Mustang guitar" is not a span of any retrieved passage (its words come from the question, not from a passage)' });
    expect(semantic(db).status).toBe('ready');
    db.close();
  });
});

describe('prompts per ambiguity type, and self-contained sub-questions (item 3)', () => {
  it('clarifies each type with its own instructions, as its own prompt version', async () => {
    const db = await freshDb();
    script({ items: [{ question: 'maker of the Mustang', detect: { semantic: true, syntactic: true, constraint: true }, clarify: MUSTANG_INTERPRETATIONS.slice(0, 2), answers: ['F-Series', 'single-coil pickup'] }] });
    await runPipeline(db, { config: config(), stages: ['detect', 'clarify'] });
    const clarifySystems = chat()
      .filter((r) => (r.body.response_format as { json_schema?: { name: string } }).json_schema?.name === 'clarify')
      .map((r) => messagesOf(r)[0]!.content);
    expect(clarifySystems).toHaveLength(3);
    expect(clarifySystems.some((s) => /Interpret it: .*one entity or sense/.test(s))).toBe(true);
    expect(clarifySystems.some((s) => /Resolve the parse: .*one structure/.test(s))).toBe(true);
    expect(clarifySystems.some((s) => /Generalise the over-specific condition/.test(s))).toBe(true);
    const versions = db
      .prepare("SELECT DISTINCT p.prompt_version FROM interpretations i JOIN provenance p ON p.id = i.question_provenance_id ORDER BY 1")
      .all()
      .map((r) => (r as { prompt_version: string }).prompt_version);
    expect(versions).toEqual(['clarify_constraint@v1', 'clarify_semantic@v1', 'clarify_syntactic@v1']);
    // The semantic detector is told about aliases, acronyms and shared names.
    const semanticDetector = chat().find((r) => (r.body.response_format as { json_schema?: { name: string } }).json_schema?.name === 'detect_semantic')!;
    expect(messagesOf(semanticDetector)[0]!.content).toMatch(/homonym.*alias.*acronym/);
    db.close();
  });

  it('stores a changed built-in prompt as a new version, and keeps an edited one', () => {
    const db = openDatabase(':memory:');
    currentPrompts(db);
    db.prepare("INSERT INTO prompt_templates (stage, version, system, user, built_in) VALUES ('decompose', 2, 'an older built-in text', 'Question: {{question}}', 1)").run();
    db.prepare("INSERT INTO prompt_templates (stage, version, system, user, built_in) VALUES ('filter', 2, 'my own words', '{{question}}', 0)").run();
    const prompts = currentPrompts(db);
    expect(prompts.get('decompose')).toMatchObject({ version: 3, builtIn: true });
    expect(prompts.get('decompose')!.system).toMatch(/stands on its own/);
    expect(prompts.get('filter')).toMatchObject({ version: 2, builtIn: false, system: 'my own words' });
    db.close();
  });

  it('fills "#1" placeholders before anything is stored or searched', async () => {
    const db = await freshDb();
    script(mustangScript(), (schema) => (schema === 'decompose' ? { content: JSON.stringify({ sub_questions: ['Who makes the Mustang?', 'What is the best-selling pickup sold by #1?'] }) } : undefined));
    await runPipeline(db, { config: config(), stages: ['detect', 'clarify', 'decompose', 'retrieve'] });
    const subs = db.prepare('SELECT question FROM sub_questions ORDER BY interpretation_id, position').all() as { question: string }[];
    expect(subs.slice(0, 2).map((s) => s.question)).toEqual(['Who makes the Mustang?', 'What is the best-selling pickup sold by the answer to "Who makes the Mustang"?']);
    expect(subs.filter((s) => s.question.includes('#'))).toEqual([]);
    const origins = db.prepare('SELECT DISTINCT origin FROM evidence').all() as { origin: string }[];
    expect(origins.some((o) => o.origin.includes('sub-question 2'))).toBe(true);
    db.close();
  });
});

describe('a configurable re-ranking model (item 4) and evidence without a manual embed (issue 13, item 7)', () => {
  it('embeds a freshly imported corpus with the offline embedder on first use, re-ranks with it, and says so', async () => {
    const db = await freshDb({ embed: false });
    expect(db.prepare('SELECT count(*) AS n FROM vector_counts WHERE n > 0').get()).toEqual({ n: 0 });
    const lines: string[] = [];
    const run = await runPipeline(db, { config: config(), onLog: (line) => lines.push(line) });
    expect(run.status).toBe('done');
    expect(run.stages.find((s) => s.stage === 'retrieve')).toMatchObject({ processed: 1, done: 1, failed: 0 });
    expect(run.rerank).toEqual({ provider: 'offline', model: 'offline:hashed-tfidf-words-chargrams:768', lexical: true });
    expect(run.log[0]).toMatch(/^The corpus "Mustangs" had no vectors: embedded its 4 passages with the offline embedder \(offline:hashed-tfidf-words-chargrams:768, lexical, no network\) on first use/);
    expect(run.log).toEqual(lines);
    expect(pipelineRuns(db)[0]!.log).toEqual(run.log);
    expect(semantic(db).status).toBe('ready');
    db.close();
  });

  it('does not embed again a corpus that has another model\'s vectors: that model re-ranks, and the log says so', async () => {
    const db = await freshDb({ embed: false });
    process.env.AWB_TEST_KEY = 'k';
    await embedCorpus(db, { corpus: 'Mustangs', provider: 'openai', model: 'remote-embedder', baseURL: fake.url, apiKeyEnv: 'AWB_TEST_KEY' });
    const run = await runPipeline(db, { config: config(), stages: ['detect', 'clarify', 'decompose', 'retrieve'] });
    expect(run.stages.find((s) => s.stage === 'retrieve')).toMatchObject({ done: 1, failed: 0 });
    expect(run.rerank).toEqual({ provider: 'openai', model: 'openai:remote-embedder', lexical: false });
    expect(run.log).toEqual([expect.stringMatching(/^Evidence is re-ranked with openai:remote-embedder, the model the corpus was embedded with/)]);
    expect(db.prepare("SELECT count(*) AS n FROM embedding_models WHERE provider = 'offline'").get()).toEqual({ n: 0 });
    db.close();
  });

  it('re-ranks with a model behind an embeddings endpoint when the config names one, and records it', async () => {
    const db = await freshDb();
    const run = await runPipeline(db, { config: config({ rerank: { provider: 'openai', endpoint: 'fake', model: 'embedder-1', dimensions: 32 } }) });
    expect(run.rerank).toEqual({ provider: 'openai', model: 'fake/embedder-1', lexical: false });
    const embeddings = fake.requests.filter((r) => r.path.endsWith('/embeddings'));
    expect(embeddings.length).toBeGreaterThan(0);
    expect(embeddings[0]!.body).toMatchObject({ model: 'embedder-1', dimensions: 32 });
    const detail = db.prepare("SELECT DISTINCT p.detail FROM evidence e JOIN provenance p ON p.id = e.provenance_id").all() as { detail: string }[];
    expect(detail).toEqual([{ detail: 'retrieve: hybrid, k=5, pooled over sub-questions, re-ranked by the clarified question with fake/embedder-1' }]);
    expect(semantic(db).status).toBe('ready');
    db.close();
  });

  it('fails an item whose re-ranking endpoint fails, with the reason, and goes on with the others', async () => {
    const db = await freshDb({ records: [...MUSTANG_RECORDS, ...SPRINGFIELD_RECORDS] });
    script({ ...mustangScript(), items: [...mustangScript().items!, { ...SPRINGFIELD_SCRIPT.items![0]!, detect: { semantic: true } }] });
    fake.embeddingFaults.push({ kind: 'status', status: 500, times: 1 });
    const run = await runPipeline(db, { config: config({ retrieval: { corpus: null, mode: 'hybrid', k: 5 }, rerank: { provider: 'openai', endpoint: 'fake', model: 'embedder-1' }, concurrency: 1 }, { retries: 0 }) });
    expect(run.status).toBe('done');
    expect(run.stages.find((s) => s.stage === 'retrieve')).toMatchObject({ processed: 2, done: 1, failed: 1 });
    const failure = db.prepare("SELECT reason FROM pipeline_items WHERE stage = 'retrieve' AND status = 'failed'").get() as { reason: string };
    expect(failure.reason).toMatch(/^re-ranking with embedder-1 \(endpoint fake\) failed: .*500/);
    expect(db.prepare("SELECT count(*) AS n FROM instances WHERE status = 'ready'").get()).toEqual({ n: 1 });
    db.close();
  });
});

describe('collisions drop what collided (item 5)', () => {
  it('removes the later of two interpretations with the same answer, keeping an instance with two distinct ones', async () => {
    const db = await freshDb();
    script(mustangScript(['F-Series', 'single-coil pickup', 'f-series']));
    await runPipeline(db, { config: config() });
    const inst = semantic(db);
    expect(inst.status).toBe('ready');
    const rows = interpretations(db, inst.id);
    expect(rows.map((r) => r.status)).toEqual(['active', 'active', 'dropped']);
    expect(rows[2]!.dropped_reason).toBe('collide: the same short answer as interpretation 1 after normalisation ("f series")');
    db.close();
  });
});

describe('the audit trail (item 6)', () => {
  it("shows a call shared by two items in each item's trace", async () => {
    const db = await freshDb();
    const data = writeFile(tmp.file('again.json'), JSON.stringify(MUSTANG_RECORDS));
    await importFile(db, { file: data, format: 'musique', dataset: 'Mustangs again' });
    await runPipeline(db, { config: config({ concurrency: 1 }), stages: ['detect'] });
    const ids = (db.prepare('SELECT id FROM base_questions ORDER BY id').all() as { id: number }[]).map((r) => r.id);
    expect(ids).toHaveLength(2);
    const first = itemTrace(db, `bq:${ids[0]}`).calls.map((c) => c.id);
    const second = itemTrace(db, `bq:${ids[1]}`).calls.map((c) => c.id);
    // The same 12 detection requests served both questions (the second from the cache).
    expect(first).toHaveLength(12);
    expect(second).toEqual(first);
    db.close();
  });

  it('exports every detector vote and the call behind every generated field, and a re-import keeps them', async () => {
    const db = await freshDb();
    await runPipeline(db, { config: config() });
    const exported = tmp.file('march-export.jsonl');
    await exportJsonl(db, { file: exported });
    const first = fs.readFileSync(exported, 'utf8');
    const record = JSON.parse(first.split('\n')[0]!) as AwbRecord;
    expect(record.base_question.detection_votes!).toHaveLength(12);
    expect(record.base_question.detection_votes!.find((v) => v.ambiguity_type === 'semantic' && v.model === 'fake/det-a')).toMatchObject({
      verdict: 'yes',
      provenance: { source: 'llm', model: 'fake/det-a', prompt_version: 'detect_semantic@v1', call: expect.stringMatching(/^[0-9a-f]{64}$/) },
    });
    const calls = (text: string) => [...text.matchAll(/"call":"([0-9a-f]{64})"/g)].map((m) => m[1]);
    expect(calls(first).length).toBeGreaterThan(20);

    // Into a database that has never seen these calls: the references survive, as placeholders.
    const other = openDatabase(tmp.file('march-reimport.db'));
    expect((await importFile(other, { file: exported, format: 'awb' })).committed).toBe(true);
    expect(other.prepare('SELECT count(*) AS n FROM detection_votes').get()).toEqual({ n: 12 });
    const again = tmp.file('march-export-again.jsonl');
    await exportJsonl(other, { file: again });
    const second = fs.readFileSync(again, 'utf8');
    expect(calls(second)).toEqual(calls(first));
    expect(second).toBe(first);
    // A placeholder never answers from the cache.
    expect(other.prepare("SELECT count(*) AS n FROM llm_calls WHERE status = 'ok'").get()).toEqual({ n: 0 });
    other.close();
    db.close();
  });

  it("keeps the calls and cost of a run whose process died in that run's summary", () => {
    const db = openDatabase(':memory:');
    const runId = insertRun(db, 'pipeline', {});
    for (const n of [1, 2]) {
      recordCall(db, {
        hash: `h${n}`, runId, endpoint: 'http://x/v1', model: 'fake/gen', stage: 'detect', item: 'bq:1', request: { messages: [] }, response: '{}',
        status: 'ok', error: null, promptTokens: 100, completionTokens: 10, latencyMs: 5, costUsd: 0.25,
      });
    }
    markAbandonedRuns(db);
    const summary = getRun(db, runId)!;
    expect(summary).toMatchObject({ calls: 2, costUsd: 0.5, promptTokens: 200, status: 'failed' });
    expect(summary.error).toMatch(/stopped before it finished/);
    db.close();
  });

  it('records latency without the time queued for a slot, and the queue time apart', async () => {
    const db = await freshDb();
    const brain = pipelineBrain({ script: mustangScript() });
    fake.chat = async (body, index) => {
      await new Promise((resolve) => setTimeout(resolve, 40));
      return brain(body, index);
    };
    const run = await runPipeline(db, { config: config({ detection: { types: ['semantic'], rule: 'all' } }, { maxInFlight: 1 }), stages: ['detect'] });
    const detect = run.stages[0]!;
    expect(detect.calls).toBe(4);
    const calls = itemTrace(db, `bq:${(db.prepare('SELECT id FROM base_questions').get() as { id: number }).id}`).calls;
    expect(calls.every((c) => typeof c.queueMs === 'number' && typeof c.latencyMs === 'number')).toBe(true);
    // Four calls at once through one slot: the last waited for the three before it.
    const longestQueue = Math.max(...calls.map((c) => c.queueMs!));
    const longestLatency = Math.max(...calls.map((c) => c.latencyMs!));
    expect(longestQueue).toBeGreaterThan(longestLatency);
    expect(detect.queueMs).toBeGreaterThan(0);
    db.close();
  });
});

describe('model identity (item 7)', () => {
  it('refuses a filter model that is the generator under another provider prefix or snapshot, saying what it compared', () => {
    const endpoints = { a: { baseURL: 'http://127.0.0.1:9/v1' }, b: { baseURL: 'http://127.0.0.1:10/v1' } };
    const base = { endpoints, detectors: [{ endpoint: 'a', model: 'x' }], generator: { endpoint: 'a', model: 'openai/gpt-4.1' } };
    expect(() => parseConfig({ ...base, filters: [{ endpoint: 'b', model: 'gpt-4.1-2025-04-14' }] })).toThrow(
      'Pipeline config filters.0.model: the filter model "gpt-4.1-2025-04-14" (endpoint b) and the generator "openai/gpt-4.1" (endpoint a) are the same model (compared as "gpt-4.1": provider prefix, snapshot date and routing variant left out); a model may not judge its own output',
    );
    expect(() => parseConfig({ ...base, filters: [{ endpoint: 'b', model: 'openai/gpt-4.1-mini' }] })).not.toThrow();
  });
});

describe('reproducible subsets (item 8)', () => {
  const records = Array.from({ length: 8 }, (_, i) => ({
    id: `2hop__${i}_${i}`,
    question: `Which river flows through town number ${i}?`,
    answer: 'x',
    paragraphs: [{ idx: 0, title: `Town ${i}`, paragraph_text: `The river of town number ${i} is the River ${i}.`, is_supporting: true }],
    question_decomposition: [{ question: `Which river flows through town number ${i}?`, answer: 'x' }],
  }));
  const chosen = (db: WritableDB) =>
    // In the order they were worked on (one at a time): by their first call.
    (db.prepare("SELECT b.source_id FROM llm_calls c JOIN base_questions b ON 'bq:' || b.id = c.item GROUP BY b.id ORDER BY min(c.id)").all() as { source_id: string }[]).map((r) => r.source_id);

  it('picks the same questions for --limit whatever the import order, and the same again on the next run', async () => {
    script({ detect: { semantic: false, syntactic: false, constraint: false } });
    const one = await freshDb({ records, dataset: 'Towns', embed: false });
    const two = await freshDb({ records: [...records].reverse(), dataset: 'Towns', embed: false });
    const cfg = config({ retrieval: { corpus: 'Towns', mode: 'hybrid', k: 3 }, detection: { types: ['semantic'], rule: 'all' }, concurrency: 1 });
    await runPipeline(one, { config: cfg, stages: ['detect'], limit: 3 });
    await runPipeline(two, { config: cfg, stages: ['detect'], limit: 3 });
    expect(chosen(one)).toHaveLength(3);
    expect(chosen(two)).toEqual(chosen(one));
    // Not merely the first three imported.
    expect(chosen(one)).not.toEqual(['2hop__0_0', '2hop__1_1', '2hop__2_2']);
    const again = await runPipeline(one, { config: cfg, stages: ['detect'], limit: 3 });
    expect(again.stages[0]).toMatchObject({ processed: 0 });
    expect(chosen(one)).toHaveLength(3);
    one.close();
    two.close();
  });
});

describe('the fake endpoint that ships with the product (item 9)', () => {
  it('lets a newcomer run the whole pipeline offline on the demo questions', async () => {
    const endpoint = await startFakeEndpoint();
    try {
      const db = openDatabase(tmp.file('demo.db'));
      await importFile(db, { file: MUSIQUE, format: 'musique', dataset: 'MuSiQue train (sample)' });
      const offline = JSON.parse(fs.readFileSync(`${ROOT}/resources/pipeline.offline.json`, 'utf8')) as { endpoints: Record<string, { baseURL: string }> };
      offline.endpoints.fake!.baseURL = endpoint.url;
      const run = await runPipeline(db, { config: offline, limit: 6 });
      expect(run.status).toBe('done');
      expect(run.stages.reduce((n, s) => n + s.failed, 0)).toBe(0);
      expect(run.log.some((l) => l.includes('on first use'))).toBe(true);
      const ready = db.prepare("SELECT id FROM instances WHERE status = 'ready'").all() as { id: number }[];
      expect(ready.length).toBeGreaterThan(0);
      const detail = instanceDetail(db, ready[0]!.id);
      for (const interpretation of detail.interpretations.filter((i) => i.status === 'active')) {
        const span = interpretation.shortAnswer!;
        const passage = interpretation.evidence.find((e) => e.passage.id === span.passageId)?.passage ?? interpretation.answerPassage!;
        expect(passage.text.slice(span.start!, span.end!)).toBe(span.text);
      }
      expect(endpoint.counts['/v1/chat/completions']).toBe(run.calls);
      db.close();
    } finally {
      await endpoint.close();
    }
  });

  it('reads a script file, refusing a malformed one by name', () => {
    const good = writeFile(tmp.file('script.json'), JSON.stringify({ detect: { semantic: { 'det-a': true } }, items: [{ question: 'Mustang', clarify: ['a?', 'b?'] }] }));
    expect(readFakeScript(good).items![0]!.clarify).toEqual(['a?', 'b?']);
    const bad = writeFile(tmp.file('bad-script.json'), JSON.stringify({ items: [{ question: 'Mustang', verdict: 'yes' }] }));
    expect(() => readFakeScript(bad)).toThrow(/bad-script\.json: items\.0: Unrecognized key: "verdict"/);
  });
});

describe('bad input', () => {
  it('removes an instance whose clarified questions are all the same, with the reason', async () => {
    const db = await freshDb();
    script(mustangScript(undefined, ['Which pickup does Ford sell most?', 'which pickup does  Ford sell most?']));
    await runPipeline(db, { config: config() });
    expect(semantic(db)).toMatchObject({
      status: 'removed',
      removed_stage: 'clarify',
      removed_reason: 'clarify: 1 distinct clarified question (of 2 given; repeats and the original question do not count), fewer than 2',
    });
    db.close();
  });
});
