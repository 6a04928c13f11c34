import { dispatch, type Handlers, type Input, type InstanceDetail, type Job, type OperationName } from '../../shared/api';
import { fakeModel, type FakeItem } from '../../electron/dev/fake-model';
import { startFakeOpenAI, type FakeOpenAI } from './fake-openai';
import { createHandlers, Workbench } from '../../electron/services';
import type { WritableDB } from '../../db/sql';
import { failCommits } from './db';

/**
 * Helpers for the construction tests: datasets of questions with frozen fragments (as
 * awb-instance/1 records), the scripted answers the fake model gives for them, and a scripted
 * reviewer that judges a CondAmbigQA draft the way the protocol asks, from what it can see.
 */

/**
 * A workbench on a fresh database file (`file`) with a fake OpenAI server answering as the fake
 * model scripted with `items`; `close` ends both.
 */
export async function fakeModelWorkbench(file: string, items: FakeItem[]): Promise<{ fake: FakeOpenAI; workbench: Workbench; handlers: Handlers; close: () => Promise<void> }> {
  const fake = await startFakeOpenAI();
  answerAsFakeModel(fake, items);
  const workbench = new Workbench({ databasePath: file, mode: 'browser', version: 'test' });
  const handlers = createHandlers(workbench);
  return {
    fake,
    workbench,
    handlers,
    close: async () => {
      workbench.close();
      await fake.close();
    },
  };
}

/** The fake OpenAI server answers as the product's fake model, scripted with these items (which a test may extend later). */
export function answerAsFakeModel(fake: FakeOpenAI, items: FakeItem[]): void {
  const model = fakeModel({ items });
  fake.chat = (body) => {
    const reply = model(body);
    return { content: reply.content, promptTokens: reply.promptTokens, completionTokens: reply.completionTokens, ...(reply.status ? { status: reply.status } : {}) };
  };
}

export function api(handlers: Handlers, workbench: Workbench) {
  const value = async <K extends OperationName>(name: K, input: Input<K>): Promise<unknown> => {
    const result = await dispatch(handlers, name, input);
    if (!result.ok) throw new Error(`${name}: ${result.error.code}: ${result.error.message}`);
    return result.value;
  };
  const job = async <K extends OperationName>(name: K, input: Input<K>): Promise<Job> => {
    const started = (await value(name, input)) as { jobId: string };
    const done = await workbench.jobs.wait(started.jobId);
    if (done.state !== 'done') throw new Error(`${name}: the job ended ${done.state}: ${done.error?.message}`);
    return done;
  };
  return { value, job };
}

/** A question about a prize given twice (two readings), with ten fragments: the first two hold the answers. */
export function prizeRecord(dataset: string, i: number): { record: unknown; item: FakeItem } {
  const first = `Ada Ward${i}`;
  const second = `Bram Holt${i}`;
  const texts = [
    `The first Palomar ${i} prize was given to ${first} in 1961.`,
    `A second award, also called the Palomar ${i} prize, went to ${second} in 1984.`,
    ...Array.from({ length: 8 }, (_, k) => `Palomar ${i} is a small town; its observatory opened its dome number ${k + 3} to visitors.`),
  ];
  const record = {
    format: 'awb-instance/1',
    dataset: { name: dataset, source_format: 'awb' },
    base_question: {
      source_id: `palomar-${i}`,
      question: `Who received the Palomar ${i} prize?`,
      paragraphs: texts.map((_, k) => ({ passage: `p${k + 1}`, is_supporting: k < 2 })),
    },
    instance: null,
    passages: texts.map((text, k) => ({ id: `p${k + 1}`, corpus: dataset, title: `Palomar ${i} (${k + 1})`, text })),
  };
  const item: FakeItem = {
    question: `Palomar ${i} prize`,
    tuples: [
      { condition: 'If the first prize, of 1961, is meant', answer: first, fragment: 1 },
      { condition: 'If the second award, of 1984, is meant', answer: second, fragment: 2 },
    ],
  };
  return { record, item };
}

/** The protocol's checks, as a careful reviewer makes them from the instance view: what is wrong, or nothing. */
export function reviewProblems(detail: InstanceDetail): string[] {
  const problems: string[] = [];
  const active = detail.interpretations.filter((i) => i.status === 'active');
  if (active.length < 2) problems.push(`only ${active.length} interpretation: the question has more readings`);
  const conditions = active.map((i) => (i.condition ?? '').toLowerCase());
  if (new Set(conditions).size !== conditions.length) problems.push('two conditions say the same');
  active.forEach((i, k) => {
    const answer = i.shortAnswer?.text ?? '';
    const cited = i.citations.map((rank) => detail.evidence.find((e) => e.rank === rank)?.passage.text ?? '');
    if (!cited.some((text) => text.includes(answer))) {
      problems.push(`interpretation ${k + 1}: the cited fragment${i.citations.length === 1 ? '' : 's'} ${i.citations.join(', ')} do not say "${answer}"`);
    }
  });
  return problems;
}

/** Judges every item of a reviewer's queue in a campaign: accept, or reject with the problems as feedback. */
export async function reviewCampaign(handlers: Handlers, workbench: Workbench, campaignId: number, annotator: string, itemMs = 60_000): Promise<{ accepted: number; rejected: number }> {
  const { value } = api(handlers, workbench);
  const session = { campaignId, annotator };
  const queue = (await value('judging:queue', { session })) as { items: { instanceId: number }[] };
  let accepted = 0;
  let rejected = 0;
  for (const { instanceId } of queue.items) {
    const detail = (await value('instance:get', { id: instanceId })) as InstanceDetail;
    const problems = reviewProblems(detail);
    const yes = problems.length === 0 ? 'yes' : 'no';
    for (const criterion of ['coherence', 'soundness', 'citations']) await value('judging:decide', { session, instanceId, criterion, value: yes });
    if (problems.length) await value('judging:decide', { session, instanceId, criterion: 'feedback', value: problems.join('; ') });
    await value('judging:decide', { session, instanceId, criterion: 'decision', value: problems.length ? 'reject' : 'accept', itemMs });
    if (problems.length) rejected++;
    else accepted++;
  }
  return { accepted, rejected };
}

/** Every writer connection the workbench's jobs open from now on goes through `patch`; returns the undo. */
export function patchWriters(workbench: Workbench, patch: (db: WritableDB) => void): () => void {
  const writer = workbench.writer.bind(workbench);
  (workbench as { writer: Workbench['writer'] }).writer = () => {
    const opened = writer();
    patch(opened.db);
    return opened;
  };
  return () => delete (workbench as { writer?: unknown }).writer;
}

/**
 * The jobs' writer connections fail their `nth` COMMIT (counted across writers), as on a full
 * disk: SQLite rolls that group back. `restore` puts the workbench's own writers back.
 */
export function failWriterCommit(workbench: Workbench, nth: number): { commits: () => number; restore: () => void } {
  let commits = 0;
  const restore = patchWriters(workbench, (db) => failCommits(db, () => ++commits === nth));
  return { commits: () => commits, restore };
}

/** The jobs' writer connections fail the `nth` run of a statement whose text matches `pattern`. */
export function failWriterStatement(workbench: Workbench, pattern: RegExp, nth: number, message: string): () => void {
  let runs = 0;
  return patchWriters(workbench, (db) => {
    const prepare = db.prepare.bind(db);
    (db as { prepare: (source: string) => unknown }).prepare = (source: string) => {
      const statement = prepare(source);
      if (!pattern.test(source)) return statement;
      const run = statement.run.bind(statement);
      (statement as { run: (...params: unknown[]) => unknown }).run = (...params: unknown[]) => {
        if (++runs === nth) throw new Error(message);
        return run(...params);
      };
      return statement;
    };
  });
}
