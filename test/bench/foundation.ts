import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { openDatabase } from '../../db/connection';
import { migrate } from '../../db/migrate';
import { migrations } from '../../db/migrations';
import type { ReadableDB, WritableDB } from '../../db/sql';
import { countInstances, listInstances, mergeInstanceSearchIndex } from '../../db/queries/instances';
import { instanceFacetCounts, instanceFacetSteps } from '../../db/queries/instances-facets';
import { instanceDetail } from '../../electron/services/browse';
import { checkpointsDone } from '../../electron/services/checkpoints';
import { importFile } from '../../electron/services/import/import-file';
import { DEFAULT_MAX_RECORD_BYTES, readRecords } from '../../electron/services/import/json-stream';
import { InstanceQuery, INSTANCE_SORT_COLUMNS, type InstanceFilter } from '../../shared/api';
import type { AwbRecord } from '../../shared/awb-format';
import { ROOT } from '../helpers/db';
import { fillInstances, musiqueRecord, rng, words } from '../helpers/synthetic';
import { percentile, sizedId, sizeLabel, type BenchContext, type Measurement } from './harness';

/** Foundation targets (issue 2): import throughput, the table's page query, the detail view. */
export async function benchFoundation(ctx: BenchContext): Promise<Measurement[]> {
  const results: Measurement[] = [];
  // Two sizes ten times apart each, for the growth exponents.
  for (const records of ctx.quick ? [200, 2_000] : [2_000, 20_000]) results.push(...(await benchImport(ctx, records)));
  for (const size of ctx.quick ? [500, 5_000] : [100_000, 1_000_000]) results.push(...benchPageQuery(ctx, size));
  results.push(...(await benchDetail(ctx)));
  results.push(...benchCliStart());
  return results;
}

async function benchImport(ctx: BenchContext, records: number): Promise<Measurement[]> {
  const file = path.join(ctx.dir, `musique-synthetic-${records}.jsonl`);
  const random = rng(11);
  const out = fs.openSync(file, 'w');
  let paragraphs = 0;
  for (let i = 0; i < records; i++) {
    const record = musiqueRecord(i, random);
    paragraphs += record.paragraphs.length;
    fs.writeSync(out, `${JSON.stringify(record)}\n`);
  }
  fs.closeSync(out);
  const floor = await readAndParse(file);
  const db = openDatabase(path.join(ctx.dir, `import-${records}.db`));
  const rssBefore = process.memoryUsage().rss;
  let rssPeak = rssBefore;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 50);
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const report = await importFile(db, { file, format: 'musique' });
  const seconds = (performance.now() - started) / 1000;
  // A large import leaves its log to be checkpointed on another thread once it returns: timed on
  // its own, and counted in the import's CPU time (every thread of the process).
  await checkpointsDone();
  const checkpointSeconds = (performance.now() - started) / 1000 - seconds;
  const cpuSeconds = cpuTotal(process.cpuUsage(cpuBefore));
  clearInterval(sampler);
  const index = indexFloor(db);
  db.close();
  if (report.imported !== records) throw new Error(`import bench imported ${report.imported} of ${records}`);
  const size = (fs.statSync(file).size / 1e6).toFixed(0);
  fs.rmSync(file);
  const sized = { count: records, of: 'records' } as const;
  return [
    { series: 'import', size: sized, name: `import ${records.toLocaleString('en-US')} MuSiQue records (${paragraphs.toLocaleString('en-US')} paragraphs, ${size} MB)`, value: seconds, unit: 's', target: records === 20_000 ? { max: 30 } : undefined },
    // The floor: the same file read by the importer's own reader and each line parsed, nothing else.
    { series: 'import-floor', size: sized, name: `import floor at ${sizeLabel(records)}: read + JSON.parse of the same ${size} MB, line by line`, value: floor.seconds, unit: 's' },
    { id: sizedId('import-over-floor', records), size: sized, baseline: sizedId('import-floor', records), name: `import time / floor at ${sizeLabel(records)} (issue 24: at most 3)`, value: seconds / floor.seconds, unit: '×', target: records === 20_000 ? { max: 3 } : undefined },
    { id: sizedId('import-cpu-over-floor', records), size: sized, name: `import CPU time (its background checkpoint included) / floor CPU time at ${sizeLabel(records)}`, value: cpuSeconds / floor.cpuSeconds, unit: '×' },
    { series: 'import-background-checkpoint', size: sized, name: `the import's checkpoint of its log into the database file, in the background after it returned, at ${sizeLabel(records)}`, value: checkpointSeconds, unit: 's' },
    // What an import that keeps a full-text index cannot go below either: that index built, alone.
    { series: 'import-index-floor', size: sized, name: `search index floor at ${sizeLabel(records)}: the ${report.passagesCreated.toLocaleString('en-US')} passages stored, indexed again into an FTS5 table in memory`, value: index.seconds, unit: 's' },
    { id: sizedId('import-over-floors', records), size: sized, name: `import time / (read + parse floor + search index floor) at ${sizeLabel(records)}`, value: seconds / (floor.seconds + index.seconds), unit: '×' },
    { id: sizedId('import-records-per-second', records), size: sized, name: `import throughput at ${sizeLabel(records)}: records`, value: records / seconds, unit: 'records/s' },
    { id: sizedId('import-paragraphs-per-second', records), size: sized, name: `import throughput at ${sizeLabel(records)}: paragraphs read (${report.passagesCreated.toLocaleString('en-US')} unique stored)`, value: paragraphs / seconds, unit: 'passages/s' },
    // Streaming: memory grows with SQLite's page cache and the record at hand, not with the file.
    { series: 'import-memory-growth', size: sized, streaming: true, name: `import peak memory growth (resident set, file of ${size} MB)`, value: (rssPeak - rssBefore) / 2 ** 20, unit: 'MiB' },
  ];
}

const cpuTotal = (used: NodeJS.CpuUsage) => (used.user + used.system) / 1e6;

/** Reads the file with the importer's reader and parses each line: what any import must spend. */
async function readAndParse(file: string): Promise<{ seconds: number; cpuSeconds: number }> {
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  let lines = 0;
  for await (const raw of readRecords(file, { maxRecordBytes: DEFAULT_MAX_RECORD_BYTES })) {
    JSON.parse(raw.bytes!.toString('utf8'));
    lines++;
  }
  if (lines === 0) throw new Error('the import floor read no lines');
  return { seconds: (performance.now() - started) / 1000, cpuSeconds: cpuTotal(process.cpuUsage(cpuBefore)) };
}

/**
 * The imported passages indexed again, into a contentless FTS5 table in memory with the import's
 * tokenizer and pending-terms size: the search index's own cost, with no page written to disk.
 */
function indexFloor(db: WritableDB): { seconds: number } {
  db.exec(`CREATE VIRTUAL TABLE temp.index_floor USING fts5(title, text, content = '', tokenize = 'unicode61 remove_diacritics 2', detail = full)`);
  db.exec(`INSERT INTO temp.index_floor (index_floor, rank) VALUES ('hashsize', ${16 * 1024 * 1024})`);
  const started = performance.now();
  db.exec('INSERT INTO temp.index_floor (rowid, title, text) SELECT id, title, text FROM passages ORDER BY id');
  const seconds = (performance.now() - started) / 1000;
  db.exec('DROP TABLE temp.index_floor');
  return { seconds };
}

function benchPageQuery(ctx: BenchContext, size: number): Measurement[] {
  const label = size >= 1_000_000 ? `${size / 1_000_000}M` : `${size / 1000}k`;
  // Filled at the schema before the order counts, then migrated: an existing database converted
  // (and the fill is 2.5 times quicker without the triggers). The remade search table is given
  // the fill's text again.
  const db = openDatabase(path.join(ctx.dir, `instances-${label}.db`), { migrate: false });
  migrate(db, migrations.slice(0, migrations.findIndex((m) => m.name === 'instance-order')));
  const seconds = (since: number) => (performance.now() - since) / 1000;
  const fillStarted = performance.now();
  fillInstances(db, size);
  ctx.log(`  filled ${size.toLocaleString('en-US')} instances in ${seconds(fillStarted).toFixed(1)} s`);
  const migrateStarted = performance.now();
  migrate(db);
  const migrationSeconds = seconds(migrateStarted);
  fillInstances(db, size, 7, true);
  // As the app leaves the search index after a migration or a bulk write: merged (0030).
  for (const step of mergeInstanceSearchIndex(db)) void step;

  const random = rng(5);
  const filters: Partial<InstanceFilter>[] = [
    {},
    { types: ['semantic'] },
    { statuses: ['ready'] },
    { datasets: [2] },
    { hops: [3] },
    { types: ['constraint'], statuses: ['removed'] },
    { types: ['syntactic'], hops: [2, 4] },
  ];
  const sorts = INSTANCE_SORT_COLUMNS.filter((s) => s !== 'relevance');
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const queries = Array.from({ length: 600 }, () =>
    InstanceQuery.parse({
      ...pick(filters),
      sort: pick(sorts),
      direction: random() < 0.5 ? 'asc' : 'desc',
      // Scrolling: pages within the first 10,000 rows of the result.
      offset: Math.floor(random() * 100) * 100,
      limit: 100,
    }),
  );
  // Wall time, and the process's own CPU time beside it: the machine is shared, and other work
  // stretches wall times (at the tail most) without changing what a query costs.
  const cpu: number[] = [];
  const time = (fn: () => void) => {
    const c = process.cpuUsage();
    const t = performance.now();
    fn();
    const wall = performance.now() - t;
    const used = process.cpuUsage(c);
    cpu.push((used.user + used.system) / 1000);
    return wall;
  };
  for (const q of queries.slice(0, 50)) listInstances(db, q);
  const page = queries.map((q) => time(() => listInstances(db, q)));
  const pageCpu = cpu.splice(0);
  const deep = queries.slice(0, 100).map((q) => {
    const total = countInstances(db, q);
    const offset = Math.floor(random() * Math.max(0, total - 100));
    return time(() => listInstances(db, { ...q, offset }));
  });
  const deepCpu = cpu.splice(0);
  const facets = queries.slice(0, 60).map((q) => time(() => instanceFacetCounts(db, q)));
  // Searches: a word and the start of another, as typed, in the table's order (what the search box
  // shows) and by best match (bm25 over every match); and a prefix of one or two letters alone,
  // which most rows match, in the table's order.
  const searchWord = words(rng(1), 1);
  const typed = Array.from({ length: 50 }, (_, i) => `${searchWord} ${words(rng(i + 9), 1)}`.slice(0, 12));
  const broad = Array.from({ length: 50 }, (_, i) => words(rng(i + 109), 1).slice(0, 1 + (i % 2)));
  const searchPages = (texts: string[], sort: InstanceQuery['sort'] | ((i: number) => InstanceQuery['sort'])) => {
    cpu.length = 0;
    // One sort for all, ascending; or a sort per search, every other one descending.
    const sortOf = typeof sort === 'function' ? sort : () => sort;
    const directionOf = (i: number) => (typeof sort === 'function' && i % 2 ? 'desc' : 'asc');
    const wall = texts.map((text, i) => time(() => listInstances(db, InstanceQuery.parse({ search: text, sort: sortOf(i), direction: directionOf(i), limit: 100 }))));
    return { wall, cpu: cpu.splice(0) };
  };
  const bestMatch = searchPages(typed, 'relevance');
  const { wall: search, cpu: searchCpu } = searchPages(typed, 'id');
  const broadSearch = searchPages(broad, 'id');
  // The same searches sorted by a column instead, each by the next one of the list, either way
  // (after the table's order, as a user sorts a search already made: the search's lists are read).
  const columns = INSTANCE_SORT_COLUMNS.filter((c) => c !== 'id' && c !== 'relevance');
  const byColumn = (i: number) => columns[i % columns.length]!;
  const sortedSearch = searchPages(typed, byColumn);
  const sortedBroad = searchPages(broad, byColumn);
  const broadFacets = broad.slice(0, 6).map((search) => facetSteps(db, InstanceQuery.parse({ search })));
  db.close();
  const [p50, p95, deep50, search50] = [percentile(page, 50), percentile(page, 95), percentile(deep, 50), percentile(search, 50)];
  const at1M = size >= 1_000_000;
  // Per-query rows: their cost should not grow with the table (the growth rows flag it if it does).
  const sized = { size: { count: size, of: 'instances' }, perQuery: true } as const;
  const p50Id = sizedId('page-p50', size);
  return [
    { ...sized, series: 'page-p50', name: `page query p50 at ${label} instances (sort + filter + page of 100, offsets < 10k)`, value: p50, unit: 'ms', target: at1M ? { max: 10 } : undefined },
    { ...sized, series: 'page-p95', name: `page query p95 at ${label} instances`, value: p95, unit: 'ms', target: at1M ? { max: 10 } : undefined },
    { ...sized, series: 'page-deep-p50', name: `page query p50 at ${label}, random offsets anywhere in the result`, value: deep50, unit: 'ms', target: at1M ? { max: 10 } : undefined },
    { id: sizedId('page-p95-over-p50', size), baseline: p50Id, name: `page query p95 / p50 at ${label} (issue 24: at most 2)`, value: p95 / p50, unit: '×', target: at1M ? { max: 2 } : undefined },
    { id: sizedId('page-deep-over-p50', size), baseline: p50Id, name: `page query at random offsets, p50 / page p50 at ${label} (at most 2)`, value: deep50 / p50, unit: '×', target: at1M ? { max: 2 } : undefined },
    { ...sized, series: 'page-cpu-p50', name: `page query CPU time p50 at ${label}`, value: percentile(pageCpu, 50), unit: 'ms' },
    { ...sized, series: 'page-cpu-p95', name: `page query CPU time p95 at ${label}`, value: percentile(pageCpu, 95), unit: 'ms' },
    { ...sized, series: 'page-deep-cpu-p50', name: `page query CPU time p50 at ${label}, random offsets`, value: percentile(deepCpu, 50), unit: 'ms' },
    { ...sized, series: 'facets-p50', name: `facet counts + total p50 at ${label}`, value: percentile(facets, 50), unit: 'ms' },
    { ...sized, series: 'search-p50', name: `full-text search page p50 at ${label} (a word and a prefix, in the table's order: the search box's default)`, value: search50, unit: 'ms' },
    { id: sizedId('search-over-page', size), baseline: p50Id, name: `full-text search page p50 / page p50 at ${label} (at most 4)`, value: search50 / p50, unit: '×', target: at1M ? { max: 4 } : undefined },
    { ...sized, series: 'search-cpu-p50', name: `full-text search page CPU time p50 at ${label}`, value: percentile(searchCpu, 50), unit: 'ms' },
    { ...sized, series: 'search-broad-p50', name: `full-text search page p50 at ${label}, a prefix of one or two letters alone (most rows match), in the table's order`, value: percentile(broadSearch.wall, 50), unit: 'ms' },
    { ...sized, series: 'search-broad-cpu-p50', name: `full-text search page CPU time p50 at ${label}, a prefix of one or two letters alone`, value: percentile(broadSearch.cpu, 50), unit: 'ms' },
    // Sorted by a column, a search most rows match walks the column's index (a cost per page), and
    // one that matches few rows (a rare word first) reads its matches and sorts them: that cost
    // grows with the matches (about 150 at 100k, 1,500 at 1M here) up to the cap above which the
    // index is walked, so it is informational.
    { ...sized, series: 'search-sorted-broad-p50', name: `full-text search page p50 at ${label}, a prefix of one or two letters alone, sorted by a column (each by another, either way)`, value: percentile(sortedBroad.wall, 50), unit: 'ms' },
    { id: sizedId('search-sorted-broad-over-page', size), baseline: p50Id, name: `  its p50 / page p50 at ${label} (at most 4, as in the table's order)`, value: percentile(sortedBroad.wall, 50) / p50, unit: '×', target: at1M ? { max: 4 } : undefined },
    { ...sized, series: 'search-sorted-broad-p95', name: `  its p95 at ${label}`, value: percentile(sortedBroad.wall, 95), unit: 'ms' },
    { ...sized, series: 'search-sorted-broad-cpu-p50', name: `  its CPU time p50 at ${label}`, value: percentile(sortedBroad.cpu, 50), unit: 'ms' },
    { size: sized.size, series: 'search-sorted-p50', name: `full-text search page p50 at ${label}, a word and a prefix (few matches), sorted by a column`, value: percentile(sortedSearch.wall, 50), unit: 'ms' },
    { size: sized.size, series: 'search-sorted-p95', name: `  its p95 at ${label}`, value: percentile(sortedSearch.wall, 95), unit: 'ms' },
    // Informational: the counts beside the table under a search most rows match visit every match,
    // in steps between which the services answer other requests; the longest step is how long
    // such a search can hold up another request.
    { size: sized.size, series: 'facets-broad-cpu-p50', name: `facet counts + total under a one- or two-letter search at ${label}, CPU time p50`, value: percentile(broadFacets.map((f) => f.cpu), 50), unit: 'ms' },
    { size: sized.size, series: 'facets-broad-step-max', name: `  its longest step without a break for other requests (max of 6 searches)`, value: Math.max(...broadFacets.map((f) => f.longestStep)), unit: 'ms' },
    // Informational: best match scores every match before the first page (the same searches).
    { size: sized.size, series: 'search-best-match-p50', name: `full-text search page p50 at ${label}, sorted by best match (bm25 over every match)`, value: percentile(bestMatch.wall, 50), unit: 'ms' },
    { size: sized.size, series: 'search-best-match-cpu-p50', name: `full-text search page CPU time p50 at ${label}, sorted by best match`, value: percentile(bestMatch.cpu, 50), unit: 'ms' },
    { series: 'migrate-instances', size: sized.size, name: `migrating a database of ${label} instances (order counts, search table remade)`, value: migrationSeconds, unit: 's' },
  ];
}

/** The facet counts of one filter, step by step as the services run them: CPU time in all, and the longest step. */
function facetSteps(db: ReadableDB, filter: InstanceFilter): { cpu: number; longestStep: number } {
  const started = process.cpuUsage();
  const steps = instanceFacetSteps(db, filter);
  let longestStep = 0;
  for (;;) {
    const t = performance.now();
    const step = steps.next();
    longestStep = Math.max(longestStep, performance.now() - t);
    if (step.done) break;
  }
  const used = process.cpuUsage(started);
  return { cpu: (used.user + used.system) / 1000, longestStep };
}

/** Instances shaped like MARCH's: 2-4 interpretations, 10 ranked passages each, a long answer. */
function detailRecord(i: number, random: () => number): AwbRecord {
  const passages: AwbRecord['passages'] = [];
  const passage = () => {
    const id = `p${passages.length + 1}`;
    passages.push({ id, corpus: 'bench', source_id: null, title: words(random, 2), text: `${words(random, 90)}.` });
    return id;
  };
  const interpretationCount = 2 + Math.floor(random() * 3);
  const llm = { source: 'llm' as const, detail: '', model: 'bench-model', prompt_version: 'v1', call: null };
  return {
    format: 'awb-instance/1',
    dataset: { name: 'bench detail', source_format: 'awb', description: '', licence: '', attribution: '', url: '' },
    base_question: { source_id: `d${i}`, question: `What ${words(random, 10)}?`, hops: 3, answer: 'x', aliases: [], answerable: true, decomposition: [], paragraphs: [], extra: {} },
    instance: {
      ambiguity_type: 'semantic',
      status: 'ready',
      stage: 'filter',
      removed_stage: null,
      removed_reason: null,
      evidence: [],
      interpretations: Array.from({ length: interpretationCount }, () => {
        const evidence = Array.from({ length: 10 }, (_, rank) => ({ passage: passage(), rank: rank + 1, score: 1 - rank / 10, origin: 'sub-question 1', provenance: llm }));
        return {
          clarified_question: `Which ${words(random, 9)}?`,
          condition: null,
          status: 'active' as const,
          dropped_reason: null,
          provenance: llm,
          condition_provenance: null,
          sub_questions: Array.from({ length: 3 }, () => ({ question: `Who ${words(random, 6)}?`, answer: words(random, 2), provenance: llm })),
          evidence,
          citations: [],
          short_answer: { text: words(random, 2), aliases: [], passage: evidence[0]!.passage, start: 0, end: 5, provenance: llm },
          extra: {},
        };
      }),
      long_answers: [{ text: words(random, 60), citations: [], provenance: llm }],
      filter_votes: [],
      extra: {},
    },
    passages,
  };
}

async function benchDetail(ctx: BenchContext): Promise<Measurement[]> {
  const count = ctx.quick ? 300 : 3000;
  const file = path.join(ctx.dir, 'detail.awb.jsonl');
  const random = rng(21);
  fs.writeFileSync(file, Array.from({ length: count }, (_, i) => JSON.stringify(detailRecord(i, random))).join('\n'));
  const db = openDatabase(path.join(ctx.dir, 'detail.db'));
  await importFile(db, { file, format: 'awb' });
  const ids = Array.from({ length: 400 }, () => 1 + Math.floor(random() * count));
  for (const id of ids.slice(0, 20)) instanceDetail(db, id);
  const times = ids.map((id) => {
    const t = performance.now();
    instanceDetail(db, id);
    return performance.now() - t;
  });
  db.close();
  return [
    { id: 'detail-p50', name: 'instance detail load p50 (3 interpretations x 10 passages, sub-questions, long answer)', value: percentile(times, 50), unit: 'ms', target: { max: 20 } },
    { id: 'detail-p95', name: 'instance detail load p95', value: percentile(times, 95), unit: 'ms' },
  ];
}

/**
 * How long `awb --version` takes, from the bundle the CLI makes on first use (bin/bundles.mjs) and
 * from the sources through tsx; Node doing nothing is the floor. Every command pays this first.
 */
function benchCliStart(): Measurement[] {
  const time = (args: string[], env: Record<string, string> = {}) => {
    const started = performance.now();
    const run = spawnSync(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env }, encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`node ${args.join(' ')} failed: ${run.stderr}`);
    return performance.now() - started;
  };
  const awb = path.join(ROOT, 'bin', 'awb.mjs');
  time([awb, '--version']); // makes the bundles if they are not current
  const median = (runs: number, args: string[], env: Record<string, string> = {}) => percentile(Array.from({ length: runs }, () => time(args, env)), 50);
  const bundled = median(7, [awb, '--version']);
  const fromSource = median(5, [awb, '--version'], { AWB_FROM_SOURCE: '1' });
  const floor = median(7, ['-e', '0']);
  return [
    { id: 'cli-start', name: 'awb --version, from the bundle made on first use (median of 7)', value: bundled, unit: 'ms' },
    { id: 'cli-start-from-source', name: '  the same from the sources through tsx (median of 5)', value: fromSource, unit: 'ms' },
    { id: 'cli-start-floor', name: '  node -e 0, the floor (median of 7)', value: floor, unit: 'ms' },
    { id: 'cli-start-over-source', baseline: 'cli-start-from-source', name: '  awb --version, bundle / sources', value: bundled / fromSource, unit: '×' },
  ];
}
