import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { FakeItem } from '../../electron/dev/fake-model';
import type { Workbench } from '../../electron/services';
import type { AskFirstItemView, AskFirstRun, DatasetSummary, Handlers } from '../../shared/api';
import { answerMatches } from '../../shared/eval/methods/ask-first';
import { failWriterCommit, failWriterStatement, fakeModelWorkbench, api } from '../helpers/construction';
import { ROOT, tempDir } from '../helpers/db';
import { heldReplies, type FakeOpenAI } from '../helpers/fake-openai';

/**
 * The ask-before-answer setting (URASys Table 2) over the hand-made SQuAD 2.0 fixture, with the
 * fake model scripted per question: each item is scored by its gold label, and the table per
 * label is checked against counts worked out by hand from the script below.
 */

const FIXTURE = `${ROOT}/test/fixtures/squad2_sample.json`;
const tmp = tempDir('awb-ask-first-');
let fake: FakeOpenAI;
let workbench: Workbench;
let handlers: Handlers;
let close: () => Promise<void>;

// Gold labels come from the file (is_impossible), except "begun", labelled ambiguous by hand below.
const items: FakeItem[] = [
  { question: 'Where does the Vltava join the Elbe?', askFirst: { action: 'answer', answer: 'at Melnik' } }, // answerable, right
  { question: 'How long is the Vltava?', askFirst: { action: 'answer', answer: 'twelve metres' } }, // answerable, wrong answer
  { question: 'Where does the Vltava join the Danube?', askFirst: { action: 'no_answer' } }, // unanswerable, right
  { question: 'When was the Charles Bridge begun?', askFirst: { action: 'clarify' } }, // ambiguous (by hand), asked: right
  { question: 'Who finished the Charles Bridge?', askFirst: { action: 'answer', answer: 'Peter Parler' } }, // unanswerable, answered: wrong
  { question: 'How long is the bore of the bassoon?', askFirst: { action: 'answer', answer: '2.5 metres' } }, // answerable, right
  { question: 'How many bassoons did a romantic orchestra have?', askFirst: { action: 'no_answer' } }, // unanswerable, right
];

beforeAll(async () => {
  ({ fake, workbench, handlers, close } = await fakeModelWorkbench(tmp.file('a.db'), items));
  await api(handlers, workbench).job('dataset:import', { path: FIXTURE, format: 'squad2', dataset: 'squad' });
});

afterAll(async () => {
  await close();
  tmp.cleanup();
});

const config = () => ({ endpoints: { fake: { baseURL: fake.url, apiKeyEnv: 'AWB_TEST_KEY' } }, generator: { endpoint: 'fake', model: 'fake-generator' } });

describe('ask-first', () => {
  it('matches answers by SQuAD token F1 of at least 0.5 or by containing the gold answer', () => {
    expect(answerMatches('at Melnik', ['Melnik'])).toBe(true);
    // about/kilometres shared: F1 = 2/3.
    expect(answerMatches('about 300 kilometres', ['about 430 kilometres'])).toBe(true);
    expect(answerMatches('twelve metres', ['about 430 kilometres'])).toBe(false);
    expect(answerMatches('', ['Melnik'])).toBe(false);
  });

  it('scores each item by its gold label and reports accuracy per label as URASys Table 2 does', async () => {
    const { value, job } = api(handlers, workbench);
    await value('answerability:set', { baseQuestionId: 4, label: 'ambiguous' });
    const run = (await job('ask-first:start', { dataset: 'squad', config: config() })).result as AskFirstRun;
    expect(run).toMatchObject({ status: 'done', total: 7, done: 7, failed: 0 });
    expect(run.table.byLabel).toEqual({
      answerable: { n: 3, correct: 2, accuracy: 2 / 3 },
      unanswerable: { n: 3, correct: 2, accuracy: 2 / 3 },
      ambiguous: { n: 1, correct: 1, accuracy: 1 },
    });
    expect(run.table.overall).toEqual({ n: 7, correct: 5, accuracy: 5 / 7 });
    // No clarification turn is stored for the ambiguous question: the strict score cannot be told.
    expect(run.table.ambiguousStrict).toEqual({ n: 0, correct: 0, accuracy: null });
    expect(run.table.confusion).toEqual({
      answerable: { answer: 3, clarify: 0, no_answer: 0 },
      unanswerable: { answer: 1, clarify: 0, no_answer: 2 },
      ambiguous: { answer: 0, clarify: 1, no_answer: 0 },
    });
    const detail = (await value('ask-first:get', { id: run.id })) as AskFirstRun & { items: AskFirstItemView[] };
    const finished = detail.items.find((i) => i.question === 'Who finished the Charles Bridge?')!;
    expect(finished).toMatchObject({ label: 'unanswerable', action: 'answer', answer: 'Peter Parler', correct: false });
    expect(detail.items.find((i) => i.question.includes('begun'))).toMatchObject({ label: 'ambiguous', action: 'clarify', clarifyingQuestion: expect.stringMatching(/\?$/), correct: true });
    expect(((await value('ask-first:list', {})) as AskFirstRun[]).map((r) => r.id)).toContain(run.id);
  });

  it('fails the job, saying why, when an answers commit fails, and keeps every answer it paid for', async () => {
    const { value, job } = api(handlers, workbench);
    const sent = fake.requests.length;
    const failing = failWriterCommit(workbench, 1);
    try {
      await expect(job('ask-first:start', { dataset: 'squad', config: config(), noCache: true })).rejects.toThrow(
        /the job ended failed: Ask-first run \d+ failed: The grouped writes were lost \(database or disk is full\); \d+ of \d+ answers written again$/,
      );
    } finally {
      failing.restore();
    }
    const run = ((await value('ask-first:list', {})) as AskFirstRun[]).reduce((a, b) => (b.id > a.id ? b : a));
    // The item rows written in the lost group are gone with it (how many depends on timing); the answers were written again.
    expect(run).toMatchObject({ status: 'failed', total: 7 });
    expect(run.notes.at(-1)).toMatch(/^The grouped writes were lost/);
    const asked = fake.requests.slice(sent).filter((r) => r.path.endsWith('/chat/completions'));
    const kept = workbench.db.prepare("SELECT COUNT(*) AS n FROM llm_calls WHERE run_id = ? AND status = 'ok'").get(run.id) as { n: number };
    expect(asked.length).toBeGreaterThanOrEqual(7);
    expect(kept.n).toBe(asked.length);
  });

  it('stops starting items once one fails to be stored, lets those in flight finish, and loses no paid answer', async () => {
    const { value, job } = api(handlers, workbench);
    const sent = fake.requests.length;
    const restore = failWriterStatement(workbench, /^UPDATE ask_first_items SET status = 'done'/, 1, 'disk I/O error');
    try {
      await expect(job('ask-first:start', { dataset: 'squad', config: { ...config(), concurrency: 2 }, noCache: true })).rejects.toThrow(/the job ended failed: disk I\/O error$/);
    } finally {
      restore();
    }
    const run = ((await value('ask-first:list', {})) as AskFirstRun[]).reduce((a, b) => (b.id > a.id ? b : a));
    expect(run).toMatchObject({ status: 'failed', done: 1 });
    expect(run.notes).toContain('disk I/O error');
    // Two at a time: the first two items were asked; the one that failed to be stored stopped the rest, and the other one finished and was stored.
    const detail = (await value('ask-first:get', { id: run.id })) as AskFirstRun & { items: AskFirstItemView[] };
    const stored = detail.items.map((i) => i.action !== null);
    expect(stored.slice(0, 2).filter(Boolean)).toHaveLength(1);
    expect(stored.slice(2).some(Boolean)).toBe(false);
    const asked = fake.requests.slice(sent).filter((r) => r.path.endsWith('/chat/completions'));
    expect(asked).toHaveLength(2);
    // Both answers paid for are in the call log, the one that arrived after the failure too.
    const kept = workbench.db.prepare("SELECT COUNT(*) AS n FROM llm_calls WHERE run_id = ? AND status = 'ok'").get(run.id) as { n: number };
    expect(kept.n).toBe(2);
  });

  it('holds an import asked for during a run until the run ends, so that no answer waits on its lock', async () => {
    // An import writes in one transaction across its awaits: begun beside the run, it would make
    // each answer the run records wait in SQLite's busy handler, stalling the thread, then fail.
    const { value } = api(handlers, workbench);
    const answer = fake.chat;
    const held = heldReplies();
    fake.chat = async (body, index) => held.hold(await answer(body, index));
    try {
      const run = (await value('ask-first:start', { dataset: 'squad', config: { ...config(), concurrency: 1 }, noCache: true })) as { jobId: string };
      await vi.waitFor(() => expect(held.count).toBe(1));
      const imported = (await value('dataset:import', { path: FIXTURE, format: 'squad2', dataset: 'squad-later' })) as { jobId: string };
      await vi.waitFor(() => expect(workbench.jobs.get(imported.jobId).detail).toMatch(/^Waiting for "Ask first · squad" to finish: this job writes everything in one transaction/));
      expect(workbench.jobs.get(imported.jobId).state).toBe('running');
      fake.chat = answer;
      held.releaseAll();
      // The run went on to the end, then the import ran; neither failed.
      const [ran, done] = [await workbench.jobs.wait(run.jobId), await workbench.jobs.wait(imported.jobId)];
      expect(ran).toMatchObject({ state: 'done', error: null });
      expect(done).toMatchObject({ state: 'done', error: null, detail: null });
      expect(((await value('dataset:list', {})) as DatasetSummary[]).map((d) => d.name)).toContain('squad-later');
      const last = ((await value('ask-first:list', {})) as AskFirstRun[]).reduce((a, b) => (b.id > a.id ? b : a));
      expect(last).toMatchObject({ status: 'done', done: 7 });
    } finally {
      fake.chat = answer;
      held.releaseAll();
    }
  });

  it('refuses a dataset with no labelled question, and writes no run', async () => {
    const { value, job } = api(handlers, workbench);
    for (let id = 1; id <= 7; id++) await value('answerability:set', { baseQuestionId: id, label: null });
    const before = ((await value('ask-first:list', {})) as AskFirstRun[]).length;
    await expect(job('ask-first:start', { dataset: 'squad', config: config() })).rejects.toThrow(/no base question with an answerability label/);
    expect((await value('ask-first:list', {})) as AskFirstRun[]).toHaveLength(before);
  });
});
