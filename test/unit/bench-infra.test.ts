import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { BEGIN_MARKER, END_MARKER, replaceGenerated } from '../bench/bench-docs';
import { readHistory, writeBenchDocs } from '../bench/bench-docs-cli';
import { growthExponent, growthRows, sizedId, status, verdict, withIds, type Measurement } from '../bench/harness';
import { BenchResults, RESULTS_FORMAT, suiteRows } from '../bench/results';
import { runSuiteInChild } from '../bench/suite-runner';
import { SUITES } from '../bench/suites';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'awb-bench-infra-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** A page cost measured at two sizes, per query, and a ratio against it. */
function pageRows(p50Small: number, p50Large: number): Measurement[] {
  return [100_000, 1_000_000].flatMap((count, i) => [
    { series: 'page-p50', size: { count, of: 'instances' as const }, perQuery: true, name: `page p50 at ${count}`, value: i ? p50Large : p50Small, unit: 'ms' },
    { id: sizedId('page-p95-over-p50', count), baseline: sizedId('page-p50', count), name: `p95 / p50 at ${count}`, value: 1.5, unit: '×', target: { max: 2 } },
  ]);
}

describe('growth exponents', () => {
  it('is the slope of cost against size on log-log axes', () => {
    expect(growthExponent({ size: 100_000, value: 1 }, { size: 1_000_000, value: 10 })).toBeCloseTo(1, 12);
    expect(growthExponent({ size: 1_000, value: 4 }, { size: 100_000, value: 4 })).toBe(0);
    // Twice the cost at ten times the size: log10(2).
    expect(growthExponent({ size: 10, value: 3 }, { size: 100, value: 6 })).toBeCloseTo(0.30103, 5);
    // Quadratic: a hundred times the cost at ten times the size.
    expect(growthExponent({ size: 2_000, value: 0.5 }, { size: 20_000, value: 50 })).toBeCloseTo(2, 12);
  });

  it('pairs the smallest and largest size of each series and flags a per-query cost growing faster than b = 0.5', () => {
    const linear = growthRows(pageRows(1, 10));
    expect(linear).toHaveLength(1);
    expect(linear[0]).toMatchObject({ id: 'growth-page-p50', perQuery: true, growth: { series: 'page-p50', of: 'instances', from: { size: 100_000, value: 1 }, to: { size: 1_000_000, value: 10 } } });
    expect(linear[0]!.value).toBeCloseTo(1, 12);
    expect(verdict(linear[0]!)).toMatch(/^GROWS/);
    const logarithmic = growthRows(pageRows(1, 1.2))[0]!;
    expect(logarithmic.value).toBeCloseTo(Math.log10(1.2), 12);
    expect(verdict(logarithmic)).toBe('per query: b ≤ 0.5');
    // A cost that is not per query carries no flag.
    expect(verdict({ ...linear[0]!, perQuery: false })).toBe('');
  });

  it("flags a streaming job's memory that grows with the data, and gives no verdict where b cannot be computed", () => {
    const memory = (small: number, large: number): Measurement[] =>
      [2_000, 20_000].map((count, i) => ({ series: 'import-memory', streaming: true, size: { count, of: 'records' as const }, name: `memory at ${count}`, value: i ? large : small, unit: 'MiB' }));
    const grows = growthRows(memory(10, 80))[0]!;
    expect(grows.value).toBeCloseTo(Math.log10(8), 12);
    expect(verdict(grows)).toBe('GROWS: streaming memory with b > 0.5');
    expect(verdict(growthRows(memory(10, 12))[0]!)).toBe('streaming memory: b ≤ 0.5');
    const none = growthRows(memory(0, 12))[0]!;
    expect(none.value).toBe(Infinity);
    expect(status(none)).toBe('none');
  });
});

describe('rows and latest.json', () => {
  it('gives every row a stable kebab-case id, unique in its suite', () => {
    const ids = withIds([
      { name: 'Import 20,000 MuSiQue records (346 MB)', value: 1, unit: 's' },
      { name: '  of which text + FTS5', value: 1, unit: 's' },
      { name: '  of which text + FTS5', value: 2, unit: 's' },
      { series: 'dense-p50', size: { count: 1_000_000, of: 'passages' }, name: 'dense', value: 3, unit: 'ms' },
      { id: 'given', name: 'x', value: 4, unit: '' },
    ]).map((m) => m.id);
    expect(ids).toEqual(['import-20-000-musique-records-346-mb', 'of-which-text-fts5', 'of-which-text-fts5-2', 'dense-p50-1m', 'given']);
  });

  it('resolves each ratio to its baseline row, and refuses one that names no row of the suite', () => {
    const rows = suiteRows(pageRows(1, 10));
    const ratio = rows.find((r) => r.id === 'page-p95-over-p50-1m')!;
    expect(ratio.baseline).toEqual({ id: 'page-p50-1m', name: 'page p50 at 1000000', value: 10, unit: 'ms' });
    expect(ratio.status).toBe('meets');
    expect(rows.at(-1)!.id).toBe('growth-page-p50');
    expect(() => suiteRows([{ name: 'ratio', value: 1, unit: '×', baseline: 'nowhere' }])).toThrow(/baseline "nowhere"/);
  });

  it('has a schema that holds a run and rejects a malformed one', () => {
    const run = {
      format: RESULTS_FORMAT,
      date: '2026-11-26T10:00:00.000Z',
      quick: false,
      commit: 'abc',
      dirty: false,
      machine: { cpu: 'test × 2' },
      load: { start: [1, 2, 3], end: [1.5, 2, 3] },
      // A figure that could not be measured (NaN) is stored as null.
      suites: [{ suite: 'foundation', ok: true, seconds: 3, peakRssMb: 120, cpuSeconds: 2.5, measurements: suiteRows([...pageRows(1, 10), { name: 'n', value: NaN, unit: 'ms' }]) }],
    };
    const parsed = BenchResults.parse(JSON.parse(JSON.stringify(run)));
    expect(parsed.suites[0]!.measurements.at(-2)!.value).toBeNull();
    expect(BenchResults.safeParse({ ...run, load: { start: [1, 2], end: [1, 2, 3] } }).success).toBe(false);
    const badId = { ...run.suites[0]!, measurements: [{ ...run.suites[0]!.measurements[0]!, id: 'Not Kebab' }] };
    expect(BenchResults.safeParse({ ...run, suites: [badId] }).success).toBe(false);
  });
});

/** Checks that `text` is one well-formed XML element: tags nest and close, attributes quoted, text escaped. */
function expectWellFormedXml(text: string): void {
  const token = /<(\/?)([A-Za-z][\w:-]*)((?:\s+[\w:-]+="[^"<&]*(?:&(?:amp|lt|gt|quot|#\d+);[^"<&]*)*")*)\s*(\/?)>/y;
  const stack: string[] = [];
  let roots = 0;
  let i = 0;
  while (i < text.length) {
    const next = text.indexOf('<', i);
    const chunk = text.slice(i, next === -1 ? text.length : next);
    expect(chunk.replace(/&(amp|lt|gt|quot|#\d+);/g, ''), `text before offset ${next}`).not.toMatch(/[&>]/);
    if (next === -1) break;
    token.lastIndex = next;
    const m = token.exec(text);
    expect(m, `a tag at offset ${next}: ${text.slice(next, next + 60)}`).not.toBeNull();
    const [whole, closing, name, , selfClosing] = m!;
    if (closing) expect(stack.pop()).toBe(name);
    else {
      if (!stack.length) roots++;
      if (!selfClosing) stack.push(name!);
    }
    i = next + whole.length;
  }
  expect(stack).toEqual([]);
  expect(roots).toBe(1);
}

function fixtureResults(quick: boolean, date: string): BenchResults {
  return BenchResults.parse({
    format: RESULTS_FORMAT,
    date,
    quick,
    commit: '0123456789abcdef',
    dirty: false,
    machine: { cpu: 'Fixture CPU × 2', memory: '8 GiB', node: 'v20', sqlite: '3.50', 'fresh memory': '2417 ms per GiB' },
    load: { start: [0.5, 0.4, 0.3], end: [1, 0.8, 0.4] },
    suites: [
      { suite: 'foundation', ok: true, seconds: 12, peakRssMb: 310, cpuSeconds: 11, measurements: suiteRows([...pageRows(1, 10), { series: 'import', size: { count: 2_000, of: 'records' }, name: 'import <2k> & more | piped', value: 2, unit: 's' }, { series: 'import', size: { count: 20_000, of: 'records' }, name: 'import 20k', value: 19, unit: 's', target: { max: 30 } }]) },
      { suite: 'release', ok: false, error: 'the suite failed\n  at somewhere', seconds: 1, peakRssMb: null, cpuSeconds: null, measurements: [] },
    ],
  });
}

describe('npm run bench:docs', () => {
  const before = '# Benchmarks\n\nHand-written introduction.\n\n';
  const after = '\n\n## Dated notes\n\nA note of 2026-11-22 | with a pipe.\n';
  const paths = { results: path.join(tmp, 'latest.json'), history: path.join(tmp, 'history.jsonl'), page: path.join(tmp, 'docs', 'benchmarks.md'), chart: path.join(tmp, 'docs', 'benchmarks', 'growth.svg') };

  it('rewrites only the generated block, draws a well-formed chart and records each full run once', () => {
    fs.mkdirSync(path.dirname(paths.page), { recursive: true });
    fs.writeFileSync(paths.page, `${before}${BEGIN_MARKER}\nold generated text\n${END_MARKER}${after}`);
    fs.writeFileSync(paths.results, JSON.stringify(fixtureResults(false, '2026-11-26T10:00:00.000Z')));
    expect(writeBenchDocs(paths).appended).toBe(true);
    const page = fs.readFileSync(paths.page, 'utf8');
    expect(page.startsWith(`${before}${BEGIN_MARKER}\n`)).toBe(true);
    expect(page.endsWith(`${END_MARKER}${after}`)).toBe(true);
    expect(page).not.toContain('old generated text');
    expect(page).toContain('Fixture CPU × 2, 8 GiB, v20, 3.50, fresh memory 2417 ms per GiB; load average');
    expect(page).toContain('| foundation | import 20k | 20k records | 19.0 s | ≤ 30 s | meets target ≤ 30 s |');
    expect(page).toContain('page p50 at 1000000 (10.0 ms)');
    expect(page).toContain('| release | n/a | n/a | 1.0 s | no: the suite failed |');
    expect(page).toContain('| foundation | page-p50 | 100k → 1M instances | 1.00 ms → 10.0 ms | 1.00 | per query | GROWS');
    expect(page).toContain('](benchmarks/growth.svg)');
    const svg = fs.readFileSync(paths.chart, 'utf8');
    expectWellFormedXml(svg.trim());
    expect(svg).toContain('foundation: page-p50: b = 1.00 (per query, grows)');
    expect(svg).toContain('foundation: import: b = 0.98');

    // The same run again: the history keeps one line; the page comes out the same.
    expect(writeBenchDocs(paths).appended).toBe(false);
    expect(fs.readFileSync(paths.page, 'utf8')).toBe(page);
    // A quick run is never recorded.
    fs.writeFileSync(paths.results, JSON.stringify(fixtureResults(true, '2026-11-27T10:00:00.000Z')));
    expect(writeBenchDocs(paths).appended).toBe(false);
    const history = readHistory(paths.history);
    expect(history).toHaveLength(1);
    expect(history[0]!.figures['foundation/import-20k']).toEqual({ value: 19, unit: 's', status: 'meets' });
    expect(fs.readFileSync(paths.page, 'utf8')).toContain('quick sizes');
  });

  it('refuses a page without its markers and leaves it as it was', () => {
    expect(() => replaceGenerated('# Benchmarks\n', 'x')).toThrow(/no generated block/);
    fs.writeFileSync(paths.page, before);
    expect(() => writeBenchDocs(paths)).toThrow(/no generated block/);
    expect(fs.readFileSync(paths.page, 'utf8')).toBe(before);
  });
});

describe('suites in child processes', () => {
  const spec = (name: string) => ({ module: path.resolve('test/helpers/bench-fixture-suites.ts'), export: name });
  const options = { dir: tmp, quick: true, stdio: 'ignore' as const };

  it("returns a suite's measurements with its own peak resident memory", async () => {
    const run = await runSuiteInChild(spec('fineSuite'), options);
    expect(run.ok).toBe(true);
    expect(run.measurements).toEqual([{ id: 'held', name: 'held 50331648 bytes (quick: true)', value: 48, unit: 'MiB' }]);
    // The 48 MiB it held were resident at their peak.
    expect(run.peakRssMb).toBeGreaterThan(48);
    expect(run.cpuSeconds).toBeGreaterThan(0);
  });

  it('reports a suite that throws or exits, without throwing itself', async () => {
    const thrown = await runSuiteInChild(spec('throwingSuite'), options);
    expect(thrown).toMatchObject({ ok: false, measurements: [] });
    expect(thrown.error).toContain('the fixture suite failed on purpose');
    const exited = await runSuiteInChild(spec('exitingSuite'), options);
    expect(exited).toMatchObject({ ok: false, measurements: [], peakRssMb: null });
    expect(exited.error).toContain('exit code 3');
    const missing = await runSuiteInChild(spec('noSuchSuite'), options);
    expect(missing.error).toContain('exports no function noSuchSuite');
    // Each suite's directory is removed after it.
    expect(fs.readdirSync(tmp).filter((f) => f.startsWith('suite-'))).toEqual([]);
  });

  it("loads every one of the bench's suites outside vitest, as `npm run bench` does", () => {
    // The suites import test helpers: one that registered a vitest hook as it loaded crashed three
    // suites of CI's `bench --quick` (2026-11-27). So the child gets none of vitest's variables.
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('VITEST')));
    const specs = Object.values(SUITES).map((s) => ({ url: pathToFileURL(path.resolve('test/bench', s.module)).href, name: s.export }));
    const script = `for (const { url, name } of ${JSON.stringify(specs)}) {
      if (typeof (await import(url))[name] !== 'function') throw new Error(url + ' exports no function ' + name);
    }
    console.log('loaded ' + ${specs.length});`;
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { env, encoding: 'utf8' });
    expect(child.stdout.trim(), child.stderr).toBe(`loaded ${specs.length}`);
    expect(child.status).toBe(0);
  });
});
