import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { costPerKept } from '../../electron/services/pipeline/cost';
import { runPipeline } from '../../electron/services/pipeline/run';
import type { WritableDB } from '../../db/sql';
import type { RunSummary } from '../../shared/pipeline';
import { ROOT } from '../helpers/db';
import { marchConfig, marchDb, outcomes } from '../helpers/march-run';
import { formatValue, verdict, type BenchContext, type Measurement } from './harness';

/**
 * Cost per kept instance (issue 26, item 4): the same questions run three ways against one fake
 * endpoint (in its own process) whose answers follow MARCH's funnel (electron/dev/fake-profile.ts:
 * per-stage acceptance from MARCH Table 2; the assumptions are listed there), with MARCH's models at
 * their OpenRouter prices: A asks every voter and answer synchronously (before this issue), B exits
 * early, C exits early and sends every call through the Batch API. The kept sets must be identical;
 * the ratios are what they are, printed beside the lower bound early exit can reach on this funnel.
 */

async function startFake(ctx: BenchContext): Promise<{ url: string; stop: () => void }> {
  const tsx = path.join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');
  const child = spawn(process.execPath, [tsx, path.join(ROOT, 'test', 'bench', 'fake-llm-server.ts'), 'march'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString().trim()));
    child.once('exit', (code) => reject(new Error(`fake server exited (${code})`)));
  });
  ctx.log(`  fake endpoint ${url} (own process, MARCH profile)`);
  return { url, stop: () => child.kill() };
}

interface Arm {
  name: string;
  run: RunSummary;
  /** The same questions run again (the stages' output cleared, the calls kept): calls sent, and whether it stored the same votes. */
  rerun: { calls: number; sameVotes: boolean };
  kept: ReturnType<typeof outcomes>;
  tokensPerKept: number;
  usdPerKept: number;
  stageTokens: Record<string, number>;
  /** Dollars per stage, and per voting stage the mean dollars per call of each voter. */
  stageUsd: Record<string, number>;
  voterUsd: Record<string, number[]>;
}

export async function benchPipelineEconomy(ctx: BenchContext): Promise<Measurement[]> {
  const questions = ctx.quick ? 300 : 2_000;
  const fake = await startFake(ctx);
  try {
    const variants: [string, Record<string, unknown>][] = [
      ['A ask everyone, synchronous', { earlyExit: { enabled: false } }],
      ['B early exit, synchronous', {}],
      ['C early exit, batches', { batch: { enabled: true, pollSeconds: 0.01, idleFlushMs: 50 } }],
    ];
    const arms: Arm[] = [];
    for (const [name, overrides] of variants) {
      const db = await marchDb(path.join(ctx.dir, `economy-${arms.length}.db`), questions);
      const config = marchConfig(fake.url, overrides);
      const started = performance.now();
      const run = await runPipeline(db, { config });
      const cost = costPerKept(db, { runId: run.id }, config.prices as never);
      const kept = outcomes(db);
      const rerun = await runAgain(db, config);
      arms.push({
        name, run, kept, rerun,
        tokensPerKept: cost.total.perKept.tokens ?? Number.NaN,
        usdPerKept: cost.total.perKept.usd ?? Number.NaN,
        stageTokens: Object.fromEntries(cost.stages.map((s) => [s.stage, s.spend.tokens])),
        ...spendByModel(db, run.id),
      });
      ctx.log(`  ${name}: ${run.calls.toLocaleString('en-US')} calls in ${((performance.now() - started) / 1000).toFixed(0)} s, ${kept.kept.length} kept; per kept instance ${Math.round(cost.total.perKept.tokens ?? 0).toLocaleString('en-US')} tokens, $${(cost.total.perKept.usd ?? 0).toFixed(4)}`);
      ctx.log(`    funnel: ${run.stages.map((s) => `${s.stage} ${s.processed}→${s.done}`).join(', ')}`);
      ctx.log(`    run again over the same questions: ${rerun.calls} calls sent, ${rerun.sameVotes ? 'the same' : 'OTHER'} votes stored; ${run.stages.filter((s) => s.batchCalls).length ? `batch calls ${run.stages.reduce((n, s) => n + (s.batchCalls ?? 0), 0)}` : ''}`);
      db.close();
    }
    const [a, b, c] = arms as [Arm, Arm, Arm];
    const differences = (x: Arm) => symmetric(x.kept.kept, a.kept.kept) + symmetric(x.kept.removed, a.kept.removed) + (JSON.stringify(x.kept.content) === JSON.stringify(a.kept.content) ? 0 : 1);
    const ratio = (stage: string) => (b.stageTokens[stage] ?? 0) / (a.stageTokens[stage] ?? 1);
    const detect = a.run.stages.find((s) => s.stage === 'detect')!;
    const filter = a.run.stages.find((s) => s.stage === 'filter')!;
    // The lower bound of early exit under unanimity: items that pass need every vote, the others at least one.
    const instances = a.run.stages.find((s) => s.stage === 'clarify')!.processed;
    const pDetect = instances / (detect.processed * 3);
    const pFilter = filter.done / Math.max(1, filter.processed);
    ctx.log(`  pass rates in A: detect ${(100 * pDetect).toFixed(1)}% of question-type pairs (MARCH 40.1%), filter ${(100 * pFilter).toFixed(1)}% (MARCH 51.0%)`);
    ctx.log(`  lower bounds for early exit alone: detect ${(pDetect + (1 - pDetect) / 4).toFixed(3)}, filter ${(pFilter + (1 - pFilter) / 3).toFixed(3)} of the votes`);
    ctx.log(`  tokens B/A per stage: ${Object.keys(a.stageTokens).map((s) => `${s} ${ratio(s).toFixed(3)}`).join(', ')}`);
    const totalA = Object.values(a.stageTokens).reduce((x, y) => x + y, 0);
    ctx.log(`  share of A's tokens per stage: ${Object.entries(a.stageTokens).map(([s, t]) => `${s} ${(t / totalA).toFixed(3)}`).join(', ')}`);
    // The best early exit could do here: detect and filter at their bounds, every other stage as B measured it.
    const bound = { detect: pDetect + (1 - pDetect) / 4, filter: pFilter + (1 - pFilter) / 3 } as Record<string, number>;
    // Money: an item that passes pays every voter, one that fails at least the cheapest one (its mean cost per call).
    const totalUsdA = Object.values(a.stageUsd).reduce((x, y) => x + y, 0);
    const usdBound = (stage: string, p: number) => {
      const costs = a.voterUsd[stage] ?? [1];
      return p + ((1 - p) * Math.min(...costs)) / costs.reduce((x, y) => x + y, 0);
    };
    const usdBounds = { detect: usdBound('detect', pDetect), filter: usdBound('filter', pFilter) } as Record<string, number>;
    const bestUsd = Object.entries(a.stageUsd).reduce((sum, [s, u]) => sum + (usdBounds[s] !== undefined ? u * usdBounds[s] : (b.stageUsd[s] ?? 0)), 0) / totalUsdA;
    ctx.log(`  share of A's money per stage: ${Object.entries(a.stageUsd).map(([s, u]) => `${s} ${(u / totalUsdA).toFixed(3)}`).join(', ')}`);
    ctx.log(`  money B/A per stage: ${Object.keys(a.stageUsd).map((s) => `${s} ${((b.stageUsd[s] ?? 0) / (a.stageUsd[s] ?? 1)).toFixed(3)}`).join(', ')}; lower bounds: detect ${usdBounds.detect!.toFixed(3)}, filter ${usdBounds.filter!.toFixed(3)}`);
    const best = Object.entries(a.stageTokens).reduce((sum, [s, t]) => sum + (bound[s] !== undefined ? t * bound[s] : (b.stageTokens[s] ?? 0)), 0) / totalA;
    return [
      { name: `tokens per kept instance, early exit / ask everyone (${questions.toLocaleString('en-US')} questions, MARCH profile)`, value: b.tokensPerKept / a.tokensPerKept, unit: '×', target: { max: 0.5 } },
      { name: 'money per kept instance, early exit + batches / ask everyone synchronously', value: c.usdPerKept / a.usdPerKept, unit: '×', target: { max: 0.3 } },
      { name: '  money per kept instance, early exit / ask everyone (both synchronous)', value: b.usdPerKept / a.usdPerKept, unit: '×' },
      { name: '  tokens per kept instance, best early exit could reach on this funnel / ask everyone', value: best, unit: '×' },
      { name: '  money per kept instance, best early exit + batches could reach on this funnel / ask everyone synchronously', value: bestUsd / 2, unit: '×' },
      { name: '  detect tokens, early exit / ask everyone', value: ratio('detect'), unit: '×', target: { min: pDetect + (1 - pDetect) / 4 } },
      { name: '  filter tokens, early exit / ask everyone', value: ratio('filter'), unit: '×' },
      { name: '  merge tokens, merge after collisions / before', value: ratio('merge'), unit: '×' },
      { name: '  cost per kept instance, ask everyone synchronously', value: a.usdPerKept, unit: 'USD' },
      { name: '  cost per kept instance, early exit + batches', value: c.usdPerKept, unit: 'USD' },
      { name: 'kept-set differences, early exit vs ask everyone', value: differences(b), unit: 'items', target: { max: 0 } },
      { name: 'calls sent running the same questions again, early exit', value: b.rerun.calls, unit: 'calls', target: { max: 0 } },
      { name: 'calls sent running the same questions again, early exit + batches', value: c.rerun.calls, unit: 'calls', target: { max: 0 } },
      { name: '  calls, early exit + batches / early exit synchronously', value: c.run.calls / b.run.calls, unit: '×' },
      { name: 'kept-set differences, early exit + batches vs ask everyone', value: differences(c), unit: 'items', target: { max: 0 } },
    ];
  } finally {
    fake.stop();
  }
}

/** A run's dollars per stage, and per voting stage each voter's mean dollars per call. */
function spendByModel(db: WritableDB, runId: number): { stageUsd: Record<string, number>; voterUsd: Record<string, number[]> } {
  const rows = db.prepare('SELECT stage, model, sum(cost_usd) AS usd, count(*) AS n FROM llm_calls WHERE run_id = ? GROUP BY 1, 2').all(runId) as { stage: string; model: string; usd: number; n: number }[];
  const stageUsd: Record<string, number> = {};
  const voterUsd: Record<string, number[]> = {};
  for (const r of rows) {
    stageUsd[r.stage] = (stageUsd[r.stage] ?? 0) + r.usd;
    if (r.stage === 'detect' || r.stage === 'filter') (voterUsd[r.stage] ??= []).push(r.usd / r.n);
  }
  return { stageUsd, voterUsd };
}

/** Every vote stored, asked or not needed, with its position. */
function votes(db: WritableDB): string {
  return JSON.stringify([
    db.prepare('SELECT base_question_id, ambiguity_type, model, verdict, asked_position FROM detection_votes ORDER BY 1, 2, 3').all(),
    db.prepare('SELECT i.base_question_id, i.ambiguity_type, v.model, v.verdict, v.asked_position FROM filter_votes v JOIN instances i ON i.id = v.instance_id ORDER BY 1, 2, 3').all(),
  ]);
}

/** The stages' output cleared (calls kept), and the same run again: early exit must ask the same voters, all from the cache. */
async function runAgain(db: WritableDB, config: Record<string, unknown>): Promise<{ calls: number; sameVotes: boolean }> {
  const before = votes(db);
  db.exec(`DELETE FROM pipeline_items; DELETE FROM detection_votes; DELETE FROM filter_votes; DELETE FROM instances WHERE ambiguity_type <> 'unspecified';`);
  const again = await runPipeline(db, { config });
  return { calls: again.calls, sameVotes: votes(db) === before };
}

/** How many entries are in one list and not the other. */
function symmetric(x: readonly string[], y: readonly string[]): number {
  const sx = new Set(x);
  const sy = new Set(y);
  return x.filter((v) => !sy.has(v)).length + y.filter((v) => !sx.has(v)).length;
}

// `npx tsx test/bench/pipeline-economy.ts [--quick]`: this suite alone (it also runs inside the pipeline suite of `npm run bench`).
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'awb-bench-economy-'));
  try {
    for (const m of await benchPipelineEconomy({ dir, quick: process.argv.includes('--quick'), log: (line) => console.log(line) })) {
      console.log(`  ${m.name.padEnd(96)} ${formatValue(m).padStart(16)}  ${verdict(m)}`);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
