import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { composeOperations, dispatch, markedFields, op, operations, serverPathFields, type Handlers, type Input, type Job, type OperationName, type Result } from '../../shared/api';
import { createHandlers, Workbench } from '../../electron/services';
import { isRead } from '../../shared/api/access';
import { checkPaths, checkReach } from '../../electron/services/team/reach';
import { awb } from '../helpers/cli';
import { failureOperationCases } from '../helpers/failure-operation-cases';
import { constructionOperationCases } from '../helpers/construction-operation-cases';
import { ASQA, MUSIQUE, tempDir } from '../helpers/db';
import { brain, type Body } from '../helpers/fake-eval';
import { startFakeOpenAI, type FakeOpenAI } from '../helpers/fake-openai';

/**
 * The operation map is the one API: IPC, HTTP and the CLI all call it through `dispatch`. This
 * walks the whole map and calls every operation through dispatch at least once, with a real
 * database behind it. `INPUTS` is typed as a complete record of the map, so an operation added
 * without a case here does not compile.
 */

const tmp = tempDir('awb-ops-');
let workbench: Workbench;
let handlers: Handlers;
let fake: FakeOpenAI;
const ids = { instance: 0, baseQuestion: 0, campaign: 0, protocol: 0, release: 0, evalRun: 0 };

async function call<K extends OperationName>(name: K, input: Input<K>): Promise<Result<unknown>> {
  return dispatch(handlers, name, input);
}

async function value<K extends OperationName>(name: K, input: Input<K>): Promise<unknown> {
  const result = await call(name, input);
  if (!result.ok) throw new Error(`${name}: ${result.error.code}: ${result.error.message}`);
  return result.value;
}

/** Runs a job operation to its end and returns the finished job. */
async function job<K extends OperationName>(name: K, input: Input<K>): Promise<Job> {
  const started = (await value(name, input)) as { jobId: string };
  return workbench.jobs.wait(started.jobId);
}

type Case = (() => Promise<unknown>) | { input: () => unknown };
/** Every operation's case: an input to dispatch (the result must be ok), or a scripted check. */
type Cases = { [K in OperationName]: Case };

const session = () => ({ campaignId: ids.campaign, annotator: 'ann' });

const CASES: Cases = {
  'app:info': { input: () => ({}) },
  'stats:get': { input: () => ({}) },
  'job:list': { input: () => ({}) },
  'job:get': async () => {
    const done = await job('dataset:export', { path: tmp.file('for-job.jsonl') });
    expect(await value('job:get', { id: done.id })).toMatchObject({ id: done.id, state: 'done' });
  },
  'job:cancel': async () => {
    const started = (await value('dataset:export', { path: tmp.file('cancelled.jsonl') })) as { jobId: string };
    await value('job:cancel', { id: started.jobId });
    expect(['cancelled', 'done']).toContain((await workbench.jobs.wait(started.jobId)).state);
  },
  'dataset:list': { input: () => ({}) },
  'dataset:attributions': { input: () => ({}) },
  'dataset:import': async () => {
    const done = await job('dataset:import', { path: MUSIQUE, format: 'musique', dataset: 'again', maxRecordMb: 8 });
    expect(done.state).toBe('done');
  },
  'dataset:export': async () => {
    const done = await job('dataset:export', { path: tmp.file('export.jsonl'), datasets: ['ASQA'] });
    expect(done.result).toMatchObject({ instances: 300 });
  },
  'dataset:seed-demo': async () => {
    // The database already holds data: nothing to do, and it says so with an empty list.
    expect(await value('dataset:seed-demo', {})).toEqual([]);
  },
  'instance:list': { input: () => ({ types: ['unspecified'], limit: 5 }) },
  'instance:facets': { input: () => ({ search: 'film' }) },
  'instance:get': { input: () => ({ id: ids.instance }) },
  'base-question:list': { input: () => ({ limit: 5, sort: 'hops', direction: 'desc' }) },
  'base-question:facets': { input: () => ({}) },
  'base-question:get': { input: () => ({ id: ids.baseQuestion }) },
  'corpus:list': { input: () => ({}) },
  'corpus:import': async () => {
    const file = tmp.file('passages.jsonl');
    fs.writeFileSync(file, `${JSON.stringify({ id: 'p1', title: 'Ford Mustang', text: 'The Ford Mustang is a car made by Ford.' })}\n`);
    const done = await job('corpus:import', { path: file, format: 'jsonl', corpus: 'tiny' });
    expect(done.result).toMatchObject({ committed: true, passagesCreated: 1 });
  },
  'corpus:embed': async () => {
    const done = await job('corpus:embed', { corpus: 'ASQA', provider: 'openai', model: 'fake-embedder', baseURL: fake.url, apiKeyEnv: 'AWB_TEST_NO_KEY' });
    expect(done.error).toBeNull();
    expect(done.result).toMatchObject({ corpus: 'ASQA' });
    expect(fake.requests.some((r) => r.path.endsWith('/embeddings'))).toBe(true);
  },
  'retrieval:search': { input: () => ({ query: 'Who directed the film?', mode: 'bm25', k: 3, corpus: 'ASQA' }) },
  'retrieval:cues': { input: () => ({ query: 'Who directed the film in 1998?', corpus: 'ASQA' }) },
  'retrieval:evidence': { input: () => ({ question: 'Who directed the film?', subQuestions: ['Which film?'], mode: 'bm25', k: 3, corpus: 'ASQA' }) },
  'retrieval:evaluate': async () => {
    const done = await job('retrieval:evaluate', { questions: MUSIQUE, mode: 'bm25', k: 10, buildCorpus: true });
    expect(done.error).toBeNull();
    expect((done.result as { questions: number }).questions).toBe(100);
  },
  'protocol:list': { input: () => ({}) },
  'protocol:get': { input: () => ({ id: ids.protocol }) },
  'protocol:versions': { input: () => ({ key: 'march-validation' }) },
  'protocol:document': async () => {
    expect(await value('protocol:document', { reference: 'march-validation@1' })).toMatchObject({ key: 'march-validation' });
  },
  'protocol:save': async () => {
    const document = { key: 'ops-check', name: 'Ops check', criteria: [{ id: 'ok', label: 'OK', question: 'Is it fine?', scale: { kind: 'yesno' } }] };
    expect(await value('protocol:save', { document })).toMatchObject({ key: 'ops-check', version: 1 });
  },
  'campaign:list': { input: () => ({}) },
  'campaign:get': { input: () => ({ id: ids.campaign }) },
  'campaign:preview': { input: () => ({ selection: { perType: 3 }, seed: 2 }) },
  'campaign:create': async () => {
    const view = (await value('campaign:create', { name: 'ops', protocol: 'march-validation', annotators: ['ann', 'bob'], selection: { perType: 4 } })) as { id: number };
    ids.campaign = view.id;
  },
  'judging:queue': { input: () => ({ session: session() }) },
  'judging:item': { input: () => ({ session: session(), position: 0 }) },
  'judging:decide': async () => {
    const item = (await value('judging:item', { session: session(), position: 0 })) as { instance: { id: number } };
    await value('judging:decide', { session: session(), instanceId: item.instance.id, criterion: 'ambiguity', value: 'yes' });
  },
  'judging:undo': async () => {
    expect(await value('judging:undo', { session: session() })).toMatchObject({ criterion: 'ambiguity' });
  },
  'judging:skip': async () => {
    const item = (await value('judging:item', { session: session(), position: 1 })) as { instance: { id: number } };
    expect(await value('judging:skip', { session: session(), instanceId: item.instance.id })).toEqual({ ok: true });
  },
  'pack:export': { input: () => ({ campaignId: ids.campaign, annotator: 'bob', path: tmp.file('bob.awbpack') }) },
  'pack:import': async () => {
    // Judge one item in bob's pack, as an annotator offline would, then merge the results.
    const pack = { pack: tmp.file('bob.awbpack') };
    const item = (await value('judging:item', { session: pack, position: 0 })) as { instance: { id: number } };
    await value('judging:decide', { session: pack, instanceId: item.instance.id, criterion: 'ambiguity', value: 'no' });
    expect(await value('pack:import', { path: tmp.file('bob.awbpack'), campaignId: ids.campaign })).toMatchObject({ imported: 1 });
  },
  'judgment:export': { input: () => ({ campaignId: ids.campaign, format: 'csv', path: tmp.file('judgments.csv') }) },
  'judgment:import': { input: () => ({ campaignId: ids.campaign, path: tmp.file('judgments.csv') }) },
  'agreement:get': { input: () => ({ campaignId: ids.campaign, resamples: 10 }) },
  'agreement:disagreements': { input: () => ({ campaignId: ids.campaign }) },
  'agreement:adjudicate': async () => {
    const queue = (await value('judging:queue', { session: session() })) as { items: { instanceId: number }[] };
    const instanceId = queue.items[0]!.instanceId;
    await value('agreement:adjudicate', { campaignId: ids.campaign, instanceId, criterion: 'ambiguity', value: 'no', reason: 'checked', adjudicator: 'lead' });
  },
  'pipeline:validate': async () => {
    expect(await value('pipeline:validate', { config: pipelineConfig() })).toMatchObject({ ok: true });
    expect(await value('pipeline:validate', { config: { detectors: 'none' } })).toMatchObject({ ok: false });
  },
  'pipeline:defaults': { input: () => ({}) },
  'pipeline:start': async () => {
    const done = await job('pipeline:start', { config: pipelineConfig(), stages: ['detect'], limit: 2, datasets: ['again'] });
    expect(done.error).toBeNull();
    expect(done.result).toMatchObject({ status: expect.any(String) });
  },
  'pipeline:show': async () => {
    const shown = (await value('pipeline:show', {})) as { id: number; costPerKept: { kept: { total: number }; stages: { stage: string }[] } };
    expect(shown.costPerKept.stages.map((s) => s.stage)).toContain('detect');
    expect((await value('pipeline:show', { run: shown.id })) as { id: number }).toMatchObject({ id: shown.id });
    expect((await call('pipeline:show', { run: 99_999 })).ok).toBe(false);
  },
  'pipeline:resume': async () => {
    const { id } = (await value('pipeline:show', {})) as { id: number };
    const done = await job('pipeline:resume', { run: id });
    expect(done.error).toBeNull();
    expect(done.result).toMatchObject({ id, status: 'done' });
  },
  'pipeline:status': { input: () => ({}) },
  'pipeline:funnel': { input: () => ({ datasets: ['ASQA'] }) },
  'pipeline:failures': { input: () => ({ limit: 5 }) },
  'pipeline:trace': { input: () => ({ item: `inst:${ids.instance}` }) },
  'pipeline:prompts': { input: () => ({}) },
  'pipeline:prompt-history': { input: () => ({ stage: 'detect_semantic' }) },
  'pipeline:prompt-save': async () => {
    const prompts = (await value('pipeline:prompts', {})) as { stage: string; system: string; user: string }[];
    const first = prompts[0]!;
    expect(await value('pipeline:prompt-save', { stage: first.stage, system: `${first.system}\n`, user: first.user })).toMatchObject({ stage: first.stage });
  },
  'pipeline:prices': { input: () => ({}) },
  'pipeline:price-set': { input: () => ({ model: 'fake-model', input: 1, output: 2 }) },
  'evaluation:score': async () => {
    const asqa = JSON.parse(fs.readFileSync(ASQA, 'utf8')) as { sample_id?: string; id?: string }[] | Record<string, unknown>;
    const first = Array.isArray(asqa) ? String(asqa[0]!.sample_id ?? asqa[0]!.id) : Object.keys(asqa)[0]!;
    const file = tmp.file('predictions.jsonl');
    fs.writeFileSync(file, `${JSON.stringify({ source_id: first, answer: 'An answer.' })}\n`);
    const report = (await value('evaluation:score', { dataset: 'ASQA', predictions: file, resamples: 10 })) as { n: number; missing: number };
    expect(report.n).toBe(300);
    expect(report.missing).toBe(299);
  },
  'evaluation:methods': { input: () => ({}) },
  'evaluation:start': async () => {
    // A cooperative scripted model, so that items finish (and two runs can be compared).
    const chat = fake.chat;
    fake.chat = (body) => brain(body as Body);
    const done = await job('evaluation:start', { method: 'naive-rag', model: { endpoint: 'fake', model: 'fake-a' }, config: pipelineConfig(), dataset: 'ASQA', corpus: 'ASQA', limit: 2 });
    expect(done.error).toBeNull();
    ids.evalRun = (done.result as { id: number }).id;
    expect(ids.evalRun).toBeGreaterThan(0);
    fake.chat = chat;
  },
  'evaluation:resume': async () => {
    const done = await job('evaluation:resume', { id: ids.evalRun, config: pipelineConfig() });
    expect(done.error).toBeNull();
  },
  'evaluation:list': { input: () => ({}) },
  'evaluation:get': { input: () => ({ id: ids.evalRun }) },
  'evaluation:items': { input: () => ({ run: ids.evalRun, sort: 'str_em', direction: 'desc' }) },
  'evaluation:item': async () => {
    const page = (await value('evaluation:items', { run: ids.evalRun })) as { rows: { id: number }[] };
    expect(page.rows.length).toBe(2);
    expect(await value('evaluation:item', { id: page.rows[0]!.id })).toMatchObject({ id: page.rows[0]!.id });
  },
  'evaluation:compare': { input: () => ({ a: ids.evalRun, b: ids.evalRun, resamples: 100 }) },
  'evaluation:table': { input: () => ({}) },
  'evaluation:prompts': { input: () => ({}) },
  'evaluation:prompt-history': async () => {
    const prompts = (await value('evaluation:prompts', {})) as { name: string }[];
    expect(await value('evaluation:prompt-history', { name: prompts[0]!.name })).not.toHaveLength(0);
  },
  'evaluation:prompt-save': async () => {
    const prompts = (await value('evaluation:prompts', {})) as { name: string; system: string; user: string }[];
    const first = prompts[0]!;
    expect(await value('evaluation:prompt-save', { name: first.name, system: `${first.system}\n`, user: first.user })).toMatchObject({ name: first.name });
  },
  'release:preview': { input: () => ({ name: 'Ops', version: '1.0.0', selection: { datasets: ['ASQA'] } }) },
  'release:create': async () => {
    const done = await job('release:create', { name: 'Ops', version: '1.0.0', out: tmp.file('release'), selection: { datasets: ['ASQA'] } });
    expect(done.result).toMatchObject({ name: 'Ops', counts: { train: 240, test: 60 } });
    ids.release = (done.result as { id: number }).id;
  },
  'release:list': { input: () => ({}) },
  'release:get': { input: () => ({ id: ids.release }) },
  'release:card': { input: () => ({ id: ids.release }) },
  'release:verify': { input: () => ({ dir: tmp.file('release') }) },
  'release:diff': { input: () => ({ a: ids.release, b: ids.release }) },
  'release:zip': { input: () => ({ id: ids.release }) },
  'team:status': { input: () => ({}) },
  'account:create': { input: () => ({ name: 'ops-maintainer', role: 'maintainer', password: 'a long enough password' }) },
  'account:list': { input: () => ({}) },
  'account:set-role': { input: () => ({ name: 'ops-maintainer', role: 'maintainer' }) },
  'account:set-password': { input: () => ({ name: 'ops-maintainer', password: 'another long password' }) },
  'account:issue-token': { input: () => ({ name: 'ops-maintainer', label: 'ops', expiresInDays: 1 }) },
  'account:revoke-token': { input: () => ({ tokenId: 1 }) },
  'account:disable': async () => {
    await value('account:create', { name: 'ops-leaver', role: 'viewer' });
    expect(await value('account:disable', { name: 'ops-leaver' })).toMatchObject({ name: 'ops-leaver' });
  },
  'account:audit': { input: () => ({}) },
  'sync:configure': { input: () => ({ postgres: 'postgres://awb@127.0.0.1:1/none', role: 'maintainer' }) },
  // No PostgreSQL on port 1: a clear refusal, nothing changed (test/integration/team-sync.test.ts syncs for real).
  'sync:run': async () => {
    await value('sync:configure', { postgres: 'postgres://awb@127.0.0.1:1/none', role: 'maintainer' });
    const result = await call('sync:run', {});
    expect(!result.ok && result.error.message).toMatch(/Cannot reach the shared store at postgres:\/\/awb@127\.0\.0\.1:1\/none/);
  },
  'sync:remove-campaign': async () => {
    await value('sync:configure', { postgres: 'postgres://awb@127.0.0.1:1/none', role: 'annotator', annotator: 'ann' });
    const result = await call('sync:remove-campaign', { uid: 'x' });
    expect(!result.ok && result.error.code).toBe('forbidden');
  },
  ...failureOperationCases(() => workbench.db, call, () => ids.instance, (name) => tmp.file(name)),
  ...constructionOperationCases(call, (id) => workbench.jobs.wait(id), () => fake, () => ids.instance, (name) => tmp.file(name)),
};

function pipelineConfig() {
  return {
    endpoints: { fake: { baseURL: fake.url, structuredOutput: 'json_schema' } },
    detectors: [{ endpoint: 'fake', model: 'fake-a' }],
    generator: { endpoint: 'fake', model: 'fake-a' },
    filters: [{ endpoint: 'fake', model: 'fake-b' }],
  };
}

/** The order operations run in: what later cases need is made by earlier ones. */
const ORDER: OperationName[] = ['campaign:create', 'judging:decide', 'judging:undo', 'pack:export', 'judgment:export', 'release:create', 'evaluation:start'];

beforeAll(async () => {
  fake = await startFakeOpenAI({ dimensions: 16 });
  workbench = new Workbench({ databasePath: tmp.file('ops.db'), mode: 'browser', version: 'test' });
  handlers = createHandlers(workbench);
  for (const [file, format, dataset] of [
    [ASQA, 'asqa', 'ASQA'],
    [MUSIQUE, 'musique', 'MuSiQue'],
  ] as const) {
    expect((await job('dataset:import', { path: file, format, dataset })).state).toBe('done');
  }
  const page = (await value('instance:list', { limit: 1 })) as { rows: { id: number; baseQuestionId: number }[] };
  ids.instance = page.rows[0]!.id;
  ids.baseQuestion = page.rows[0]!.baseQuestionId;
  ids.protocol = ((await value('protocol:list', {})) as { id: number }[])[0]!.id;
}, 120_000);

afterAll(async () => {
  workbench?.close();
  await fake?.close();
  tmp.cleanup();
});

describe('the operation map', () => {
  it('names every operation noun:verb and refuses a name declared twice', () => {
    for (const name of Object.keys(operations)) expect(name).toMatch(/^[a-z]+(-[a-z]+)*:[a-z]+(-[a-z]+)*$/);
    const a = { 'thing:get': op<number>()(z.object({}).strict()) };
    expect(() => composeOperations(a, { ...a })).toThrow(/thing:get is declared twice/);
    expect(() => composeOperations({ Thing_get: op<number>()(z.object({})) })).toThrow(/does not read noun:verb/);
  });

  it('calls every operation through dispatch at least once', async () => {
    const names = Object.keys(operations) as OperationName[];
    expect(Object.keys(CASES).sort()).toEqual([...names].sort());
    const ordered = [...ORDER, ...names.filter((n) => !ORDER.includes(n))];
    for (const name of ordered) {
      const test = CASES[name];
      try {
        if (typeof test === 'function') await test();
        else {
          const result = await call(name, test.input() as never);
          expect(result, `${name}: ${JSON.stringify(result).slice(0, 300)}`).toMatchObject({ ok: true });
        }
      } catch (error) {
        throw new Error(`${name}: ${(error as Error).message}`, { cause: error });
      }
    }
  }, 240_000);

  it('refuses an extra or mistyped field by name, for every operation', async () => {
    let named = 0;
    for (const name of Object.keys(operations) as OperationName[]) {
      const bare = await call(name, { surplusField: 1 } as never);
      expect(bare.ok, name).toBe(false);
      if (!bare.ok) expect(bare.error.code, name).toBe('invalid_input');
      const test = CASES[name];
      if (typeof test === 'function') continue;
      // With a valid input beside it, the surplus field itself is what is refused, by name.
      const input = test.input() as Record<string, unknown>;
      const result = await call(name, { ...input, surplusField: 1 } as never);
      expect(result, name).toMatchObject({ ok: false, error: { code: 'invalid_input', message: `${name}: input: Unrecognized key: "surplusField"` } });
      named += 1;
    }
    expect(named).toBeGreaterThan(30);
    const typo = await call('instance:list', { limt: 5 } as never);
    expect(typo).toMatchObject({ ok: false, error: { code: 'invalid_input', message: 'instance:list: input: Unrecognized key: "limt"' } });
    const unknown = await dispatch(handlers, 'instance:delete-all', {});
    expect(unknown).toMatchObject({ ok: false, error: { code: 'unknown_operation' } });
  });
});

describe('reads and writes', () => {
  it('classifies every operation that only reads as a read (not audited, open to readers in team mode)', () => {
    const readingVerb = /:(list|get|items|item|compare|table|methods|prompts|prompt-history|counts|facets|search|cues|evidence|preview|card|diff|document|versions|defaults|funnel|failures|prices|status|trace|info|attributions|queue|audit|verify|zip|score|disagreements|reasons)$/;
    const reads = Object.keys(operations).filter((name) => readingVerb.test(name));
    expect(reads.filter((name) => !isRead(name))).toEqual([]);
    // And nothing that writes passes for a read.
    for (const name of ['judging:decide', 'dataset:import', 'release:create', 'evaluation:start', 'failure-tag:add', 'account:create', 'sync:run']) expect(isRead(name), name).toBe(false);
  });
});

/** An input holding `value` at a field's path (`session.pack`, `files[].path`). */
function inputWith(field: string, value: string): Record<string, unknown> {
  const keys = field.replace(/\[\]/g, '.0').split('.');
  const input: Record<string, unknown> = {};
  let node = input;
  keys.forEach((key, i) => {
    if (i === keys.length - 1) node[key] = value;
    else node = (node[key] = /^\d+$/.test(keys[i + 1]!) ? [{}] : {}) as Record<string, unknown>;
  });
  return input;
}

describe('server paths', () => {
  /** Every string field of a schema, as a dotted path. */
  function stringFields(schema: z.ZodType): string[] {
    const out: string[] = [];
    const walk = (node: z.ZodType, at: string) => {
      const def = node._zod.def as unknown as Record<string, unknown> & { type: string };
      if (def.type === 'string') out.push(at);
      else if (def.type === 'object') for (const [key, value] of Object.entries(def.shape as Record<string, z.ZodType>)) walk(value, at ? `${at}.${key}` : key);
      else if (['optional', 'nullable', 'default', 'prefault', 'readonly', 'catch', 'nonoptional'].includes(def.type)) walk(def.innerType as z.ZodType, at);
      else if (def.type === 'array') walk(def.element as z.ZodType, `${at}[]`);
      else if (def.type === 'union') for (const option of def.options as z.ZodType[]) walk(option, at);
      else if (def.type === 'pipe') walk(def.in as z.ZodType, at);
    };
    walk(schema, '');
    return out;
  }

  it('declares every field that names a file or folder on the server with serverPath()', () => {
    const looksLikePath = /(^|\.)(path|configPath|rejectsFile|questions|predictions|out|dir|file|pack|folder|directory)$/;
    const declared: string[] = [];
    for (const [name, operation] of Object.entries(operations)) {
      const marked = serverPathFields(operation.input);
      for (const field of stringFields(operation.input).filter((f) => looksLikePath.test(f))) expect(marked, `${name}: ${field}`).toContain(field);
      declared.push(...marked.map((field) => `${name}.${field}`));
    }
    expect(declared).toEqual(expect.arrayContaining(['dataset:import.path', 'dataset:import.rejectsFile', 'judging:queue.session.pack', 'release:create.out', 'release:verify.dir', 'evaluation:score.predictions']));
  });

  it('refuses every declared server path to a network caller, whatever its role', () => {
    for (const [name, operation] of Object.entries(operations)) {
      for (const field of serverPathFields(operation.input)) {
        expect(() => checkPaths(name, inputWith(field, '/etc/passwd'), tmp.file('uploads')), `${name}.${field}`).toThrow(/names a file on the server/);
      }
    }
  });
});

describe('fields that reach out from the server', () => {
  /** Every field of a schema with its type, as a dotted path. */
  function fields(schema: z.ZodType): { at: string; type: string }[] {
    const out: { at: string; type: string }[] = [];
    const walk = (node: z.ZodType, at: string) => {
      const def = node._zod.def as unknown as Record<string, unknown> & { type: string };
      if (def.type === 'object') for (const [key, value] of Object.entries(def.shape as Record<string, z.ZodType>)) walk(value, at ? `${at}.${key}` : key);
      else if (['optional', 'nullable', 'default', 'prefault', 'readonly', 'catch', 'nonoptional'].includes(def.type)) walk(def.innerType as z.ZodType, at);
      else if (def.type === 'array') walk(def.element as z.ZodType, `${at}[]`);
      else if (def.type === 'union') for (const option of def.options as z.ZodType[]) walk(option, at);
      else if (def.type === 'pipe') walk(def.in as z.ZodType, at);
      else out.push({ at, type: def.type });
    };
    walk(schema, '');
    return out;
  }

  it('declares every field that names an address, an environment variable or endpoints, across the whole map', () => {
    const looksReaching = /(^|\.)(baseURL|baseUrl|apiKeyEnv|url|postgres|host|endpoint[A-Za-z]*Url)$/;
    const declared: string[] = [];
    for (const [name, operation] of Object.entries(operations)) {
      const reach = markedFields(operation.input, 'serverReach');
      const endpoints = markedFields(operation.input, 'serverEndpoints');
      for (const field of fields(operation.input)) {
        if (field.type === 'string' && looksReaching.test(field.at)) expect(reach, `${name}: ${field.at}`).toContain(field.at);
        // A free-form config may hold endpoints: it must be declared as such.
        if (field.type === 'unknown' && /(^|\.)config$/.test(field.at)) expect(endpoints, `${name}: ${field.at}`).toContain(field.at);
      }
      declared.push(...reach.map((f) => `${name}.${f}`), ...endpoints.map((f) => `${name}.${f}`));
    }
    expect(declared).toEqual(
      expect.arrayContaining(['corpus:embed.baseURL', 'corpus:embed.apiKeyEnv', 'evaluation:start.reader.url', 'evaluation:start.config', 'evaluation:resume.config', 'pipeline:start.config', 'pipeline:validate.config', 'sync:run.postgres', 'sync:configure.postgres']),
    );
  });

  it('refuses every declared field to a network caller, and any endpoint that is not the server\'s, in every operation', () => {
    const registry = () => ({ lab: { baseURL: 'http://127.0.0.1:1/v1', apiKeyEnv: 'LAB_KEY', maxInFlight: 8, requestsPerMinute: null, tokensPerMinute: null, structuredOutput: 'json_schema' as const, timeoutMs: 1000, retries: 0, batch: 'openai' as const } });
    let checked = 0;
    for (const [name, operation] of Object.entries(operations)) {
      for (const field of markedFields(operation.input, 'serverReach')) {
        expect(() => checkReach(name, inputWith(field, 'http://evil.example/'), registry), `${name}.${field}`).toThrow(/would have the server call an address or read an environment variable/);
        checked++;
      }
      for (const field of markedFields(operation.input, 'serverEndpoints')) {
        expect(() => checkReach(name, { [field]: { endpoints: { evil: { baseURL: 'http://evil.example/' } } } }, registry), `${name}.${field}`).toThrow(/not one of this server's \(lab\)/);
        expect(() => checkReach(name, { [field]: { endpoints: { lab: { baseURL: 'http://evil.example/' } } } }, registry), `${name}.${field}`).toThrow(/differs from the server's endpoint "lab"/);
        expect(() => checkReach(name, { [field]: { endpoints: { lab: { apiKeyEnv: 'HOME' } } } }, registry), `${name}.${field}`).toThrow(/differs from the server's endpoint "lab"/);
        expect(checkReach(name, { [field]: { endpoints: { lab: {} } } }, registry)).toEqual({ [field]: { endpoints: { lab: { baseURL: 'http://127.0.0.1:1/v1', apiKeyEnv: 'LAB_KEY' } } } });
        checked++;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(9);
  });
});

describe('the CLI as a client of the map', () => {
  const cases: { args: string[]; name: OperationName; input: unknown }[] = [
    { args: ['search', '--query', 'film', '--k', '0'], name: 'retrieval:search', input: { query: 'film', k: 0 } },
    { args: ['search', '--query', 'film', '--mode', 'fuzzy'], name: 'retrieval:search', input: { query: 'film', mode: 'fuzzy' } },
    { args: ['cues', '--query', 'film', '--variance-threshold', '-1'], name: 'retrieval:cues', input: { query: 'film', varianceThreshold: -1 } },
    { args: ['evidence', '--question', 'Which film?', '--k', '500'], name: 'retrieval:evidence', input: { question: 'Which film?', k: 500 } },
    { args: ['import', MUSIQUE, '--format', 'musique', '--max-record-mb', '0'], name: 'dataset:import', input: { path: MUSIQUE, format: 'musique', maxRecordMb: 0 } },
    { args: ['corpus', 'embed', '--corpus', 'ASQA', '--provider', 'openai'], name: 'corpus:embed', input: { corpus: 'ASQA', provider: 'openai' } },
    { args: ['agreement', '--campaign', 'x'], name: 'agreement:get', input: { campaignId: Number.NaN } },
    { args: ['instance', 'list', '--limit', '9999'], name: 'instance:list', input: { limit: 9999 } },
    { args: ['pipeline', 'run', '--config', 'x.json', '--stages', 'detect,guess'], name: 'pipeline:start', input: { configPath: 'x.json', stages: ['detect', 'guess'], noCache: false } },
    { args: ['round', 'list', '--round', '0'], name: 'round:list', input: { round: 0 } },
    { args: ['label', 'start', '--kind', 'mood', '--config', 'x.json'], name: 'label:start', input: { kind: 'mood', configPath: 'x.json', noCache: false } },
    { args: ['search', '--query', 'film', '--layers', 'faq'], name: 'retrieval:search', input: { query: 'film', layers: ['faq'] } },
    { args: ['ask-first', 'run', '--dataset', 'd', '--config', 'x.json', '--k', '0'], name: 'ask-first:start', input: { dataset: 'd', configPath: 'x.json', k: 0, noCache: false } },
    { args: ['pipeline', 'resume', '3', '--max-usd', '0'], name: 'pipeline:resume', input: { run: 3, maxUsd: 0 } },
  ];

  it('exits 2 with the message the API gives for the same input', async () => {
    const db = tmp.file('cli-parity.db');
    for (const c of cases) {
      const result = awb([...c.args, '--db', db]);
      const api = await dispatch(handlers, c.name, c.input);
      expect(api.ok, c.name).toBe(false);
      if (api.ok) continue;
      expect(result.status, c.args.join(' ')).toBe(2);
      expect(result.stderr.trim(), c.args.join(' ')).toBe(`awb: ${api.error.message}`);
    }
  }, 120_000);

  it('reaches any operation by name with awb call', () => {
    const db = path.join(tmp.dir, 'ops.db');
    const listed = awb(['call', '--list']);
    expect(listed.stdout.trim().split('\n').sort()).toEqual(Object.keys(operations).sort());
    const info = awb(['call', 'base-question:get', JSON.stringify({ id: ids.baseQuestion }), '--db', db]);
    expect(info.status).toBe(0);
    expect(JSON.parse(info.stdout)).toMatchObject({ id: ids.baseQuestion });
    const bad = awb(['call', 'instance:get', '{"id": "one"}', '--db', db]);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/^awb: instance:get: id: Invalid input: expected number, received string/);
    const missing = awb(['call', 'instance:get', '{"id": 99999999}', '--db', db]);
    expect(missing.status).toBe(1);
  });
});
