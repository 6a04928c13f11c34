import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { insertRun } from '../../db/queries/runs';
import { get, groupTransaction, run, sql, type WritableDB } from '../../db/sql';
import { eachItem, promptRun, type PromptContext } from '../../electron/services/pipeline/prompt-call';
import { AppError } from '../../shared/api';
import { failCommits, memoryDb } from '../helpers/db';

/**
 * How a prompt job (labelling, rounds, QA layer) ends its run and the job: done, stopped (the
 * user's cancel or a cost ceiling: cancelled, with its reason), failed (the error), and a failed
 * last group commit, which fails both the run and the job even after a stop.
 */

let db: WritableDB;
let commitFails = false;
beforeEach(() => {
  db = memoryDb();
  failCommits(db, () => commitFails);
});
afterEach(() => {
  commitFails = false;
  db.close();
});

const STOP = 'The cost ceiling of $1 was reached';
const stats = { calls: 0, cachedCalls: 0, promptTokens: 0, completionTokens: 0, costUsd: 0 };

async function job(work: () => Promise<void>, signal = new AbortController().signal) {
  const runId = insertRun(db, 'pipeline', { kind: 'test' });
  const ctx = { db, runId, llm: { stats }, prompts: new Map() } as unknown as PromptContext;
  let thrown: unknown = null;
  await promptRun(ctx, signal, work, () => 'line').catch((error: unknown) => {
    thrown = error;
  });
  const row = get<{ status: string; summary: string }>(db, sql`SELECT status, summary FROM runs WHERE id = ${runId}`)!;
  return { status: row.status, error: (JSON.parse(row.summary) as { error: string | null }).error, thrown: thrown as AppError | Error | null };
}

/** An answer recorded in the open group, as a model call's is. */
const answer = (): void => {
  groupTransaction(db, () => run(db, sql`INSERT INTO settings (key, value) VALUES (${`k${Math.random()}`}, '1')`));
};

describe('promptRun', () => {
  it('ends done, or cancelled when its signal was aborted', async () => {
    expect(await job(async () => answer())).toEqual({ status: 'done', error: null, thrown: null });
    const controller = new AbortController();
    controller.abort();
    expect(await job(async () => undefined, controller.signal)).toMatchObject({ status: 'cancelled', thrown: null });
  });

  it('ends cancelled with the reason of a stop, and throws the stop again', async () => {
    const stopped = await job(() => eachItem([1, 2, 3], 1, undefined, async () => Promise.reject(new AppError('cancelled', STOP))));
    expect(stopped).toMatchObject({ status: 'cancelled', error: STOP, thrown: { code: 'cancelled', message: STOP } });
  });

  it('ends failed with the error of a failure, and throws it again', async () => {
    const failed = await job(() => Promise.reject(new Error('disk I/O error')));
    expect(failed).toMatchObject({ status: 'failed', error: 'disk I/O error', thrown: { message: 'disk I/O error' } });
  });

  it('fails the run and the job when the last commit fails, even after a stop, keeping both reasons', async () => {
    commitFails = true;
    const lost = await job(async () => answer());
    expect(lost.status).toBe('failed');
    expect(lost.error).toMatch(/^The grouped writes were lost \(database or disk is full\)/);
    expect(lost.thrown).toMatchObject({ code: 'internal', message: expect.stringMatching(/^Run \d+ failed: The grouped writes were lost/) });
    const both = await job(async () => {
      answer();
      throw new AppError('cancelled', STOP);
    });
    expect(both.status).toBe('failed');
    expect(both.error).toMatch(new RegExp(`^${STOP.replace(/\$/g, '\\$')}; The grouped writes were lost`));
    expect(both.thrown).toMatchObject({ code: 'internal', message: expect.stringMatching(/^Run \d+ failed: The cost ceiling of \$1 was reached; The grouped writes were lost/) });
  });
});

describe('eachItem', () => {
  it('starts no item after one throws, lets those started finish, then throws the first error', async () => {
    const started: number[] = [];
    const finished: number[] = [];
    const error = await eachItem([1, 2, 3, 4, 5], 2, undefined, async (i) => {
      started.push(i);
      await new Promise((resolve) => setTimeout(resolve, i === 1 ? 1 : 20));
      if (i === 1) throw new Error('first');
      finished.push(i);
    }).catch((e: unknown) => e as Error);
    expect(error).toMatchObject({ message: 'first' });
    expect(started).toEqual([1, 2]);
    expect(finished).toEqual([2]);
  });
});
