import fs from 'node:fs';
import path from 'node:path';
import { generatedBlock, HistoryEntry, historyEntry, replaceGenerated } from './bench-docs';
import { growthSvg } from './growth-svg';
import { BenchResults } from './results';

/**
 * `npm run bench:docs`: rewrites the generated block of docs/benchmarks.md and the chart
 * docs/benchmarks/growth.svg from bench-results/latest.json, and appends a full run (never a
 * quick one) to bench-results/history.jsonl, once per run.
 *
 * Paths can be given for tests: --results FILE --history FILE --page FILE --chart FILE.
 */

export interface DocsPaths {
  results: string;
  history: string;
  page: string;
  chart: string;
}

export function readHistory(file: string): HistoryEntry[] {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line, i) => {
      try {
        return HistoryEntry.parse(JSON.parse(line));
      } catch (error) {
        throw new Error(`${file}, line ${i + 1}: not a history entry (${error instanceof Error ? error.message : String(error)})`);
      }
    });
}

export function writeBenchDocs(paths: DocsPaths): { appended: boolean } {
  const results = BenchResults.parse(JSON.parse(fs.readFileSync(paths.results, 'utf8')));
  const history = readHistory(paths.history);
  const appended = !results.quick && !history.some((h) => h.date === results.date);
  if (appended) {
    const entry = historyEntry(results);
    fs.mkdirSync(path.dirname(paths.history), { recursive: true });
    fs.appendFileSync(paths.history, `${JSON.stringify(entry)}\n`);
    history.push(entry);
  }
  const page = fs.readFileSync(paths.page, 'utf8');
  const chartLink = path.relative(path.dirname(paths.page), paths.chart).split(path.sep).join('/');
  const updated = replaceGenerated(page, generatedBlock(results, history, chartLink));
  fs.mkdirSync(path.dirname(paths.chart), { recursive: true });
  fs.writeFileSync(paths.chart, growthSvg(results));
  fs.writeFileSync(paths.page, updated);
  return { appended };
}

const isMain = process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname);
if (isMain) {
  const arg = (name: string, fallback: string) => {
    const i = process.argv.indexOf(`--${name}`);
    return i === -1 ? fallback : process.argv[i + 1]!;
  };
  const paths: DocsPaths = {
    results: arg('results', 'bench-results/latest.json'),
    history: arg('history', 'bench-results/history.jsonl'),
    page: arg('page', 'docs/benchmarks.md'),
    chart: arg('chart', 'docs/benchmarks/growth.svg'),
  };
  const { appended } = writeBenchDocs(paths);
  console.log(`${paths.page} and ${paths.chart} written; ${appended ? `the run appended to ${paths.history}` : 'history unchanged (a quick run, or this run is already there)'}.`);
}
