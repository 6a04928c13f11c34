import { spawn } from 'node:child_process';
import path from 'node:path';
import { costPerKept } from '../../electron/services/pipeline/cost';
import { runPipeline } from '../../electron/services/pipeline/run';
import type { RunSummary } from '../../shared/pipeline';
import { ROOT } from '../helpers/db';
import { marchConfig, marchDb, outcomes } from '../helpers/march-run';
import type { BenchContext, Measurement } from './harness';

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
  kept: ReturnType<typeof outcomes>;
  tokensPerKept: number;
  usdPerKept: number;
  stageTokens: Record<string, number>;
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
      arms.push({
        name, run, kept,
        tokensPerKept: cost.total.perKept.tokens ?? Number.NaN,
        usdPerKept: cost.total.perKept.usd ?? Number.NaN,
        stageTokens: Object.fromEntries(cost.stages.map((s) => [s.stage, s.spend.tokens])),
      });
      ctx.log(`  ${name}: ${run.calls.toLocaleString('en-US')} calls in ${((performance.now() - started) / 1000).toFixed(0)} s, ${kept.kept.length} kept; per kept instance ${Math.round(cost.total.perKept.tokens ?? 0).toLocaleString('en-US')} tokens, $${(cost.total.perKept.usd ?? 0).toFixed(4)}`);
      ctx.log(`    funnel: ${run.stages.map((s) => `${s.stage} ${s.processed}→${s.done}`).join(', ')}`);
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
    const best = Object.entries(a.stageTokens).reduce((sum, [s, t]) => sum + (bound[s] !== undefined ? t * bound[s] : (b.stageTokens[s] ?? 0)), 0) / totalA;
    return [
      { name: `tokens per kept instance, early exit / ask everyone (${questions.toLocaleString('en-US')} questions, MARCH profile)`, value: b.tokensPerKept / a.tokensPerKept, unit: '×', target: { max: 0.5 } },
      { name: 'money per kept instance, early exit + batches / ask everyone synchronously', value: c.usdPerKept / a.usdPerKept, unit: '×', target: { max: 0.3 } },
      { name: '  money per kept instance, early exit / ask everyone (both synchronous)', value: b.usdPerKept / a.usdPerKept, unit: '×' },
      { name: '  tokens per kept instance, best early exit could reach on this funnel / ask everyone', value: best, unit: '×' },
      { name: '  detect tokens, early exit / ask everyone', value: ratio('detect'), unit: '×', target: { min: pDetect + (1 - pDetect) / 4 } },
      { name: '  filter tokens, early exit / ask everyone', value: ratio('filter'), unit: '×' },
      { name: '  merge tokens, merge after collisions / before', value: ratio('merge'), unit: '×' },
      { name: '  cost per kept instance, ask everyone synchronously', value: a.usdPerKept, unit: 'USD' },
      { name: '  cost per kept instance, early exit + batches', value: c.usdPerKept, unit: 'USD' },
      { name: 'kept-set differences, early exit vs ask everyone', value: differences(b), unit: 'items', target: { max: 0 } },
      { name: 'kept-set differences, early exit + batches vs ask everyone', value: differences(c), unit: 'items', target: { max: 0 } },
    ];
  } finally {
    fake.stop();
  }
}

/** How many entries are in one list and not the other. */
function symmetric(x: readonly string[], y: readonly string[]): number {
  const sx = new Set(x);
  const sy = new Set(y);
  return x.filter((v) => !sy.has(v)).length + y.filter((v) => !sx.has(v)).length;
}
