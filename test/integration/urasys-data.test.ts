import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeItem } from '../../electron/dev/fake-model';
import type { Workbench } from '../../electron/services';
import type { Handlers, LabelReport, LabelView, QaIndexReport, QaIndexView, SearchResult, Stats } from '../../shared/api';
import type { ItemTrace } from '../../shared/pipeline';
import { failWriterCommit, fakeModelWorkbench, api } from '../helpers/construction';
import { ROOT, tempDir } from '../helpers/db';
import type { FakeOpenAI } from '../helpers/fake-openai';

/**
 * URASys's data, offline: the labelling stage (answerability by the detection rule, with its early
 * exit, no label where the models disagree, never over a person's or the dataset's label), labels
 * by hand, and the QA layer beside a corpus, searched with its passages in one hybrid search.
 */

const FIXTURE = `${ROOT}/test/fixtures/squad2_sample.json`;
const tmp = tempDir('awb-urasys-');
let fake: FakeOpenAI;
let workbench: Workbench;
let handlers: Handlers;
let close: () => Promise<void>;
const items: FakeItem[] = [];

beforeAll(async () => {
  ({ fake, workbench, handlers, close } = await fakeModelWorkbench(tmp.file('u.db'), items));
  await api(handlers, workbench).job('dataset:import', { path: FIXTURE, format: 'squad2', dataset: 'squad' });
});

afterAll(async () => {
  await close();
  tmp.cleanup();
});

const config = () => ({
  endpoints: { fake: { baseURL: fake.url, apiKeyEnv: 'AWB_TEST_KEY' } },
  generator: { endpoint: 'fake', model: 'fake-generator' },
  labellers: [1, 2, 3].map((n) => ({ endpoint: 'fake', model: `labeller-${n}` })),
  qaIndex: { perPassage: 2, paraphrases: 2 },
});

describe('the labelling stage', () => {
  it('labels by consensus, stops asking once the outcome is decided, and leaves the dataset\'s labels alone', async () => {
    const { value, job } = api(handlers, workbench);
    // Every SQuAD question came labelled from the file: nothing to do unless asked to relabel, and even then the dataset's labels stay.
    expect((await job('label:start', { kind: 'answerability', datasets: ['squad'], config: config(), relabel: true })).result).toMatchObject({ labelled: 0, noConsensus: 0 });
    await value('answerability:set', { baseQuestionId: 1, label: null });
    await value('answerability:set', { baseQuestionId: 2, label: null });
    items.push({ question: 'Where does the Vltava join the Elbe', answerability: 'ambiguous' });
    items.push({ question: 'How long is the Vltava', answerability: { 'labeller-1': 'answerable', 'labeller-2': 'unanswerable', 'labeller-3': 'answerable' } });
    const report = (await job('label:start', { kind: 'answerability', datasets: ['squad'], config: config() })).result as LabelReport;
    // Question 1: three votes for "ambiguous". Question 2: the second vote already breaks unanimity; the third is not asked.
    expect(report).toMatchObject({ labelled: 1, noConsensus: 1, failed: 0, votesSaved: 1, counts: { ambiguous: 1 } });
    const first = (await value('label:get', { baseQuestionId: 1 })) as LabelView;
    expect(first.answerability).toMatchObject({ label: 'ambiguous', from: 'base-question', provenance: { source: 'llm', detail: 'labelling stage, rule "all"' } });
    const second = (await value('label:get', { baseQuestionId: 2 })) as LabelView;
    expect(second.answerability).toBeNull();
    expect(second.votes.map((v) => [v.model, v.verdict, v.label])).toEqual([
      ['fake/labeller-1', 'voted', 'answerable'],
      ['fake/labeller-2', 'voted', 'unanswerable'],
      ['fake/labeller-3', 'not_needed', null],
    ]);
    const trace = (await value('pipeline:trace', { item: 'bq:2' })) as ItemTrace;
    expect(trace.stages.find((s) => s.stage === 'label_answerability')?.reason).toBe(
      'answerability: no consensus under rule "all" (fake/labeller-1: answerable; fake/labeller-2: unanswerable)',
    );
    const stats = (await value('stats:get', {})) as Stats;
    expect(stats.baseQuestionsByAnswerability).toEqual({ answerable: 2, ambiguous: 1, unanswerable: 3, unlabelled: 1 });
  });

  it('never overwrites a person\'s label', async () => {
    const { value, job } = api(handlers, workbench);
    await value('answerability:set', { baseQuestionId: 2, label: 'answerable', note: 'read the paragraph' });
    const again = (await job('label:start', { kind: 'answerability', datasets: ['squad'], config: config(), relabel: true })).result as LabelReport;
    expect(again.labelled + again.noConsensus).toBe(1);
    expect(((await value('label:get', { baseQuestionId: 2 })) as LabelView).answerability).toMatchObject({ label: 'answerable', provenance: { source: 'human', detail: 'read the paragraph' } });
  });

  it('fails the job, saying why, when an answers commit fails, and keeps every answer it paid for', async () => {
    const { value, job } = api(handlers, workbench);
    await value('answerability:set', { baseQuestionId: 3, label: null });
    items.push({ question: 'Where does the Vltava join the Danube', answerability: 'unanswerable' });
    const sent = fake.requests.length;
    const failing = failWriterCommit(workbench, 1);
    let message = '';
    try {
      await job('label:start', { kind: 'answerability', datasets: ['squad'], config: config(), noCache: true });
    } catch (error) {
      message = (error as Error).message;
    } finally {
      failing.restore();
    }
    // The job fails (the CLI exits non-zero) with the run row's reason, not only the row.
    expect(message).toMatch(/the job ended failed: Run \d+ failed: The grouped writes were lost \(database or disk is full\); 1 of 1 answers written again/);
    const runId = Number(/Run (\d+) failed/.exec(message)![1]);
    const run = workbench.db.prepare('SELECT status, summary FROM runs WHERE id = ?').get(runId) as { status: string; summary: string };
    expect(run.status).toBe('failed');
    expect(message).toContain((JSON.parse(run.summary) as { error: string }).error);
    // Every answer the endpoint gave is in the call log, the rolled-back one written again, and the label was stored.
    const asked = fake.requests.slice(sent).filter((r) => r.path.endsWith('/chat/completions'));
    expect(asked).toHaveLength(3);
    const kept = workbench.db.prepare("SELECT COUNT(*) AS n FROM llm_calls WHERE run_id = ? AND status = 'ok'").get(runId) as { n: number };
    expect(kept.n).toBe(3);
    expect(((await value('label:get', { baseQuestionId: 3 })) as LabelView).answerability).toMatchObject({ label: 'unanswerable' });
  });
});

describe('the QA layer', () => {
  it('writes grounded question-answer pairs with rephrasings beside the corpus, and searches them with its passages', async () => {
    const { value, job } = api(handlers, workbench);
    await job('corpus:embed', { corpus: 'squad', provider: 'offline', dimensions: 256 });
    const report = (await job('qa-index:build', { corpus: 'squad', config: config() })).result as QaIndexReport;
    expect(report).toMatchObject({ layer: 'squad · QA', passages: 3, failed: 0 });
    expect(report.pairs).toBeGreaterThanOrEqual(4);
    expect(report.paraphrases).toBe(report.pairs * 2);
    expect(report.grounded).toBe(report.pairs);
    expect(report.embedded).toBe(report.pairs + report.paraphrases);
    const view = (await value('qa-index:get', { corpus: 'squad' })) as QaIndexView;
    expect(view).toMatchObject({ sources: 3, pairs: report.pairs, paraphrases: report.paraphrases, grounded: report.pairs, promptVersions: ['qa_create@v1', 'qa_expand@v1'] });
    // Building again takes up only what is missing: nothing.
    expect((await job('qa-index:build', { corpus: 'squad', config: config() })).result).toMatchObject({ passages: 0, pairs: 0 });

    const query = { query: 'Before Melnik, what does the Vltava join?', corpus: 'squad', mode: 'hybrid' as const, k: 5 };
    const plain = (await value('retrieval:search', query)) as SearchResult;
    expect(plain.hits.every((h) => h.layer === undefined && h.passage.corpus === 'squad')).toBe(true);
    const both = (await value('retrieval:search', { ...query, layers: ['passages', 'qa'] })) as SearchResult;
    const qa = both.hits.filter((h) => h.layer === 'qa');
    expect(qa.length).toBeGreaterThan(0);
    expect(qa[0]!.qa).toMatchObject({ answer: 'Melnik', grounded: true, source: { title: 'Vltava' }, provenance: { source: 'llm', promptVersion: expect.stringMatching(/^qa_(create|expand)@v1$/) } });
    expect(qa[0]!.qa!.canonicalQuestion).toMatch(/joins the Elbe at what\?$/);
    // One intent fills one slot: never two rows of the same canonical pair.
    const canon = qa.map((h) => h.qa!.canonicalQuestion);
    expect(new Set(canon).size).toBe(canon.length);
    // Searching all corpora means the passages: the QA rows stay out.
    const all = (await value('retrieval:search', { ...query, corpus: undefined })) as SearchResult;
    expect(all.hits.every((h) => h.passage.corpus === 'squad')).toBe(true);
    const refused = await api(handlers, workbench).value('retrieval:search', { ...query, corpus: undefined, layers: ['qa'] }).catch((e: Error) => e.message);
    expect(refused).toMatch(/Searching the QA layer needs a corpus/);
  });
});
