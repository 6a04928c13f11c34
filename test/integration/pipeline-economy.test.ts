import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { costPerKept } from '../../electron/services/pipeline/cost';
import type { CostPerKept, RunSummary } from '../../shared/pipeline';
import { awbJson } from '../helpers/cli';
import type { WritableDB } from '../../db/sql';
import { runPipeline } from '../../electron/services/pipeline/run';
import { MARCH_PROFILE } from '../../electron/dev/fake-profile';
import { tempDir } from '../helpers/db';
import { startFakeOpenAI, type FakeOpenAI } from '../helpers/fake-openai';
import { pipelineBrain } from '../helpers/fake-pipeline';
import { marchConfig, marchDb, outcomes } from '../helpers/march-run';

/**
 * Early exit keeps exactly what asking everyone keeps (issue 26, item 2): the same questions, the
 * same fake answers (MARCH's rejection profile, drawn per item and model), run once asking every
 * voter and answer, and again with early exit (and again with waves of two in the configured
 * order): the kept sets, the removals and every kept instance's content are identical, with fewer
 * calls, and every vote not asked is recorded as not needed.
 */

const tmp = tempDir('awb-economy-');
let fake: FakeOpenAI;
const QUESTIONS = 100;

beforeAll(async () => {
  fake = await startFakeOpenAI();
  fake.chat = pipelineBrain({ script: { profile: MARCH_PROFILE } });
});
afterAll(async () => {
  await fake.close();
  tmp.cleanup();
});

const count = (db: WritableDB, query: string) => (db.prepare(query).get() as { n: number }).n;

describe('early exit against asking everyone, on the same answers', () => {
  const arms: Record<string, { db: WritableDB; run: Awaited<ReturnType<typeof runPipeline>> }> = {};
  beforeAll(async () => {
    const variants: [string, Record<string, unknown>][] = [
      ['everyone', { earlyExit: { enabled: false } }],
      // A short warm-up (every voter asked on the first items, for unbiased rates), so most of these few questions exit early.
      ['early', { earlyExit: { warmup: 5 } }],
      // In the configured order: no warm-up, so even the filter's few instances exit early.
      ['config', { earlyExit: { order: 'config' } }],
      ['waves', { earlyExit: { wave: 2, order: 'config' } }],
    ];
    for (const [name, overrides] of variants) {
      const db = await marchDb(tmp.file(`${name}.db`), QUESTIONS);
      arms[name] = { db, run: await runPipeline(db, { config: marchConfig(fake.url, overrides) }) };
    }
  }, 600_000);
  afterAll(() => Object.values(arms).forEach((a) => a.db.close()));

  it('keeps and removes the same instances, with the same content', () => {
    const everyone = outcomes(arms.everyone!.db);
    // The profile leaves something at every step (or the comparison would prove little).
    expect(everyone.kept.length).toBeGreaterThan(3);
    expect(everyone.removed.filter((r) => r.endsWith('@filter')).length).toBeGreaterThan(3);
    expect(everyone.removed.filter((r) => r.endsWith('@collide')).length).toBeGreaterThan(10);
    for (const arm of ['early', 'config', 'waves']) {
      const other = outcomes(arms[arm]!.db);
      expect(other.kept, arm).toEqual(everyone.kept);
      expect(other.removed, arm).toEqual(everyone.removed);
      expect(other.content, arm).toEqual(everyone.content);
    }
    for (const { run } of Object.values(arms)) expect(run.status).toBe('done');
  });

  it('asks fewer voters, records each one not asked as not needed, and saves merges of instances that collide', () => {
    const { everyone, early } = { everyone: arms.everyone!, early: arms.early! };
    const votes = (db: WritableDB, table: string, where = '') => count(db, `SELECT count(*) AS n FROM ${table} ${where}`);
    // The same vote rows exist both ways: asked or not needed.
    expect(votes(early.db, 'detection_votes')).toBe(votes(everyone.db, 'detection_votes'));
    expect(votes(early.db, 'filter_votes')).toBe(votes(everyone.db, 'filter_votes'));
    expect(votes(everyone.db, 'detection_votes', "WHERE verdict = 'not_needed'")).toBe(0);
    const skipped = votes(early.db, 'detection_votes', "WHERE verdict = 'not_needed'");
    expect(skipped).toBeGreaterThan(votes(early.db, 'detection_votes') / 8);
    expect(votes(arms.config!.db, 'filter_votes', "WHERE verdict = 'not_needed'")).toBeGreaterThan(0);
    // A skipped vote has no call and no position; an asked one has both, and names its run.
    expect(votes(early.db, 'detection_votes', "WHERE verdict = 'not_needed' AND (provenance_id IS NOT NULL OR asked_position IS NOT NULL OR reason NOT LIKE 'not asked: % said no, which decided %')")).toBe(0);
    expect(votes(early.db, 'detection_votes', `WHERE verdict <> 'not_needed' AND (asked_position IS NULL OR run_id <> ${early.run.id})`)).toBe(0);
    // Every type a question passed has all its votes asked: clarification reads every yes.
    expect(count(early.db, `SELECT count(*) AS n FROM instances i JOIN detection_votes v ON v.base_question_id = i.base_question_id AND v.ambiguity_type = i.ambiguity_type WHERE v.verdict = 'not_needed'`)).toBe(0);
    // Fewer calls per stage where early exit applies, the same elsewhere.
    const calls = (run: typeof early.run, stage: string) => run.stages.find((s) => s.stage === stage)!.calls;
    expect(calls(early.run, 'detect')).toBe(calls(everyone.run, 'detect') - skipped);
    expect(calls(arms.config!.run, 'filter')).toBeLessThan(calls(everyone.run, 'filter'));
    expect(calls(early.run, 'merge')).toBeLessThan(calls(everyone.run, 'merge') / 2);
    expect(calls(early.run, 'clarify')).toBe(calls(everyone.run, 'clarify'));
    expect(early.run.calls).toBeLessThan(everyone.run.calls);
    // Merge ran after collisions, and the run says what it skipped.
    expect(early.run.stages.map((s) => s.stage)).toEqual(['detect', 'clarify', 'decompose', 'retrieve', 'answer', 'shorten', 'collide', 'merge', 'filter']);
    expect(early.run.voting!.find((v) => v.stage === 'detect' && v.key === 'semantic')).toMatchObject({ notNeeded: expect.any(Number) });
    expect(early.run.voting!.reduce((n, v) => n + v.notNeeded, 0)).toBe(skipped + votes(early.db, 'filter_votes', "WHERE verdict = 'not_needed'"));
  });

  it('says in every removal by the filter which votes decided it and how many were not needed', () => {
    const reasons = arms.config!.db.prepare("SELECT removed_reason FROM instances WHERE removed_stage = 'filter'").all() as { removed_reason: string }[];
    expect(reasons.length).toBeGreaterThan(0);
    for (const { removed_reason } of reasons) expect(removed_reason).toMatch(/^filter: \d of 3 filter models judged it misaligned \(fake\/[^:]+: .*\)(; \d votes? not needed \(decided after \d of 3\))?$/);
    expect(reasons.some((r) => /not needed/.test(r.removed_reason))).toBe(true);
  });

  it('orders the voters by cost over rejection rate once each has enough votes', () => {
    const order = arms.early!.run.voting!.find((v) => v.stage === 'detect' && v.key === 'semantic')!.order;
    // The profile's strictest cheap detector (qwen, third named: false yes 0.15, $0.13/M) before the lenient expensive one (gpt-4.1: 0.35, $2/M).
    expect(order.indexOf('fake/qwen/qwen3-235b-a22b-3')).toBeLessThan(order.indexOf('fake/openai/gpt-4.1-1'));
    // The configured order stays where asked for.
    expect(arms.waves!.run.voting!.find((v) => v.stage === 'detect' && v.key === 'semantic')!.order).toEqual((marchConfig('x').detectors as { model: string }[]).map((d) => `fake/${d.model}`));
  });

  it('counts what a kept instance cost per stage and type, checked against the stored calls, and shows it in awb pipeline show --json', () => {
    const { db, run } = arms.early!;
    const cost = costPerKept(db, { runId: run.id }, marchConfig('x').prices as never);
    // Independently: the run's calls and kept instances straight from the tables.
    const calls = db.prepare('SELECT coalesce(sum(prompt_tokens + completion_tokens), 0) AS tokens, sum(cost_usd) AS usd FROM llm_calls WHERE run_id = ?').get(run.id) as { tokens: number; usd: number };
    const kept = count(db, "SELECT count(*) AS n FROM instances WHERE status = 'ready'");
    expect(cost.kept.total).toBe(kept);
    expect(cost.total.spend.tokens).toBe(calls.tokens);
    expect(cost.total.perKept.tokens).toBeCloseTo(calls.tokens / kept, 6);
    expect(cost.total.perKept.usd).toBeCloseTo(calls.usd / kept, 9);
    const detectSemantic = db.prepare("SELECT sum(prompt_tokens + completion_tokens) AS t FROM llm_calls WHERE run_id = ? AND stage = 'detect' AND ambiguity_type = 'semantic'").get(run.id) as { t: number };
    const keptSemantic = count(db, "SELECT count(*) AS n FROM instances WHERE status = 'ready' AND ambiguity_type = 'semantic'");
    expect(cost.stages.find((s) => s.stage === 'detect')!.byType.semantic!.perKept.tokens).toBeCloseTo(detectSemantic.t / keptSemantic, 6);
    expect(cost.notNeeded.votes).toBe(count(db, "SELECT (SELECT count(*) FROM detection_votes WHERE verdict = 'not_needed') + (SELECT count(*) FROM filter_votes WHERE verdict = 'not_needed') AS n"));
    // The same run asking everyone, estimated from the skipped votes and merges, is near what asking everyone really spent (answers skipped are left out).
    const measured = run.promptTokens + run.completionTokens;
    const everyone = arms.everyone!.run.promptTokens + arms.everyone!.run.completionTokens;
    expect(cost.askEveryoneSync.tokensRatio!).toBeCloseTo(measured / everyone, 1);

    const shown = awbJson<RunSummary & { costPerKept: CostPerKept }>(['pipeline', 'show', String(run.id), '--db', tmp.file('early.db'), '--json']);
    expect(shown.status).toBe(0);
    expect(shown.json.costPerKept.total.perKept.tokens).toBeCloseTo(cost.total.perKept.tokens!, 6);
    expect(shown.json.costPerKept.stages.map((s) => s.stage)).toEqual(['detect', 'clarify', 'decompose', 'answer', 'merge', 'filter']);
  });
});

