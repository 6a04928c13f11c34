import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cliBundle } from '../../bin/bundles.mjs';
import { formatValue, machine } from './harness';
import { BenchResults, gitCommit, loadAverage, RESULTS_FORMAT, suiteRows, type SuiteResult } from './results';
import { runSuiteInChild } from './suite-runner';
import { SUITES } from './suites';

/**
 * `npm run bench`: measures the speed targets of the issues on this machine and prints them,
 * with the machine. `--quick` runs every suite at small sizes (it checks that the bench itself
 * works, in a few minutes, and measures nothing worth quoting); `--only NAME[,NAME]` runs some
 * suites. Each suite runs in its own process, so its peak resident memory is its own and a crash
 * stops only that suite. Results go to bench-results/latest.json (results.ts describes it);
 * `npm run bench:docs` makes the benchmarks page from them.
 */

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const onlyIndex = args.indexOf('--only');
// `--only a,b` runs some suites (in the usual order).
const only = onlyIndex === -1 ? null : new Set((args[onlyIndex + 1] ?? '').split(',').filter(Boolean));
const unknown = only ? [...only].filter((name) => !SUITES[name]) : [];
if (only && (only.size === 0 || unknown.length)) {
  console.error(`Unknown suite ${unknown.join(', ') || '(none named)'}; choose from ${Object.keys(SUITES).join(', ')}`);
  process.exit(2);
}

const loadStart = loadAverage();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'awb-bench-'));
const info = machine();
const date = new Date().toISOString();
console.log('Ambiguity Workbench benchmark', quick ? '(quick sizes)' : '');
for (const [key, value] of Object.entries(info)) console.log(`  ${key.padEnd(11)} ${value}`);
console.log(`  ${'load'.padEnd(11)} ${loadStart.map((l) => l.toFixed(2)).join(' ')} (1, 5, 15 min)`);
// The CLI and the worker threads run from their bundles, as after a user's first `awb` (bin/bundles.mjs).
const bundled = await cliBundle();
console.log(`  ${'workers'.padEnd(11)} ${bundled ? 'from their bundles in dist/node' : 'from the sources through tsx (the bundles could not be made)'}`);
console.log('');

const results: SuiteResult[] = [];
try {
  for (const [name, spec] of Object.entries(SUITES)) {
    if (only && !only.has(name)) continue;
    console.log(`# ${name}`);
    const run = await runSuiteInChild(spec, { dir, quick });
    const result: SuiteResult = { suite: name, ok: run.ok, error: run.error, seconds: run.seconds, peakRssMb: run.peakRssMb, cpuSeconds: run.cpuSeconds, measurements: [] };
    try {
      result.measurements = suiteRows(run.measurements);
    } catch (error) {
      Object.assign(result, { ok: false, error: `its rows: ${error instanceof Error ? error.message : String(error)}` });
    }
    for (const m of result.measurements) console.log(`  ${m.name.padEnd(96)} ${formatValue({ value: m.value ?? NaN, unit: m.unit }).padStart(16)}  ${m.verdict}`);
    if (!result.ok) console.log(`  CRASHED: ${result.error}`);
    const memory = result.peakRssMb === null ? 'unknown' : `${result.peakRssMb.toFixed(0)} MiB`;
    console.log(`  (suite process: peak resident memory ${memory}, CPU ${result.cpuSeconds?.toFixed(1) ?? '?'} s, wall ${result.seconds.toFixed(1)} s)`);
    results.push(result);
    console.log('');
  }
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}

const output = BenchResults.parse({ format: RESULTS_FORMAT, date, quick, ...gitCommit(), machine: info, load: { start: loadStart, end: loadAverage() }, suites: results });
fs.mkdirSync('bench-results', { recursive: true });
fs.writeFileSync(path.join('bench-results', 'latest.json'), `${JSON.stringify(output, null, 2)}\n`);
const missed = results.flatMap((s) => s.measurements).filter((m) => m.status === 'misses').length;
const crashed = results.filter((s) => !s.ok).map((s) => s.suite);
console.log(`load at the end: ${output.load.end.map((l) => l.toFixed(2)).join(' ')}`);
console.log(missed ? `${missed} target(s) missed.` : 'Every target met.');
if (crashed.length) {
  console.log(`Suites that did not finish: ${crashed.join(', ')}.`);
  process.exitCode = 1;
}
