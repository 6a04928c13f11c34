import { spawn } from 'node:child_process';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { openDatabase } from '../../db/connection';
import type { WritableDB } from '../../db/sql';
import { createEvalRun, executeEvalRun } from '../../electron/services/evaluation/run';
import { EvalStartRequest } from '../../shared/api';
import { AMBIGUITY_TYPES } from '../../shared/domain';
import { ROOT } from '../helpers/db';
import { rng, words } from '../helpers/synthetic';
import { kebab, percentile, sizedId, type BenchContext, type Measurement } from './harness';

/**
 * The evaluation runner's own overhead (issue 11): No Retrieval over 10,000 instances with 64
 * calls in flight against a fake endpoint (in another process) that answers at once, so what is
 * measured is the runner: the cache lookup, the call log, scoring each item, storing it with its
 * trace. Also the heap from 10% to 100% of the run (flat), and a fully cached re-run; the run and
 * the re-run also at 1,000 instances, for how they grow (issue 24).
 */

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;
const heapMb = () => {
  gc();
  return process.memoryUsage().heapUsed / 2 ** 20;
};

function fill(db: WritableDB, count: number): void {
  const random = rng(41);
  db.exec(`INSERT INTO datasets (id, name, source_format) VALUES (1, 'bench runner', 'awb')`);
  const question = db.prepare('INSERT INTO base_questions (id, dataset_id, source_id, question, hops) VALUES (?, 1, ?, ?, 2)');
  const instance = db.prepare(`INSERT INTO instances (id, base_question_id, dataset_id, ambiguity_type, status, stage, hops, interpretation_count) VALUES (?, ?, 1, ?, 'ready', 'filter', 2, 2)`);
  const interpretation = db.prepare('INSERT INTO interpretations (instance_id, position, clarified_question, short_answer) VALUES (?, ?, ?, ?)');
  const longAnswer = db.prepare('INSERT INTO long_answers (instance_id, position, text) VALUES (?, 0, ?)');
  db.transaction(() => {
    for (let id = 1; id <= count; id++) {
      question.run(id, `q${String(id).padStart(6, '0')}`, `What ${words(random, 10)} number ${id}?`);
      instance.run(id, id, AMBIGUITY_TYPES[id % 3]!);
      interpretation.run(id, 0, `Which ${words(random, 8)}?`, 'alpha');
      interpretation.run(id, 1, `Which ${words(random, 8)}?`, words(random, 2));
      longAnswer.run(id, `It depends: alpha, or ${words(random, 12)}.`);
    }
  })();
}

async function startFake(ctx: BenchContext): Promise<{ url: string; stop: () => void }> {
  const tsx = path.join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');
  const child = spawn(process.execPath, [tsx, path.join(ROOT, 'test', 'bench', 'fake-eval-server.ts')], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString().trim()));
    child.once('exit', (code) => reject(new Error(`fake server exited (${code})`)));
  });
  ctx.log(`  fake endpoint ${url} (own process)`);
  return { url, stop: () => child.kill() };
}

/** At two sizes ten times apart (1,000 and 10,000 items; 20 and 200 with --quick): the larger with the median of three runs, the heap and the targets. */
export async function benchEvaluationRunner(ctx: BenchContext): Promise<Measurement[]> {
  const count = ctx.quick ? 200 : 10_000;
  const fake = await startFake(ctx);
  try {
    return [...(await benchRunner(ctx, fake.url, count / 10, true)), ...(await benchRunner(ctx, fake.url, count, false))];
  } finally {
    fake.stop();
  }
}

async function benchRunner(ctx: BenchContext, url: string, count: number, small: boolean): Promise<Measurement[]> {
  const db = openDatabase(path.join(ctx.dir, `evaluation-runner-${count}.db`));
  fill(db, count);
  const request = (model: string) =>
    EvalStartRequest.parse({
      method: 'no-retrieval',
      model: { endpoint: 'fake', model },
      config: { endpoints: { fake: { baseURL: url, maxInFlight: 64, retries: 2, timeoutMs: 30_000 } } },
      dataset: 'bench runner',
      concurrency: 64,
    });
  const heap: { done: number; mb: number }[] = [];
  let nextSample = 0;
  const before = heapMb();
  // The clock starts once the run and its items exist (loading the gold is not the runner's per-call work).
  const firstId = createEvalRun(db, request('gen'));
  let started = performance.now();
  const first = await executeEvalRun(db, firstId, {
    onProgress: (p) => {
      if (p.done >= nextSample) {
        heap.push({ done: p.done, mb: heapMb() });
        nextSample = p.done + Math.max(1_000, count / 10);
      }
    },
  });
  const seconds = (performance.now() - started) / 1000;
  heap.push({ done: first.done, mb: heapMb() });
  const warm = heap.find((h) => h.done >= count * 0.1) ?? heap[0]!;
  ctx.log(`  ${count.toLocaleString('en-US')} items, first run: ${first.calls.toLocaleString('en-US')} calls, ${first.done} items (${first.failed} failed) in ${seconds.toFixed(1)} s`);
  // Timing items that fail (a fake whose answers no longer fit the method's schema) measures nothing.
  if (first.failed > 0) throw new Error(`${first.failed} of ${count} items failed: the fake endpoint's answer does not fit the No Retrieval schema`);
  if (!small) ctx.log(`  heap: ${before.toFixed(1)} MB before, ${heap.map((h) => `${(h.done / 1000).toFixed(0)}k items ${h.mb.toFixed(1)} MB`).join(', ')}`);
  // Two more runs with calls of their own (another model name, so nothing comes from the cache):
  // the figure is the median of the three, since one 20-second window on a shared machine
  // varied from 380 to 540 calls/s between consecutive runs of the same code.
  const rates = [first.calls / seconds];
  for (const model of ctx.quick || small ? [] : ['gen-2', 'gen-3']) {
    const id = createEvalRun(db, request(model));
    const t = performance.now();
    const again = await executeEvalRun(db, id);
    if (again.failed > 0) throw new Error(`${again.failed} of ${count} items failed in the run with ${model}`);
    rates.push(again.calls / ((performance.now() - t) / 1000));
  }
  ctx.log(`  calls per second in each run: ${rates.map((r) => r.toFixed(0)).join(', ')}`);
  const cachedId = createEvalRun(db, request('gen'));
  started = performance.now();
  const cached = await executeEvalRun(db, cachedId);
  const cachedSeconds = (performance.now() - started) / 1000;
  db.close();
  const size = { count, of: 'items' } as const;
  // The larger size keeps the ids these rows had before there were two sizes, so the history still matches them.
  const sized = (series: string, name: string) => ({ id: small ? sizedId(series, count) : kebab(name), series, size, name });
  const rate = sized('runner-calls-per-second', `evaluation runner calls per second, 64 in flight, fake endpoint (${first.calls.toLocaleString('en-US')} calls; median of ${rates.length} run${rates.length === 1 ? '' : 's'})`);
  const rerun = sized('runner-cached-rerun', `fully cached evaluation re-run over ${count.toLocaleString('en-US')} items (${cached.cachedCalls.toLocaleString('en-US')} cached)`);
  const out: Measurement[] = [
    { ...rate, value: percentile(rates, 50), unit: 'calls/s', target: ctx.quick || small ? undefined : { min: 500 } },
    { ...rerun, value: cachedSeconds, unit: 's' },
  ];
  if (small) return out;
  return [
    out[0]!,
    { name: `evaluation runner heap growth from 10% to 100% of ${count.toLocaleString('en-US')} items`, value: heap.at(-1)!.mb - warm.mb, unit: 'MB', target: ctx.quick ? undefined : { max: 25 } },
    out[1]!,
    { name: '  calls sent by the cached evaluation re-run', value: cached.calls, unit: 'calls', target: { max: 0 } },
  ];
}
