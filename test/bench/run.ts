import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { benchAnnotation } from './annotation';
import { benchEvaluation } from './evaluation';
import { benchEvaluationRunner } from './evaluation-runner';
import { benchFailures } from './failures';
import { benchFoundation } from './foundation';
import { benchPipeline } from './pipeline';
import { benchRelease } from './release';
import { benchRetrieval } from './retrieval';
import { benchTeam } from './team';
import { formatValue, machine, verdict, type BenchContext, type Measurement } from './harness';

/**
 * `npm run bench`: measures the speed targets of the issues on this machine and prints them,
 * with the machine. `--quick` runs every suite at small sizes (about a tenth; it checks that the
 * bench itself works, in a couple of minutes, and measures nothing worth quoting); `--only
 * NAME[,NAME]` runs some suites. Results also go to bench-results/latest.json.
 */

const suites: Record<string, (ctx: BenchContext) => Promise<Measurement[]>> = {
  foundation: benchFoundation,
  retrieval: benchRetrieval,
  annotation: benchAnnotation,
  pipeline: benchPipeline,
  release: benchRelease,
  evaluation: benchEvaluation,
  'evaluation-runner': benchEvaluationRunner,
  failures: benchFailures,
  team: benchTeam,
};

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const onlyIndex = args.indexOf('--only');
// `--only a,b` runs some suites (in the usual order).
const only = onlyIndex === -1 ? null : new Set((args[onlyIndex + 1] ?? '').split(',').filter(Boolean));
const unknown = only ? [...only].filter((name) => !suites[name]) : [];
if (only && (only.size === 0 || unknown.length)) {
  console.error(`Unknown suite ${unknown.join(', ') || '(none named)'}; choose from ${Object.keys(suites).join(', ')}`);
  process.exit(2);
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'awb-bench-'));
const context: BenchContext = { dir, quick, log: (m) => console.log(m) };
const info = machine();
console.log('Ambiguity Workbench benchmark', quick ? '(quick sizes)' : '');
for (const [key, value] of Object.entries(info)) console.log(`  ${key.padEnd(11)} ${value}`);
console.log('');

const all: { suite: string; measurements: Measurement[] }[] = [];
let missed = 0;
try {
  for (const [name, run] of Object.entries(suites)) {
    if (only && !only.has(name)) continue;
    console.log(`# ${name}`);
    const measurements = await run(context);
    for (const m of measurements) {
      const v = verdict(m);
      if (v.startsWith('MISSES')) missed++;
      console.log(`  ${m.name.padEnd(96)} ${formatValue(m).padStart(16)}  ${v}`);
    }
    all.push({ suite: name, measurements });
    console.log('');
  }
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
fs.mkdirSync('bench-results', { recursive: true });
fs.writeFileSync(path.join('bench-results', 'latest.json'), JSON.stringify({ date: new Date().toISOString(), quick, machine: info, results: all }, null, 2));
console.log(missed ? `${missed} target(s) missed.` : 'Every target met.');
