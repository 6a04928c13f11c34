import path from 'node:path';
import { openDatabase } from '../../db/connection';
import { insertEvalRun, setEvalRunStatus } from '../../db/queries/eval-runs';
import { countFailures, failurePageIds, failureRows, FAILURE_SORTS, type FailureFilter } from '../../db/queries/eval-items-failures';
import { listInstances } from '../../db/queries/instances';
import type { WritableDB } from '../../db/sql';
import { InstanceQuery, type InstanceFilter } from '../../shared/api';
import { INSTANCE_SORT_COLUMNS } from '../../shared/api';
import { launchBrowser } from '../e2e/browser';
import { awbJson, startServer } from '../helpers/cli';
import { ASQA } from '../helpers/db';
import { seedFailureDemo } from '../helpers/failure-demo';
import { fillInstances, rng } from '../helpers/synthetic';
import { percentile, sizedId, sizeLabel, type BenchContext, type Measurement } from './harness';

/**
 * Failure inspection (issue 12): the failure table's page query at 100,000 evaluated items,
 * against the instance table's page query at 100,000 instances in the same process on the same
 * machine (the ratio of their medians); and opening an item with a 30-step trace in Chromium,
 * from the keypress (j) to the frame that shows it painted, data fetched and all. The failure
 * table's query is also timed at 10,000 items, for how it grows (issue 24).
 */

/** 100,000 items in one run, with metrics spread over their ranges and the two flags. */
function fillEvalItems(db: WritableDB, count: number): number {
  const runId = insertEvalRun(db, {
    method: 'naive_rag', model: 'bench', endpoint: {}, sourceKind: 'dataset', source: 'bench', releaseId: null, split: null,
    datasetId: null, corpus: null, retrievalMode: null, k: null, options: {}, promptVersions: {},
  });
  const random = rng(11);
  const types = ['semantic', 'syntactic', 'constraint', 'unspecified'];
  const insert = db.prepare(
    `INSERT INTO eval_items (run_id, position, key, instance_id, ambiguity_type, question, gold, status, long_answer, str_em, disambig_f1, rouge_l, judge_mean,
                             collapsed, retrieval_miss, latency_ms, cost_usd, error)
     VALUES (?, ?, ?, NULL, ?, ?, '{}', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  db.transaction(() => {
    for (let i = 0; i < count; i++) {
      const failed = random() < 0.05;
      const value = (steps: number) => (failed ? null : Math.floor(random() * (steps + 1)) / steps);
      insert.run(
        runId, i, `key-${i}`, types[i % 4]!, `Question number ${i}?`, failed ? 'failed' : 'done', failed ? null : `Answer ${i}.`,
        value(4), value(20), value(100), failed ? null : Math.floor(random() * 21) / 4,
        failed ? null : random() < 0.3 ? 1 : 0, failed ? null : random() < 0.2 ? 1 : 0,
        failed ? null : 200 + random() * 3000, failed ? 0 : random() / 100, failed ? 'bench failure' : null,
      );
    }
  })();
  db.exec(`UPDATE eval_runs SET total = ${count} WHERE id = ${runId}; ANALYZE;`);
  setEvalRunStatus(db, runId, 'done', null);
  return runId;
}

function time(fn: () => void): number {
  const t = performance.now();
  fn();
  return performance.now() - t;
}

/** Wall time, with the process's own CPU time pushed to `cpu`: the machine is shared, and waiting for a core stretches wall times. */
function timed(cpu: number[], fn: () => void): number {
  const c = process.cpuUsage();
  const wall = time(fn);
  const used = process.cpuUsage(c);
  cpu.push((used.user + used.system) / 1000);
  return wall;
}

/**
 * The page queries at one size. At the smaller of the two sizes (ten times fewer items) only the
 * failure table's own figures are kept, as the small end of their growth series: a page query
 * should cost about the same at any size.
 */
function benchPages(ctx: BenchContext, size: number, small: boolean): Measurement[] {
  const label = sizeLabel(size);
  const db = openDatabase(path.join(ctx.dir, `failures-${label}.db`));
  const started = performance.now();
  fillInstances(db, size);
  const runId = fillEvalItems(db, size);
  ctx.log(`  filled ${size.toLocaleString('en-US')} instances and ${size.toLocaleString('en-US')} evaluated items in ${((performance.now() - started) / 1000).toFixed(1)} s`);

  const random = rng(5);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const failureFilters: FailureFilter[] = [
    {},
    { type: 'semantic' },
    { status: 'failed' },
    { collapsed: true },
    { retrievalMiss: true },
    { thresholds: [{ metric: 'str_em', below: 0.5 }] },
    { type: 'constraint', collapsed: true },
    { thresholds: [{ metric: 'rouge_l', atLeast: 0.2, below: 0.6 }], type: 'unspecified' },
  ];
  const instanceFilters: Partial<InstanceFilter>[] = [{}, { types: ['semantic'] }, { statuses: ['ready'] }, { datasets: [2] }, { hops: [3] }, { types: ['constraint'], statuses: ['removed'] }];
  const n = ctx.quick ? 100 : 600;
  // Offsets within the first tenth of the items (below 10,000 at 100,000), so that both sizes page alike.
  const step = Math.max(1, Math.round(size / 1000));
  const failureQueries = Array.from({ length: n }, () => ({
    filter: pick(failureFilters),
    sort: pick(FAILURE_SORTS),
    direction: random() < 0.5 ? ('asc' as const) : ('desc' as const),
    offset: Math.floor(random() * 100) * step,
  }));
  const instanceQueries = Array.from({ length: n }, () =>
    InstanceQuery.parse({ ...pick(instanceFilters), sort: pick(INSTANCE_SORT_COLUMNS.filter((s) => s !== 'relevance')), direction: random() < 0.5 ? 'asc' : 'desc', offset: Math.floor(random() * 100) * step, limit: 100 }),
  );
  const page = (q: (typeof failureQueries)[number]) => failureRows(db, failurePageIds(db, runId, q.filter, q.sort, q.direction, 100, q.offset));
  // A finished run's first pages read its items into memory (the filter columns, then each metric sorted or filtered on).
  const firstPage = time(() => page({ filter: {}, sort: 'position', direction: 'asc', offset: 0 }));
  const firstMetricsPage = time(() => page({ filter: { thresholds: [{ metric: 'str_em', below: 0.5 }] }, sort: 'cost_usd', direction: 'desc', offset: 0 }));
  for (const q of failureQueries.slice(0, 50)) page(q);
  for (const q of instanceQueries.slice(0, 50)) listInstances(db, q);
  // Interleaved, so both see the same machine state.
  const failures: number[] = [];
  const instances: number[] = [];
  const failuresCpu: number[] = [];
  const instancesCpu: number[] = [];
  const counts: number[] = [];
  for (let i = 0; i < n; i++) {
    failures.push(timed(failuresCpu, () => page(failureQueries[i]!)));
    instances.push(timed(instancesCpu, () => listInstances(db, instanceQueries[i]!)));
    if (i % 3 === 0) counts.push(time(() => countFailures(db, runId, failureQueries[i]!.filter)));
  }
  db.close();
  const ratio = percentile(failures, 50) / percentile(instances, 50);
  const tailRatio = percentile(failures, 95) / percentile(instances, 95);
  // The larger size keeps the ids these rows had before there were two sizes, so the history still matches them.
  const sized = (series: string) => ({ id: small ? sizedId(series, size) : series, series, size: { count: size, of: 'items' as const }, perQuery: true });
  const p50 = { ...sized('failure-page-p50'), name: `failure table page query p50 at ${label} evaluated items (filter + sort + page of 100, offsets < ${sizeLabel(size / 10)})`, value: percentile(failures, 50), unit: 'ms' };
  const p95 = { ...sized('failure-page-p95'), name: `  failure table page query p95 at ${label} evaluated items`, value: percentile(failures, 95), unit: 'ms' };
  if (small) return [p50, p95];
  return [
    p50,
    p95,
    { id: 'instance-page-p50', name: `instance table page query p50 at ${label} instances, same machine and run`, value: percentile(instances, 50), unit: 'ms' },
    { id: 'instance-page-p95', name: '  instance table page query p95', value: percentile(instances, 95), unit: 'ms' },
    { id: 'failure-over-instance-p50', baseline: 'instance-page-p50', name: 'failure / instance page query, ratio of medians ("as fast": ≤ 1.1, the run-to-run noise)', value: ratio, unit: '×', target: ctx.quick ? undefined : { max: 1.1 } },
    { id: 'failure-over-instance-p95', baseline: 'instance-page-p95', name: 'failure / instance page query, ratio of p95s', value: tailRatio, unit: '×', target: ctx.quick ? undefined : { max: 1 } },
    { id: 'failure-page-cpu-p50', name: '  failure table page query CPU time p50', value: percentile(failuresCpu, 50), unit: 'ms' },
    { id: 'failure-page-cpu-p95', name: '  failure table page query CPU time p95', value: percentile(failuresCpu, 95), unit: 'ms' },
    { id: 'instance-page-cpu-p50', name: '  instance table page query CPU time p50', value: percentile(instancesCpu, 50), unit: 'ms' },
    { id: 'instance-page-cpu-p95', name: '  instance table page query CPU time p95', value: percentile(instancesCpu, 95), unit: 'ms' },
    { id: 'failure-over-instance-cpu-p50', baseline: 'instance-page-cpu-p50', name: '  failure / instance page query, ratio of CPU-time medians', value: percentile(failuresCpu, 50) / percentile(instancesCpu, 50), unit: '×' },
    { id: 'failure-over-instance-cpu-p95', baseline: 'instance-page-cpu-p95', name: '  failure / instance page query, ratio of CPU-time p95s', value: percentile(failuresCpu, 95) / percentile(instancesCpu, 95), unit: '×' },
    { name: '  failure table count of matching items p50 (asked once per filter, not per page)', value: percentile(counts, 50), unit: 'ms' },
    { id: 'failure-first-page', name: `  failure table first page of a finished run (its ${label} items read into memory)`, value: firstPage, unit: 'ms' },
    { id: 'failure-first-metrics-page', name: '  then the first page sorted by one metric with a threshold on another (both read)', value: firstMetricsPage, unit: 'ms' },
  ];
}

async function benchItemPaint(ctx: BenchContext): Promise<Measurement[]> {
  const file = path.join(ctx.dir, 'failure-items.db');
  const imported = awbJson<{ committed: boolean }>(['import', ASQA, '--format', 'asqa', '--db', file]);
  if (!imported.json.committed) throw new Error('bench: the ASQA sample did not import');
  const db = openDatabase(file);
  const count = ctx.quick ? 12 : 40;
  const { runA, itemIds } = seedFailureDemo(db, count, { steps: 30 });
  db.close();
  const ids = [...itemIds.values()].sort((a, b) => a - b);
  const server = await startServer(['--db', file], { AWB_HOME: path.join(ctx.dir, 'home-failures') });
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await page.goto(`${server.url}/evaluation/${runA}/items/${ids[0]}`);
    await page.getByTestId('trace').waitFor();
    await page.evaluate(() => {
      const w = window as unknown as { latencies: number[] };
      w.latencies = [];
      let pressed = 0;
      window.addEventListener('keydown', () => (pressed = performance.now()), true);
      const target = document.querySelector('[data-testid="failure-item"]')!;
      new MutationObserver(() => {
        if (!pressed) return;
        const start = pressed;
        pressed = 0;
        // The new item's 30 steps are in the DOM; wait for the frame that paints them.
        requestAnimationFrame(() => setTimeout(() => w.latencies.push(performance.now() - start), 0));
      }).observe(target, { attributes: true, attributeFilter: ['data-item'] });
    });
    for (let i = 1; i < ids.length; i++) {
      await page.waitForTimeout(50);
      await page.keyboard.press('j');
      await page.waitForFunction((n) => (window as unknown as { latencies: number[] }).latencies.length >= n, i);
      const steps = await page.getByTestId('trace-step').count();
      if (steps !== 30) throw new Error(`bench: item ${ids[i]} shows ${steps} steps, not 30`);
    }
    const latencies = await page.evaluate(() => (window as unknown as { latencies: number[] }).latencies);
    return [
      { name: `open an item with a 30-step trace (j), keypress to painted, Chromium, ${latencies.length} items (p95)`, value: percentile(latencies, 95), unit: 'ms', target: ctx.quick ? undefined : { max: 100 } },
      { name: '  open an item with a 30-step trace (p50)', value: percentile(latencies, 50), unit: 'ms' },
    ];
  } finally {
    await browser.close();
    await server.stop();
  }
}

export async function benchFailures(ctx: BenchContext): Promise<Measurement[]> {
  const size = ctx.quick ? 2_000 : 100_000;
  return [...benchPages(ctx, size / 10, true), ...benchPages(ctx, size, false), ...(await benchItemPaint(ctx))];
}
