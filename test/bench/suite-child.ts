import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BenchContext, Measurement } from './harness';

/**
 * One suite in its own process (suite-runner.ts starts it): imports the suite's module, runs its
 * function, and writes its measurements with the process's peak resident memory and CPU time to
 * a result file. A suite that throws writes its error there and exits with 1.
 *
 * node --import tsx test/bench/suite-child.ts MODULE EXPORT RESULT_FILE DIR quick|full
 */

export interface ChildResult {
  ok: boolean;
  error?: string;
  measurements: Measurement[];
  peakRssMb: number;
  cpuSeconds: number;
}

/** The process's peak resident set in MiB: VmHWM where /proc has it, else the resource usage's maxRSS. */
function peakRssMb(): number {
  try {
    const hwm = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync('/proc/self/status', 'utf8'));
    if (hwm) return Number(hwm[1]) / 1024;
  } catch {
    // Not Linux: fall through.
  }
  return process.resourceUsage().maxRSS / 1024;
}

const [modulePath, exportName, resultFile, dir, mode] = process.argv.slice(2) as [string, string, string, string, string];
const context: BenchContext = { dir, quick: mode === 'quick', log: (m) => console.log(m) };
const write = (result: Omit<ChildResult, 'peakRssMb' | 'cpuSeconds'>) => {
  const cpu = process.cpuUsage();
  const full: ChildResult = { ...result, peakRssMb: peakRssMb(), cpuSeconds: (cpu.user + cpu.system) / 1e6 };
  fs.writeFileSync(resultFile, JSON.stringify(full));
};
try {
  const suiteModule = (await import(pathToFileURL(path.resolve(modulePath)).href)) as Record<string, unknown>;
  const run = suiteModule[exportName];
  if (typeof run !== 'function') throw new Error(`${modulePath} exports no function ${exportName}`);
  const measurements = await (run as (ctx: BenchContext) => Promise<Measurement[]>)(context);
  write({ ok: true, measurements });
  // Workers, servers or handles a suite left open must not keep its process alive.
  process.exit(0);
} catch (error) {
  write({ ok: false, error: error instanceof Error ? (error.stack ?? error.message) : String(error), measurements: [] });
  process.exit(1);
}
