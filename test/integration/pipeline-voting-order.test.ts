import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WritableDB } from '../../db/sql';
import { runPipeline } from '../../electron/services/pipeline/run';
import { MARCH_PROFILE } from '../../electron/dev/fake-profile';
import type { RunSummary } from '../../shared/pipeline';
import { awb, awbJson } from '../helpers/cli';
import { tempDir } from '../helpers/db';
import { startFakeOpenAI, type FakeOpenAI } from '../helpers/fake-openai';
import { pipelineBrain } from '../helpers/fake-pipeline';
import { marchConfig, marchDb, outcomes } from '../helpers/march-run';

/**
 * The order voters are asked in under early exit depends on nothing but the questions, the config
 * and the cache (issue 26): not on how many items run at once, nor on which answer came back first.
 * So a second run over the same questions asks the same voters and sends nothing, and a run in
 * another order still sends nothing, because answers already in the cache are asked first.
 *
 * The fake answers after a delay drawn from a hash of each request (0 to 12 ms), so answers come
 * back in another order than they were asked in, and differently at each concurrency.
 */

const tmp = tempDir('awb-voting-order-');
let fake: FakeOpenAI;
const QUESTIONS = 80;

beforeAll(async () => {
  fake = await startFakeOpenAI();
  const brain = pipelineBrain({ script: { profile: MARCH_PROFILE } });
  fake.chat = async (body, index) => {
    const reply = await brain(body, index);
    const jitter = createHash('sha256').update(JSON.stringify(body)).digest().readUInt8(0) % 13;
    return { ...reply, delayMs: jitter };
  };
});
afterAll(async () => {
  await fake.close();
  tmp.cleanup();
});

/** Every vote a run stored (asked or not needed), by question, type and voter, with its verdict and the position it was asked in. */
function votes(db: WritableDB): string[] {
  const detection = db
    .prepare(`SELECT b.source_id || '/' || v.ambiguity_type || ' ' || v.model || ' ' || v.verdict || ' @' || coalesce(v.asked_position, '-') AS v FROM detection_votes v JOIN base_questions b ON b.id = v.base_question_id`)
    .all() as { v: string }[];
  const filter = db
    .prepare(
      `SELECT b.source_id || '/' || i.ambiguity_type || ' ' || v.model || ' ' || v.verdict || ' @' || coalesce(v.asked_position, '-') AS v
       FROM filter_votes v JOIN instances i ON i.id = v.instance_id JOIN base_questions b ON b.id = i.base_question_id`,
    )
    .all() as { v: string }[];
  return [...detection, ...filter].map((r) => r.v).sort();
}

/** What the stages wrote, cleared (the calls stay in the cache), as a re-run over the same questions starts. */
function clearOutputs(db: WritableDB): void {
  db.exec(`DELETE FROM pipeline_items; DELETE FROM detection_votes; DELETE FROM filter_votes; DELETE FROM instances WHERE ambiguity_type <> 'unspecified';`);
}

describe('the voting order under early exit', () => {
  const early = { earlyExit: { warmup: 4 } };
  let db: WritableDB;
  let other: WritableDB;
  let first: RunSummary;
  let firstVotes: string[];
  let firstOutcomes: ReturnType<typeof outcomes>;
  beforeAll(async () => {
    db = await marchDb(tmp.file('a.db'), QUESTIONS);
    other = await marchDb(tmp.file('b.db'), QUESTIONS);
    first = await runPipeline(db, { config: marchConfig(fake.url, { ...early, concurrency: 64 }) });
    firstVotes = votes(db);
    firstOutcomes = outcomes(db);
  }, 600_000);
  afterAll(() => {
    db.close();
    other.close();
  });

  it('asks the same voters of every item at another concurrency, and freezes the same orders', async () => {
    const slow = await runPipeline(other, { config: marchConfig(fake.url, { ...early, concurrency: 3 }) });
    expect(slow.status).toBe('done');
    expect(votes(other)).toEqual(firstVotes);
    expect(slow.voting).toEqual(first.voting);
    // The runs did stop early, and the orders changed along the way (else this would prove little).
    expect(firstVotes.filter((v) => v.includes(' not_needed ')).length).toBeGreaterThan(50);
    const semantic = first.voting!.find((v) => v.stage === 'detect' && v.key === 'semantic')!;
    expect(semantic.epochs!.map((e) => e.from)).toEqual([4, 8, 16, 32, 64]);
    // The order is the statistics' (not the configured one), and moves as they come in.
    expect(semantic.order[0]).toBe('fake/qwen/qwen3-235b-a22b-3');
    expect(first.voting!.some((v) => new Set(v.epochs!.map((e) => e.order.join())).size > 1)).toBe(true);
  }, 600_000);

  it('sends no call when the same questions run again, and stores the same votes', async () => {
    clearOutputs(db);
    const again = await runPipeline(db, { config: marchConfig(fake.url, { ...early, concurrency: 64 }) });
    expect(again.status).toBe('done');
    expect(again.calls).toBe(0);
    expect(again.cachedCalls).toBeGreaterThan(first.calls / 2);
    expect(votes(db)).toEqual(firstVotes);
    expect(outcomes(db)).toEqual(firstOutcomes);
  }, 600_000);

  it('sends no call either when another order runs over the same questions: answers in the cache are asked first', async () => {
    clearOutputs(db);
    const configOrder = await runPipeline(db, { config: marchConfig(fake.url, { earlyExit: { order: 'config' } }) });
    expect(configOrder.calls).toBe(0);
    expect(outcomes(db)).toEqual(firstOutcomes);
    // The votes asked differ (another order stops at another voter), never what is kept.
    expect(votes(db)).not.toEqual(firstVotes);
  }, 600_000);
});

describe('the voting order with batches', () => {
  it('asks in waves by the order frozen after the warm-up, and a re-run sends nothing and stores the same votes', async () => {
    const db = await marchDb(tmp.file('batched.db'), 40);
    const config = marchConfig(fake.url, { earlyExit: { warmup: 4 }, batch: { enabled: true, pollSeconds: 0.01, idleFlushMs: 20 } });
    const run = await runPipeline(db, { config });
    expect(run.status).toBe('done');
    expect(run.stages.find((s) => s.stage === 'detect')!.batchCalls).toBe(run.stages.find((s) => s.stage === 'detect')!.calls);
    // One freeze per stage and type, after the warm-up; the items past it ask first the voter it ranks first (or one whose answer was cached).
    const semantic = run.voting!.find((v) => v.stage === 'detect' && v.key === 'semantic')!;
    expect(semantic.epochs!.map((e) => e.from)).toEqual([4]);
    const firsts = db
      .prepare("SELECT DISTINCT v.model FROM detection_votes v WHERE v.ambiguity_type = 'semantic' AND v.asked_position = 1 AND v.base_question_id > (SELECT min(id) + 3 FROM base_questions)")
      .all() as { model: string }[];
    // Exploring items ask everyone in the configured order (gpt-4.1 first); every other one asks the frozen order's first.
    const first = semantic.epochs![0]!.order[0];
    expect(first).not.toBe('fake/openai/gpt-4.1-1');
    expect(firsts.map((r) => r.model)).toContain(first);
    expect(firsts.every((r) => r.model === first || r.model === 'fake/openai/gpt-4.1-1')).toBe(true);
    const before = votes(db);
    clearOutputs(db);
    const again = await runPipeline(db, { config });
    expect(again.calls).toBe(0);
    expect(votes(db)).toEqual(before);
    db.close();
  }, 600_000);
});

describe('the cost of calls without a price', () => {
  it('is never added as $0: the run counts them, and awb pipeline show says the total is a floor', async () => {
    const file = tmp.file('unpriced.db');
    const db = await marchDb(file, 12);
    // Only the generator has a price; the detectors and filter models have none.
    const run = await runPipeline(db, { config: marchConfig(fake.url, { prices: { 'openai/gpt-4.1': { input: 2, output: 8 } } }) });
    const stored = db.prepare("SELECT count(*) AS n, coalesce(sum(cost_usd), 0) AS usd FROM llm_calls WHERE run_id = ? AND cost_usd IS NULL AND status = 'ok'").get(run.id) as { n: number };
    db.close();
    expect(stored.n).toBeGreaterThan(0);
    expect(run.unpricedCalls).toBe(stored.n);
    expect(run.stages.find((s) => s.stage === 'detect')!.unpricedCalls).toBe(run.stages.find((s) => s.stage === 'detect')!.calls);
    expect(run.stages.find((s) => s.stage === 'clarify')!.unpricedCalls).toBe(0);
    const shown = awbJson<RunSummary>(['pipeline', 'show', String(run.id), '--db', file, '--json']);
    expect(shown.json.unpricedCalls).toBe(stored.n);
    const text = awb(['pipeline', 'show', String(run.id), '--db', file]).stdout;
    expect(text).toMatch(new RegExp(`total: .*≥ \\$0\\.\\d{4}, ${stored.n} calls unpriced`));
    expect(text).toMatch(/detect .* unknown \(\d+ calls unpriced\)/);
  }, 600_000);
});
