import fs from 'node:fs';
import { expect } from 'vitest';
import { fakeModel } from '../../electron/dev/fake-model';
import type { ConstructionOperation, Input, Job, OperationName, Result } from '../../shared/api';
import type { FakeOpenAI } from './fake-openai';

/**
 * Cases for issue 25's operations, for test/integration/operations.test.ts (which calls every
 * operation through dispatch once): spread `...constructionOperationCases(...)` into its CASES.
 * They draft, label and index a little of the MuSiQue sample with the product's fake model
 * (test/integration/construction-*.test.ts check them in depth).
 */

type Call = <K extends OperationName>(name: K, input: Input<K>) => Promise<Result<unknown>>;

export function constructionOperationCases(
  call: Call,
  wait: (jobId: string) => Promise<Job>,
  fake: () => FakeOpenAI,
  instance: () => number,
  file: (name: string) => string,
): Record<ConstructionOperation | 'ask-first:start' | 'ask-first:get' | 'ask-first:list', () => Promise<unknown>> {
  const ok = async <K extends OperationName>(name: K, input: Input<K>) => {
    const result = await call(name, input);
    if (!result.ok) throw new Error(`${name}: ${result.error.message}`);
    return result.value;
  };
  /** Runs a job with the product's fake model answering, and gives its result. */
  const job = async <K extends OperationName>(name: K, input: Input<K>) => {
    const chat = fake().chat;
    const model = fakeModel({});
    fake().chat = (body) => {
      const reply = model(body);
      return { ...(reply.status ? { status: reply.status } : {}), content: reply.content, promptTokens: reply.promptTokens, completionTokens: reply.completionTokens };
    };
    try {
      const done = await wait(((await ok(name, input)) as { jobId: string }).jobId);
      expect(done.error).toBeNull();
      return done.result;
    } finally {
      fake().chat = chat;
    }
  };
  const config = () => ({ endpoints: { fake: { baseURL: fake().url, structuredOutput: 'json_schema' } }, generator: { endpoint: 'fake', model: 'fake-generator' } });
  const started = async () => {
    const rounds = (await ok('round:list', { dataset: 'MuSiQue' })) as unknown[];
    if (rounds.length === 0) await job('round:start', { dataset: 'MuSiQue', config: config(), limit: 2 });
  };
  /** An ask-first run over a few MuSiQue questions, one of them labelled first (the sample's may all be unlabelled). */
  const askFirst = async () => {
    const { baseQuestionId } = (await ok('label:get', { instanceId: instance() })) as { baseQuestionId: number };
    await ok('answerability:set', { baseQuestionId, label: 'answerable' });
    return (await job('ask-first:start', { dataset: 'MuSiQue', config: config(), limit: 3 })) as { id: number };
  };
  return {
    'round:start': async () => expect(await job('round:start', { dataset: 'MuSiQue', config: config(), limit: 2 })).toMatchObject({ drafted: 2, failed: 0 }),
    'round:review': async () => {
      await started();
      expect(await ok('round:review', { dataset: 'MuSiQue', annotators: ['ann'] })).toMatchObject({ protocol: { key: 'condambigqa-review' } });
    },
    // Nobody has reviewed yet: the items wait in review, nothing is re-drafted.
    'round:next': async () => expect(await job('round:next', { dataset: 'MuSiQue', config: config() })).toMatchObject({ drafted: 0, accepted: 0 }),
    'round:list': async () => {
      await started();
      expect(await ok('round:list', { dataset: 'MuSiQue', round: 1 })).toHaveLength(2);
    },
    'round:funnel': async () => {
      await started();
      expect(await ok('round:funnel', { dataset: 'MuSiQue' })).toMatchObject({ items: 2 });
    },
    'label:start': async () => expect(await job('label:start', { kind: 'answerability', datasets: ['MuSiQue'], config: config(), limit: 2 })).toMatchObject({ labelled: 2 }),
    'label:get': async () => expect(await ok('label:get', { instanceId: instance() })).toMatchObject({ instanceId: instance() }),
    'answerability:set': async () => expect(await ok('answerability:set', { instanceId: instance(), label: 'ambiguous' })).toMatchObject({ answerability: { label: 'ambiguous', from: 'instance' } }),
    'domain:set': async () => expect(await ok('domain:set', { instanceId: instance(), domain: 'history' })).toMatchObject({ domain: { domain: 'history', label: 'History' } }),
    'domain:list': async () => expect(await ok('domain:list', {})).toHaveLength(15),
    'clarification:set': async () =>
      expect(await ok('clarification:set', { instanceId: instance(), turns: [{ systemQuestion: 'Which one do you mean?', userReply: 'The first.', clarifiedQuestion: 'Which is the first one?', interpretation: 0 }] })).toMatchObject({
        clarificationTurns: [{ interpretation: 0 }],
      }),
    'qa-index:build': async () => {
      const corpusFile = file('qa-source.jsonl');
      fs.writeFileSync(corpusFile, `${JSON.stringify({ id: 'q1', title: 'Ford Mustang', text: 'The Ford Mustang was first built in Dearborn in 1964.' })}\n`);
      await wait(((await ok('corpus:import', { path: corpusFile, format: 'jsonl', corpus: 'qa-source' })) as { jobId: string }).jobId);
      expect(await job('qa-index:build', { corpus: 'qa-source', config: config() })).toMatchObject({ passages: 1, failed: 0 });
    },
    'ask-first:start': async () => expect(await askFirst()).toMatchObject({ status: 'done', failed: 0 }),
    'ask-first:get': async () => {
      const runs = (await ok('ask-first:list', {})) as { id: number }[];
      const id = runs[0]?.id ?? (await askFirst()).id;
      expect(await ok('ask-first:get', { id })).toMatchObject({ id, dataset: 'MuSiQue' });
    },
    'ask-first:list': async () => expect(Array.isArray(await ok('ask-first:list', {}))).toBe(true),
    'qa-index:get': async () => expect(await ok('qa-index:get', { corpus: 'qa-source' })).toMatchObject({ layer: 'qa-source · QA' }),
  };
}
