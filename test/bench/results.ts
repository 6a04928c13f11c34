import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { z } from 'zod';
import { growthRows, status, verdict, withIds, type Measurement } from './harness';

/**
 * bench-results/latest.json: one run of `npm run bench`, every figure with its target, verdict,
 * baseline and size, each suite's peak resident memory, the machine, the commit and the load.
 */

export const RESULTS_FORMAT = 'awb-bench/2';

const SizeUnit = z.enum(['instances', 'passages', 'judgments', 'questions', 'records', 'items']);
const Point = z.object({ size: z.number().positive(), value: z.number() });

export const RowResult = z.object({
  id: z.string().regex(/^[a-z0-9]+(-[a-z0-9]+)*$/),
  name: z.string(),
  value: z.number().nullable(),
  unit: z.string(),
  target: z.object({ max: z.number().optional(), min: z.number().optional() }).optional(),
  status: z.enum(['meets', 'misses', 'none']),
  verdict: z.string(),
  /** A ratio's baseline row, resolved in the same suite of the same run. */
  baseline: z.object({ id: z.string(), name: z.string(), value: z.number().nullable(), unit: z.string() }).optional(),
  size: z.object({ count: z.number().positive(), of: SizeUnit }).optional(),
  series: z.string().optional(),
  perQuery: z.boolean().optional(),
  streaming: z.boolean().optional(),
  growth: z.object({ series: z.string(), of: SizeUnit, from: Point, to: Point }).optional(),
});
export type RowResult = z.infer<typeof RowResult>;

export const SuiteResult = z.object({
  suite: z.string(),
  ok: z.boolean(),
  /** Why a suite that did not finish stopped: its error, or its exit code or signal. */
  error: z.string().optional(),
  seconds: z.number(),
  /** The suite's own process: peak resident set (VmHWM) and CPU time. Null when it crashed. */
  peakRssMb: z.number().nullable(),
  cpuSeconds: z.number().nullable(),
  measurements: z.array(RowResult),
});
export type SuiteResult = z.infer<typeof SuiteResult>;

const LoadAverage = z.tuple([z.number(), z.number(), z.number()]);

export const BenchResults = z.object({
  format: z.literal(RESULTS_FORMAT),
  date: z.iso.datetime(),
  quick: z.boolean(),
  commit: z.string(),
  dirty: z.boolean(),
  machine: z.record(z.string(), z.string()),
  load: z.object({ start: LoadAverage, end: LoadAverage }),
  suites: z.array(SuiteResult),
});
export type BenchResults = z.infer<typeof BenchResults>;

/** A suite's rows as stored: ids given, growth rows added, verdicts and baselines resolved. */
export function suiteRows(measurements: readonly Measurement[]): RowResult[] {
  const rows = withIds([...measurements, ...growthRows(measurements)]);
  const byId = new Map(rows.map((r) => [r.id, r]));
  return rows.map((m) => {
    const base = m.baseline === undefined ? undefined : byId.get(m.baseline);
    if (m.baseline !== undefined && !base) throw new Error(`row "${m.id}" names baseline "${m.baseline}", which this suite did not measure`);
    return RowResult.parse({
      id: m.id,
      name: m.name,
      // JSON has no NaN or Infinity: a figure that could not be measured is null.
      value: Number.isFinite(m.value) ? m.value : null,
      unit: m.unit,
      target: m.target ? { ...m.target } : undefined,
      status: status(m),
      verdict: verdict(m),
      baseline: base ? { id: base.id, name: base.name, value: Number.isFinite(base.value) ? base.value : null, unit: base.unit } : undefined,
      size: m.size,
      series: m.series,
      perQuery: m.perQuery,
      streaming: m.streaming,
      growth: m.growth,
    });
  });
}

export function gitCommit(): { commit: string; dirty: boolean } {
  try {
    const commit = execFileSync('git', ['rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8' }).trim() !== '';
    return { commit, dirty };
  } catch {
    return { commit: 'unknown', dirty: false };
  }
}

export function loadAverage(): [number, number, number] {
  const [a, b, c] = os.loadavg();
  return [a ?? 0, b ?? 0, c ?? 0];
}
