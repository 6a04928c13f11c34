import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { openDatabase } from '../../db/connection';
import { run, sql, type WritableDB } from '../../db/sql';
import { createCampaign } from '../../electron/services/annotation/campaigns';
import { DatabaseJudging } from '../../electron/services/annotation/judging';
import { importFile } from '../../electron/services/import/import-file';
import { createHandlers, Workbench } from '../../electron/services';
import { createRelease, previewRelease } from '../../electron/services/release/create';
import { checkpointsDone } from '../../electron/services/checkpoints';
import { EncoderPool } from '../../electron/services/release/encoder-pool';
import type { FileSink } from '../../electron/services/release/files';
import { FrozenRecords } from '../../electron/services/release/frozen';
import { previewPlan } from '../../electron/services/release/plan';
import { AppError, dispatch, jobResult, ReleaseCreateRequest, ReleaseDraft, type GateResult, type Input, type ReleaseDiff, type ReleaseListRow, type ReleaseSummary, type VerifyReport } from '../../shared/api';
import type { AwbRecord } from '../../shared/awb-format';
import { checkLicence } from '../../shared/release/licence';
import { recordToRow } from '../../shared/release/schema';
import { readParquetIndependently } from '../helpers/arrow-ffi';
import { awb, awbJson } from '../helpers/cli';
import { tempDir, writeFile } from '../helpers/db';
import { richRecord } from '../helpers/release-fixture';
import { fillInstances } from '../helpers/synthetic';

const tmp = tempDir('awb-release-');
const dbFile = tmp.file('release.db');
let db: WritableDB;
let workbench: Workbench;
let handlers: ReturnType<typeof createHandlers>;
let campaignId: number;

beforeAll(async () => {
  db = openDatabase(dbFile);
  fillInstances(db, 90, 3);
  const rich = writeFile(tmp.file('rich.jsonl'), `${Array.from({ length: 16 }, (_, i) => JSON.stringify(richRecord(i))).join('\n')}\n`);
  await importFile(db, { file: rich, format: 'awb' });
  // Licensed as ASQA is: its questions come from AmbigNQ, which is share-alike.
  const shareAlike = { name: 'asqa_like', source_format: 'awb', licence: 'Apache-2.0 (questions derive from AmbigNQ, CC BY-SA 3.0)', attribution: 'ASQA-like', url: '' };
  const asqa = writeFile(tmp.file('asqa.jsonl'), `${Array.from({ length: 6 }, (_, i) => JSON.stringify(richRecord(i, shareAlike))).join('\n')}\n`);
  await importFile(db, { file: asqa, format: 'awb' });
  // A campaign over "synthetic A": three annotators, YES on everything but a few dissenting votes.
  const campaign = createCampaign(db, { name: 'Check', protocol: 'march-validation', annotators: ['ann', 'bob', 'cid'], seed: 4, selection: { datasets: ['synthetic A'], perType: 4 } });
  campaignId = campaign.id;
  campaign.items.forEach((instanceId, n) => {
    for (const annotator of ['ann', 'bob', 'cid']) {
      const judging = new DatabaseJudging(db, campaignId, annotator);
      for (const criterion of ['ambiguity', 'clarification', 'long_answer']) {
        // The first item gets a NO majority on clarification; a few single dissents elsewhere.
        const no = (n === 0 && criterion === 'clarification' && annotator !== 'cid') || (n % 5 === 2 && annotator === 'bob' && criterion === 'ambiguity');
        judging.decide({ instanceId, criterion, value: no ? 'no' : 'yes', comment: '', itemMs: 100 });
      }
    }
  });
  workbench = new Workbench({ databasePath: dbFile, mode: 'browser', version: '0.1.0' });
  handlers = createHandlers(workbench);
});

// A release made by encoders checkpoints in the background: each test's is done before the next.
afterEach(() => checkpointsDone());

afterAll(() => {
  workbench?.close();
  db?.close();
  tmp.cleanup();
});

async function create(input: Input<'release:create'>): Promise<ReleaseSummary> {
  const started = await dispatch(handlers, 'release:create', input);
  if (!started.ok) throw new AppError(started.error.code, started.error.message, undefined, started.error.hint);
  const job = await workbench.jobs.wait((started.value as { jobId: string }).jobId);
  if (job.state !== 'done') throw new AppError(job.error?.code ?? 'internal', job.error?.message ?? 'failed', undefined, job.error?.hint);
  return jobResult('release:create', job);
}

const releaseCount = () => (db.prepare('SELECT count(*) AS n FROM releases').get() as { n: number }).n;
const partials = () => fs.readdirSync(tmp.dir).filter((f) => f.includes('.partial-'));
const readLines = (file: string) => fs.readFileSync(file, 'utf8').split('\n').filter(Boolean);

describe('release create', () => {
  let first: ReleaseSummary;

  it('writes the Hugging Face layout through dispatch, and sha256sum -c accepts the checksums', async () => {
    const out = tmp.file('rich-1.0.0');
    first = await create({ name: 'Rich', version: '1.0.0', out, selection: { datasets: ['Rich'] }, split: { mode: 'fractions', fractions: { train: 0.75, test: 0.25 }, seed: 7 } });
    expect(first.id).toBeGreaterThan(0);
    expect(first.counts).toEqual({ train: 12, test: 4 });
    expect(first.files.map((f) => f.path).sort()).toEqual([
      'README.md', 'checksums.sha256', 'data/test-00000-of-00001.parquet', 'data/test.jsonl', 'data/train-00000-of-00001.parquet', 'data/train.jsonl', 'release.json',
    ]);
    expect(first.files.find((f) => f.path === 'data/train.jsonl')?.rows).toBe(12);
    const check = spawnSync('sha256sum', ['-c', 'checksums.sha256'], { cwd: out, encoding: 'utf8' });
    expect(check.status).toBe(0);
    expect(check.stdout.trim().split('\n')).toHaveLength(6);
    // Stratified: both types are in both splits, in proportion (8 semantic, 8 constraint → 6 + 2 each).
    const types = (file: string) => readLines(path.join(out, file)).map((l) => (JSON.parse(l) as AwbRecord).instance!.ambiguity_type);
    expect(types('data/test.jsonl').sort()).toEqual(['constraint', 'constraint', 'semantic', 'semantic']);
    // The card: YAML front matter first, with the configs and features the Hub reads.
    const card = fs.readFileSync(path.join(out, 'README.md'), 'utf8');
    expect(card.startsWith('---\n')).toBe(true);
    const meta = parseYaml(card.split('---\n')[1]!) as Record<string, unknown> & { configs: { data_files: { split: string; path: string }[] }[]; dataset_info: { splits: { name: string; num_examples: number }[] } };
    expect(meta.license).toBe('cc-by-4.0');
    expect(meta.configs[0]!.data_files).toEqual([{ split: 'train', path: 'data/train-00000-of-00001.parquet' }, { split: 'test', path: 'data/test-00000-of-00001.parquet' }]);
    expect(meta.dataset_info.splits).toEqual([{ name: 'train', num_examples: 12 }, { name: 'test', num_examples: 4 }]);
    expect(card).toContain('| Interpretations per instance | 2.00 | 2.00 | 2.00 |');
    const metadata = JSON.parse(fs.readFileSync(path.join(out, 'release.json'), 'utf8')) as { counts: Record<string, number>; sources: { dataset: string; licence: string }[] };
    expect(metadata.counts).toEqual(first.counts);
    expect(metadata.sources).toEqual([{ dataset: 'Rich', licence: 'CC BY 4.0', attribution: 'Test authors', url: 'https://example.org/rich' }]);
  });

  it('gives byte-identical data files for the same selection, seed and content', async () => {
    const again = await create({ name: 'Rich', version: '1.0.1', out: tmp.file('rich-1.0.1'), selection: { datasets: ['Rich'] }, split: { mode: 'fractions', fractions: { train: 0.75, test: 0.25 }, seed: 7 } });
    for (const file of first.files.filter((f) => f.path.startsWith('data/'))) {
      expect(again.files.find((f) => f.path === file.path)?.sha256).toBe(file.sha256);
      expect(fs.readFileSync(path.join(again.dir, file.path)).equals(fs.readFileSync(path.join(first.dir, file.path)))).toBe(true);
    }
    const otherSeed = await create({ name: 'Rich', version: '1.0.2', out: tmp.file('rich-1.0.2'), selection: { datasets: ['Rich'] }, split: { mode: 'fractions', fractions: { train: 0.75, test: 0.25 }, seed: 8 } });
    expect(otherSeed.counts).toEqual(first.counts);
    expect(readLines(path.join(otherSeed.dir, 'data/test.jsonl'))).not.toEqual(readLines(path.join(first.dir, 'data/test.jsonl')));
  });

  it('writes the same files whether two encoder workers or the main thread encode them', async () => {
    const request = (version: string, out: string) => ({
      name: 'Threads', version, out, selection: { datasets: ['Rich'], types: [], statuses: [], campaignId: null, onlyValid: false },
      split: { mode: 'fractions' as const, fractions: { train: 0.75, test: 0.25 }, seed: 7 },
      gate: { minKappa: null, minAc1: null, minYesRate: null, minJudgments: null, noUnresolved: false }, licence: null, description: '', authors: '', force: null,
    });
    // The workers do start here (the release falls back to the main thread when they cannot).
    const pool = await EncoderPool.start(dbFile, 2);
    expect(pool?.size).toBe(2);
    await pool?.close();
    const writer = openDatabase(dbFile);
    try {
      const inWorker = await createRelease(writer, request('1.0.0', tmp.file('threads-worker')), { appVersion: 'test', encoders: 2, rowGroupRows: 3 });
      const inMain = await createRelease(writer, request('1.0.1', tmp.file('threads-main')), { appVersion: 'test', encoders: 0, rowGroupRows: 3 });
      const data = inMain.files.filter((f) => f.path.startsWith('data/'));
      expect(data).toHaveLength(4);
      for (const file of data) {
        expect(inWorker.files.find((f) => f.path === file.path)).toEqual(file);
        expect(fs.readFileSync(path.join(inWorker.dir, file.path)).equals(fs.readFileSync(path.join(inMain.dir, file.path)))).toBe(true);
      }
      expect(readParquetIndependently(fs.readFileSync(path.join(inWorker.dir, 'data/train-00000-of-00001.parquet'))).rows).toHaveLength(12);
    } finally {
      writer.close();
    }
  });

  it('stops the encoders it started before planning when the plan refuses, and when the release is written', async () => {
    const closed = vi.spyOn(EncoderPool.prototype, 'close');
    const writer = openDatabase(dbFile);
    try {
      const request = (version: string, out: string, selection = { datasets: ['Rich'] }) => ({ ...ReleaseCreateRequest.parse({ name: 'Early', version, selection }), out });
      const busy = tmp.file('early-busy');
      fs.mkdirSync(busy);
      fs.writeFileSync(path.join(busy, 'keep.txt'), 'mine');
      await expect(createRelease(writer, request('1.0.0', busy), { appVersion: 'test', encoders: 2 })).rejects.toMatchObject({ code: 'conflict' });
      expect(closed).toHaveBeenCalledTimes(1);
      expect(fs.readdirSync(busy)).toEqual(['keep.txt']);
      const refusedBy = await createRelease(writer, { ...request('1.0.1', tmp.file('early-gate')), gate: { ...ReleaseCreateRequest.parse({ name: 'x', version: '1.0.0' }).gate, minJudgments: 1_000 } }, { appVersion: 'test', encoders: 2 });
      expect(refusedBy.id).toBeNull();
      expect(closed).toHaveBeenCalledTimes(2);
      // A folder that cannot be made beside the output (its parent is a file).
      const file = tmp.file('early-file');
      fs.writeFileSync(file, 'not a folder');
      await expect(createRelease(writer, request('1.0.2', path.join(file, 'out')), { appVersion: 'test', encoders: 2 })).rejects.toMatchObject({ code: 'invalid_input' });
      expect(closed).toHaveBeenCalledTimes(3);
      const written = await createRelease(writer, request('1.0.2', tmp.file('early-written')), { appVersion: 'test', encoders: 2, rowGroupRows: 5 });
      expect(written.id).not.toBeNull();
      // Once written, they stop after the checkpoint they run in the background.
      await checkpointsDone();
      expect(closed).toHaveBeenCalledTimes(4);
    } finally {
      closed.mockRestore();
      writer.close();
    }
  });

  it('commits without checkpointing when encoders wrote the release, and one of them checkpoints the file afterwards', async () => {
    const writer = openDatabase(dbFile);
    try {
      writer.pragma('wal_autocheckpoint = 1234');
      const request = { ...ReleaseCreateRequest.parse({ name: 'Logged', version: '1.0.0', selection: { datasets: ['Rich'] } }), out: tmp.file('logged') };
      const written = await createRelease(writer, request, { appVersion: 'test', encoders: 2, rowGroupRows: 5 });
      // Held off until the encoder has checkpointed (its answer cannot arrive before this line runs), then put back.
      expect(writer.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
      await checkpointsDone();
      expect(writer.pragma('wal_autocheckpoint', { simple: true })).toBe(1234);
      // The database file alone, without its log, now holds the release and its frozen records.
      const copy = tmp.file('logged-copy.db');
      fs.copyFileSync(dbFile, copy);
      const alone = openDatabase(copy, { migrate: false });
      try {
        expect(alone.prepare('SELECT count(*) FROM release_instances WHERE release_id = ?').pluck().get(written.id)).toBe(16);
      } finally {
        alone.close();
      }
    } finally {
      writer.close();
    }
  });

  it('reads frozen records back in order decoding each chunk once, with more splits than the old cache held', async () => {
    const five = await create({
      name: 'Five splits', version: '1.0.0', out: tmp.file('five-splits'), selection: { datasets: ['Rich'] },
      split: { mode: 'fractions', fractions: { a: 0.2, b: 0.2, c: 0.2, d: 0.2, e: 0.2 }, seed: 3 },
    });
    const entries = (db.prepare('SELECT position, split, chunk, line FROM release_instances WHERE release_id = ? ORDER BY position').all(five.id!) as { position: number; split: string; chunk: number; line: number }[]);
    const chunks = new Set(entries.map((e) => e.chunk));
    expect(chunks.size).toBe(5);
    const frozen = new FrozenRecords(db, FrozenRecords.chunksFor(5));
    const keys = entries.map((e) => frozen.record<AwbRecord>(e).base_question.source_id);
    expect(frozen.decoded).toBe(5);
    expect(new Set(keys).size).toBeGreaterThan(1);
    for (const split of ['a', 'b', 'c', 'd', 'e']) {
      const lines = readLines(path.join(five.dir, `data/${split}.jsonl`));
      expect(entries.filter((e) => e.split === split).map((e) => frozen.line(e))).toEqual(lines);
    }
  });

  it('reports a published release as published, keeping it and its folder, when a progress listener throws after the commit', async () => {
    const out = tmp.file('listener-throws');
    const before = releaseCount();
    let finals = 0;
    const summary = await createRelease(db, { ...ReleaseCreateRequest.parse({ name: 'Listener', version: '1.0.0', selection: { datasets: ['Rich'] } }), out }, {
      appVersion: 'test',
      onProgress: (done, total) => {
        if (done === total && ++finals === 2) throw new Error('listener failed');
      },
    });
    // Work after the commit is best-effort: the release was written, so it is reported as written.
    expect(finals).toBe(2);
    expect(summary).toMatchObject({ name: 'Listener', version: '1.0.0', dir: out });
    expect(releaseCount()).toBe(before + 1);
    expect(fs.existsSync(path.join(out, 'checksums.sha256'))).toBe(true);
  });

  it('keeps a source split when asked', async () => {
    const summary = await create({ name: 'Rich by source', version: '1.0.0', out: tmp.file('rich-source'), selection: { datasets: ['Rich'] }, split: { mode: 'source' } });
    expect(summary.counts).toEqual({ dev: 4, train: 12 });
  });

  it('writes Parquet that an independent reader (parquet-wasm, arrow-rs) reads back, nested lists of structs included', () => {
    for (const split of ['train', 'test']) {
      const read = readParquetIndependently(fs.readFileSync(path.join(first.dir, `data/${split}-00000-of-00001.parquet`)));
      const expected = readLines(path.join(first.dir, `data/${split}.jsonl`)).map((l) => recordToRow(JSON.parse(l) as AwbRecord));
      expect(read.rows).toEqual(expected);
      expect(read.formats).toMatchObject({ key: 'u', hops: 'i', interpretations: '+l', evidence: '+l', long_answers: '+l', passages: '+l' });
      expect(read.nested(['interpretations', 'item'])).toBe('+s');
      expect(read.nested(['interpretations', 'item', 'short_answer'])).toBe('+s');
      expect(read.nested(['interpretations', 'item', 'short_answer', 'aliases'])).toBe('+l');
      expect(read.nested(['long_answers', 'item', 'citations', 'item', 'interpretation'])).toBe('i');
    }
    const row = readParquetIndependently(fs.readFileSync(path.join(first.dir, 'data/train-00000-of-00001.parquet'))).rows[0] as ReturnType<typeof recordToRow> & {
      interpretations: { short_answer: { aliases: string[]; start: number; end: number } | null; sub_questions: { answer: string | null }[]; citations: number[] }[];
      long_answers: { citations: { interpretation: number | null; start: number | null }[] }[];
    };
    expect(row.interpretations[0]!.short_answer).toMatchObject({ aliases: ['River Medway', 'the Medway'], start: 4, end: 10 });
    expect(row.interpretations[0]!.sub_questions[1]!.answer).toBeNull();
    expect(row.interpretations[0]!.citations).toEqual([1, 2]);
    expect(row.long_answers[0]!.citations).toEqual([{ passage: 'p1', interpretation: 0, start: 4, end: 10 }, { passage: 'p3', interpretation: null, start: null, end: null }]);
  });

  it('re-imports data/<split>.jsonl with awb import --format awb', () => {
    const target = tmp.file('reimport.db');
    const result = awbJson<{ imported: number; rejected: number }>(['import', path.join(first.dir, 'data/train.jsonl'), '--format', 'awb', '--db', target]);
    expect(result.status).toBe(0);
    expect(result.json.imported).toBe(12);
    expect(result.json.rejected).toBe(0);
  });

  it('verifies a folder, and finds a file changed after the fact', async () => {
    const ok = (await dispatch(handlers, 'release:verify', { dir: first.dir })) as { ok: true; value: VerifyReport };
    expect(ok.value.ok).toBe(true);
    expect(ok.value.checks.map((c) => c.name)).toEqual(expect.arrayContaining(['count train', 'count test', 'schema data/train-00000-of-00001.parquet', 'schema data/train.jsonl']));
    const copy = tmp.file('tampered');
    fs.cpSync(first.dir, copy, { recursive: true });
    fs.appendFileSync(path.join(copy, 'data/test.jsonl'), fs.readFileSync(path.join(copy, 'data/test.jsonl'), 'utf8').split('\n')[0] + '\n');
    const cli = awbJson<VerifyReport>(['release', 'verify', copy, '--db', dbFile]);
    expect(cli.status).toBe(1);
    expect(cli.json.checks.filter((c) => !c.ok).map((c) => c.name).sort()).toEqual(['checksum data/test.jsonl', 'count test', 'rows data/test.jsonl']);
  });
});

describe('the card', () => {
  it('reports the calls, models, cost and prompt versions of the pipeline that built the instances', async () => {
    const ids = db.prepare(`SELECT i.id FROM instances i JOIN datasets d ON d.id = i.dataset_id WHERE d.name = 'asqa_like' ORDER BY i.id`).all() as { id: number }[];
    const call = db.prepare(`INSERT INTO llm_calls (request_hash, endpoint, model, stage, request, status, cost_usd, item) VALUES (?, 'fake', ?, ?, '{}', 'ok', ?, ?) RETURNING id`);
    const provenance = db.prepare(`INSERT INTO provenance (source, detail, model, prompt_version, call_id) VALUES ('llm', '', ?, ?, ?)`);
    ids.forEach(({ id }, n) => {
      const clarify = call.get(`h-clarify-${id}`, 'gen-model', 'clarify', 0.002, `inst:${id}`) as { id: number };
      provenance.run('gen-model', 'clarify/3', clarify.id);
      if (n < 2) call.get(`h-filter-${id}`, 'judge-model', 'filter', 0.001, `inst:${id}`);
    });
    const summary = await create({ name: 'Built', version: '1.0.0', out: tmp.file('built'), selection: { datasets: ['asqa_like'] } });
    const card = fs.readFileSync(path.join(summary.dir, 'README.md'), 'utf8');
    expect(card).toContain('## Construction');
    expect(card).toContain('| clarify | gen-model | 6 | 0.0120 |');
    expect(card).toContain('| filter | judge-model | 2 | 0.0020 |');
    expect(card).toContain('In all: 8 calls, 0.0140 USD.');
    expect(card).toContain('Prompt versions: clarify clarify/3.');
  });
});

describe('frozen content and diff', () => {
  it('keeps a release unchanged by later edits, and the diff names what changed', async () => {
    const before = await create({ name: 'Frozen', version: '1.0.0', out: tmp.file('frozen-1'), selection: { datasets: ['Rich'], types: ['semantic'] } });
    const beforeLines = readLines(path.join(before.dir, 'data/train.jsonl'));
    run(db, sql`UPDATE base_questions SET question = 'Which river runs past the mill town, edited?' WHERE source_id = 'r001'`);
    const after = await create({ name: 'Frozen', version: '1.1.0', out: tmp.file('frozen-2'), selection: { datasets: ['Rich'] } });
    const diff = (await dispatch(handlers, 'release:diff', { a: before.id!, b: after.id! })) as { ok: true; value: ReleaseDiff };
    expect(diff.value.changed).toBe(1);
    expect(diff.value.added).toBe(8); // the constraint instances
    expect(diff.value.removed).toBe(0);
    expect(diff.value.unchanged).toBe(7);
    expect(diff.value.rows.find((r) => r.change === 'changed')).toMatchObject({
      key: 'Rich/r001/semantic',
      fields: ['base_question.question'],
      question: 'Which river runs past the mill town, edited?',
      changes: [{ field: 'base_question.question', before: 'Which river 1 runs past the old mill town?', after: 'Which river runs past the mill town, edited?' }],
    });
    // The stored release and its files did not move.
    const card = await dispatch(handlers, 'release:get', { id: before.id! });
    expect(card.ok && (card.value as { instances: number }).instances).toBe(8);
    expect(readLines(path.join(before.dir, 'data/train.jsonl'))).toEqual(beforeLines);
    // The frozen record, read back from its compressed chunk.
    const stored = db.prepare(`SELECT chunk, line FROM release_instances WHERE release_id = ? AND key = 'Rich/r001/semantic'`).get(before.id!) as { chunk: number; line: number };
    expect(new FrozenRecords(db).record<AwbRecord>(stored).base_question.question).toBe('Which river 1 runs past the old mill town?');
    const cli = awbJson<ReleaseDiff>(['release', 'diff', String(before.id), String(after.id), '--db', dbFile]);
    expect(cli.json.changed).toBe(1);
  });
});

describe('split moves', () => {
  it('names and counts instances that moved between splits first, with a table per split, and filters by kind', async () => {
    const splitOf = (dir: string) =>
      new Map(['train', 'test'].flatMap((split) => readLines(path.join(dir, `data/${split}.jsonl`)).map((l) => [keyOfLine(l), split] as const)));
    const keyOfLine = (line: string) => {
      const r = JSON.parse(line) as AwbRecord;
      return `${r.dataset.name}/${r.base_question.source_id}/${r.instance!.ambiguity_type}`;
    };
    const before = await create({ name: 'Moves', version: '1.0.0', selection: { datasets: ['Rich'] }, split: { mode: 'fractions', fractions: { train: 0.5, test: 0.5 }, seed: 7 } });
    // No folder given: releases/NAME-VERSION beside the database.
    expect(before.dir).toBe(path.join(path.dirname(dbFile), 'releases', 'Moves-1.0.0'));
    const after = await create({ name: 'Moves', version: '1.1.0', selection: { datasets: ['Rich'] }, split: { mode: 'fractions', fractions: { train: 0.5, test: 0.5 }, seed: 8 } });
    const a = splitOf(before.dir);
    const b = splitOf(after.dir);
    const moved = [...a].filter(([key, split]) => b.has(key) && b.get(key) !== split).map(([key]) => key).sort();
    expect(moved.length).toBeGreaterThan(0);
    const result = await dispatch(handlers, 'release:diff', { a: before.id!, b: after.id! });
    if (!result.ok) throw new Error(result.error.message);
    const diff = result.value as ReleaseDiff;
    expect(diff.moved).toBe(moved.length);
    expect(diff.moved + diff.added + diff.removed + diff.changed + diff.unchanged).toBe(new Set([...a.keys(), ...b.keys()]).size);
    const toTrain = moved.filter((key) => b.get(key) === 'train').length;
    expect(diff.moves).toEqual(
      [
        { from: 'test', to: 'train', count: toTrain },
        { from: 'train', to: 'test', count: moved.length - toTrain },
      ]
        .filter((m) => m.count > 0)
        .sort((x, y) => y.count - x.count || (x.from + x.to < y.from + y.to ? -1 : 1)),
    );
    // Moves come first, named by key, each with its question and the instance it froze.
    const listed = diff.rows.filter((r) => r.change === 'moved');
    expect(diff.rows.slice(0, listed.length)).toEqual(listed);
    expect(listed.map((r) => r.key).sort()).toEqual(moved);
    expect(listed[0]!.question).toMatch(/runs past/);
    expect(listed[0]!.instanceId).toBeGreaterThan(0);
    // Each split's rows add up: after = before − removed − moved out + added + moved in.
    for (const row of diff.perSplit) expect(row.after).toBe(row.before - row.removed - row.movedOut + row.added + row.movedIn);
    expect(diff.perSplit.map((r) => r.split)).toEqual(['test', 'train']);
    const onlyMoves = await dispatch(handlers, 'release:diff', { a: before.id!, b: after.id!, kinds: ['moved'], limit: 2 });
    if (!onlyMoves.ok) throw new Error(onlyMoves.error.message);
    const limited = onlyMoves.value as ReleaseDiff;
    expect(limited.rows.map((r) => r.change)).toEqual(['moved', 'moved']);
    expect(limited.truncated).toBe(moved.length > 2);
    expect(limited.moved).toBe(diff.moved);
    const cli = awb(['release', 'diff', String(before.id), String(after.id), '--db', dbFile]);
    expect(cli.stdout.split('\n')[1]).toBe(`  ${moved.length} moved between splits: ${diff.moves.map((m) => `${m.count} ${m.from} → ${m.to}`).join(', ')}`);
  });
});

describe('bad input', () => {
  it('refuses a selection that matches nothing, with no release and no folder', async () => {
    const out = tmp.file('nothing');
    const n = releaseCount();
    await expect(create({ name: 'Empty', version: '1.0.0', out, selection: { datasets: ['Rich'], types: ['syntactic'] } })).rejects.toMatchObject({ code: 'invalid_input', message: expect.stringMatching(/matches no instances/) });
    expect(releaseCount()).toBe(n);
    expect(fs.existsSync(out)).toBe(false);
    expect(partials()).toEqual([]);
  });

  it('refuses a version that already exists', async () => {
    await expect(create({ name: 'Rich', version: '1.0.0', out: tmp.file('again') , selection: { datasets: ['Rich'] } })).rejects.toMatchObject({ code: 'conflict', message: expect.stringMatching(/already exists/) });
    expect(fs.existsSync(tmp.file('again'))).toBe(false);
  });

  it('refuses an output folder that is not empty, and leaves it as it was', async () => {
    const out = tmp.file('busy');
    fs.mkdirSync(out);
    fs.writeFileSync(path.join(out, 'keep.txt'), 'mine');
    const n = releaseCount();
    await expect(create({ name: 'Busy', version: '1.0.0', out, selection: { datasets: ['Rich'] } })).rejects.toMatchObject({ code: 'conflict', message: expect.stringMatching(/not empty/) });
    expect(fs.readdirSync(out)).toEqual(['keep.txt']);
    expect(releaseCount()).toBe(n);
  });

  it('accepts an empty existing folder', async () => {
    const out = tmp.file('empty-folder');
    fs.mkdirSync(out);
    const summary = await create({ name: 'Into empty', version: '1.0.0', out, selection: { datasets: ['Rich'] } });
    expect(fs.readdirSync(out).sort()).toEqual(['README.md', 'checksums.sha256', 'data', 'release.json']);
    expect(summary.id).not.toBeNull();
  });

  it('leaves no partial folder and no release when the disk fills up half-way', async () => {
    const out = tmp.file('full-disk');
    const n = releaseCount();
    let written = 0;
    // A disk with 6 kB free: the writes fail with ENOSPC part of the way into the data files.
    const fullDisk = (file: string): FileSink => {
      const fd = fs.openSync(file, 'wx');
      return {
        write(bytes) {
          if (written + bytes.length > 6000) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
          written += bytes.length;
          fs.writeSync(fd, bytes);
        },
        close: () => fs.closeSync(fd),
      };
    };
    const writer = openDatabase(dbFile);
    try {
      await expect(
        createRelease(writer, { name: 'Full', version: '1.0.0', out, selection: { datasets: ['Rich'], types: [], statuses: [], campaignId: null, onlyValid: false }, split: { mode: 'fractions', fractions: { train: 1 }, seed: 1 }, gate: { minKappa: null, minAc1: null, minYesRate: null, minJudgments: null, noUnresolved: false }, licence: null, description: '', authors: '', force: null }, { appVersion: 'test', openSink: fullDisk, rowGroupRows: 2 }),
      ).rejects.toMatchObject({ message: expect.stringMatching(/disk filled up/) });
    } finally {
      writer.close();
    }
    expect(written).toBeGreaterThan(0);
    expect(fs.existsSync(out)).toBe(false);
    expect(partials()).toEqual([]);
    expect(releaseCount()).toBe(n);
    expect((db.prepare(`SELECT count(*) AS n FROM releases WHERE name = 'Full'`).get() as { n: number }).n).toBe(0);
  });

  it('refuses a campaign that judged another dataset', async () => {
    await expect(create({ name: 'Mixed', version: '1.0.0', out: tmp.file('mixed'), selection: { datasets: ['Rich'], campaignId } })).rejects.toMatchObject({
      code: 'invalid_input',
      message: expect.stringMatching(/judged instances of "synthetic A"/),
    });
    expect(fs.existsSync(tmp.file('mixed'))).toBe(false);
  });
});

describe('gate and licences', () => {
  it('refuses a release below the gate with the table of checks, writing nothing (CLI exits 1)', () => {
    const out = tmp.file('gated');
    const n = releaseCount();
    const result = awbJson<ReleaseSummary>(['release', 'create', 'Synthetic', '1.0.0', '--dataset', 'synthetic A', '--campaign', String(campaignId), '--min-kappa', '0.95', '--min-yes-rate', '0.5', '--out', out, '--db', dbFile]);
    expect(result.status).toBe(1);
    expect(Object.keys(result.json).sort()).toEqual(['counts', 'dir', 'files', 'gate', 'id', 'name', 'version']);
    expect(result.json.id).toBeNull();
    expect(result.json.gate.passed).toBe(false);
    const kappa = result.json.gate.checks.filter((c) => c.name.startsWith("Fleiss' kappa"));
    expect(kappa.map((c) => c.name)).toEqual(["Fleiss' kappa: ambiguity", "Fleiss' kappa: clarification", "Fleiss' kappa: long_answer"]);
    expect(kappa.every((c) => c.threshold === 0.95 && Object.hasOwn(c, 'value'))).toBe(true);
    expect(kappa.some((c) => !c.passed)).toBe(true);
    expect(result.json.gate.checks.filter((c) => c.name.startsWith('YES rate')).every((c) => c.passed)).toBe(true);
    expect(fs.existsSync(out)).toBe(false);
    expect(releaseCount()).toBe(n);
  });

  it('publishes with --force REASON, and the card says so', () => {
    const out = tmp.file('forced');
    const result = awbJson<ReleaseSummary>(['release', 'create', 'Synthetic', '1.0.0', '--dataset', 'synthetic A', '--campaign', String(campaignId), '--min-kappa', '0.95', '--force', 'pilot release for the workshop', '--out', out, '--db', dbFile]);
    expect(result.status).toBe(0);
    expect(result.json.id).not.toBeNull();
    expect(result.json.gate).toMatchObject({ passed: false, forced: 'pilot release for the workshop' });
    const card = fs.readFileSync(path.join(out, 'README.md'), 'utf8');
    expect(card).toContain('Published despite failed checks');
    expect(card).toContain('pilot release for the workshop');
    expect(card).toContain('## Human validation');
    expect(card).toMatch(/Fleiss' κ \[95% CI\]/);
    const list = awbJson<ReleaseListRow[]>(['release', 'list', '--db', dbFile]);
    expect(list.json.find((r) => r.id === result.json.id)).toMatchObject({ forced: 'pilot release for the workshop', gatePassed: false });
  });

  it('keeps only instances with a positive verdict with --only-valid', async () => {
    const summary = await create({ name: 'Valid only', version: '1.0.0', out: tmp.file('valid'), selection: { datasets: ['synthetic A'], campaignId, onlyValid: true }, split: { mode: 'fractions', fractions: { all: 1 }, seed: 1 } });
    // 12 judged items; the first has a NO majority on clarification.
    expect(summary.counts).toEqual({ all: 11 });
  });

  it('makes a release of share-alike sources share-alike, and refuses a licence that contradicts them unless forced', async () => {
    const asqa = { datasets: ['asqa_like'] };
    await expect(create({ name: 'ASQA', version: '1.0.0', out: tmp.file('asqa-by'), selection: asqa, licence: 'CC-BY-4.0' })).rejects.toMatchObject({
      code: 'conflict',
      message: expect.stringMatching(/CC-BY-SA-3\.0 \(share-alike\)/),
      // The way out as data, which each client words: the CLI's --force, the form's "Force" field.
      hint: { kind: 'force', field: 'force' },
    });
    expect(fs.existsSync(tmp.file('asqa-by'))).toBe(false);
    const summary = await create({ name: 'ASQA', version: '1.0.0', out: tmp.file('asqa'), selection: asqa });
    const card = fs.readFileSync(path.join(summary.dir, 'README.md'), 'utf8');
    expect(card).toContain('license: cc-by-sa-4.0');
    expect(card).toContain('**share-alike**');
    const forced = await create({ name: 'ASQA', version: '1.0.1', out: tmp.file('asqa-forced'), selection: asqa, licence: 'CC-BY-4.0', force: 'cleared with the authors' });
    expect(fs.readFileSync(path.join(forced.dir, 'README.md'), 'utf8')).toMatch(/Licence conflict.*cleared with the authors/);
  });

  it('previews counts, gate and card without writing', async () => {
    const n = releaseCount();
    const preview = await dispatch(handlers, 'release:preview', { name: 'Preview', version: '0.1.0', selection: { datasets: ['synthetic A'], campaignId }, gate: { minKappa: 0.95 } });
    expect(preview.ok).toBe(true);
    const value = (preview as { ok: true; value: { total: number; gate: { passed: boolean }; card: string; problems: string[] } }).value;
    expect(value.total).toBeGreaterThan(0);
    expect(value.gate.passed).toBe(false);
    expect(value.card).toContain('# Preview 0.1.0');
    expect(value.problems).toEqual([]);
    expect(releaseCount()).toBe(n);
  });

  it('plans a preview again only when the selection, splits, gate or data change, and puts the draft\'s own text in each time', async () => {
    const draft = ReleaseDraft.parse({ name: 'Typed', version: '0.1.0', selection: { datasets: ['Rich'] } });
    const options = { appVersion: 'test', date: '2026-11-26' };
    const first = previewPlan(db, draft, options);
    // Typing in the form: the same plan's work, the new text in the card and the checks.
    const typed = previewPlan(db, { ...draft, description: 'Typed on a Tuesday.', authors: 'A. Person', licence: 'MIT', version: '1.0.0' }, options);
    expect(typed.ids).toBe(first.ids);
    expect(typed.card).toMatchObject({ description: 'Typed on a Tuesday.', authors: 'A. Person', version: '1.0.0' });
    expect(typed.licence).toEqual(checkLicence(first.sources, 'MIT'));
    expect(typed.card.licence).toBe(typed.licence);
    // The selection, the splits, the gate, the day: planned again.
    expect(previewPlan(db, { ...draft, selection: { ...draft.selection, types: ['semantic'] } }, options).ids).not.toBe(first.ids);
    expect(previewPlan(db, { ...draft, split: { mode: 'fractions', fractions: { train: 0.5, test: 0.5 }, seed: 3 } }, options).ids).not.toBe(first.ids);
    expect(previewPlan(db, draft, { ...options, date: '2026-11-27' }).ids).not.toBe(first.ids);
    const again = previewPlan(db, draft, options);
    expect(previewPlan(db, { ...draft, gate: { ...draft.gate, minKappa: 0.5 } }, options).ids).not.toBe(again.ids);
    // The data: a write through this connection, then one through another.
    const held = previewPlan(db, draft, options);
    expect(previewPlan(db, draft, options).ids).toBe(held.ids);
    run(db, sql`UPDATE datasets SET description = description || '.' WHERE name = 'Rich'`);
    const afterOwn = previewPlan(db, draft, options);
    expect(afterOwn.ids).not.toBe(held.ids);
    const other = openDatabase(dbFile);
    run(other, sql`UPDATE datasets SET description = description || '.' WHERE name = 'Rich'`);
    other.close();
    const afterOther = previewPlan(db, draft, options);
    expect(afterOther.ids).not.toBe(afterOwn.ids);
    expect(afterOther.count).toBe(first.count);
    // A plan made inside a transaction may read what a rollback takes back: never kept.
    db.exec('BEGIN');
    run(db, sql`UPDATE datasets SET description = description || '!' WHERE name = 'Rich'`);
    const inside = previewPlan(db, draft, options);
    db.exec('ROLLBACK');
    expect(previewPlan(db, draft, options).ids).not.toBe(inside.ids);
    // A name and version taken since: refused, though the selection's plan is the one held.
    const taken = await create({ name: 'Typed', version: '0.2.0', out: tmp.file('typed-0.2.0'), selection: { datasets: ['Rich'] } });
    const held2 = previewPlan(db, draft, options);
    expect(previewPlan(db, { ...draft, version: taken.version }, options)).toMatchObject({ ids: held2.ids, problems: [expect.objectContaining({ code: 'conflict' })] });
  });

  it('reports coverage and counts an unjudged instance as judged by nobody, so a partly judged release fails "judgments per instance"', async () => {
    const judged = (db.prepare(`SELECT count(DISTINCT a.instance_id) AS n FROM assignments a JOIN judgments j ON j.assignment_id = a.id WHERE a.campaign_id = ?`).get(campaignId) as { n: number }).n;
    const preview = await dispatch(handlers, 'release:preview', { name: 'Coverage', version: '0.1.0', selection: { datasets: ['synthetic A'], campaignId }, gate: { minJudgments: 3 } });
    if (!preview.ok) throw new Error(preview.error.message);
    const { gate, total } = preview.value as { gate: GateResult; total: number };
    expect(judged).toBeGreaterThan(0);
    expect(judged).toBeLessThan(total);
    expect(gate.coverage).toEqual({ campaignId, judged, selected: total });
    expect(gate.checks).toEqual([{ name: 'judgments per instance', threshold: 3, value: 0, passed: false, note: `${total - judged} selected instances have no judgment` }]);
    expect(gate.verdict).toBe('refused');
    // Only the judged instances (only-valid keeps those with a YES verdict): every one has 3 annotators.
    const valid = await dispatch(handlers, 'release:preview', { name: 'Coverage', version: '0.1.0', selection: { datasets: ['synthetic A'], campaignId, onlyValid: true }, gate: { minJudgments: 3 } });
    if (!valid.ok) throw new Error(valid.error.message);
    const validGate = (valid.value as { gate: GateResult }).gate;
    expect(validGate.checks[0]).toMatchObject({ value: 3, passed: true, note: null });
    expect(validGate.coverage!.judged).toBe(validGate.coverage!.selected);
    // No thresholds: not checked, never "passed", in the answer and in the card.
    const none = await dispatch(handlers, 'release:preview', { name: 'Coverage', version: '0.1.0', selection: { datasets: ['synthetic A'], campaignId } });
    if (!none.ok) throw new Error(none.error.message);
    expect((none.value as { gate: GateResult }).gate).toMatchObject({ verdict: 'not checked', checks: [], coverage: { judged, selected: total } });
    expect((none.value as { card: string }).card).toMatch(/Not checked: no thresholds were set/);
    expect((none.value as { card: string }).card).toContain(`Coverage: campaign ${campaignId} judged ${judged} of ${total} selected instances`);
  });

  it('reads the campaign\'s judgments once for a preview (every statement on them runs once)', () => {
    const statements: string[] = [];
    const traced = openDatabase(dbFile, { trace: (statement) => statements.push(statement) });
    try {
      const draft = ReleaseDraft.parse({ name: 'Once', version: '0.1.0', selection: { datasets: ['synthetic A'], campaignId } });
      expect(previewRelease(traced, draft, 'test').total).toBeGreaterThan(0);
    } finally {
      traced.close();
    }
    const judgmentReads = statements.filter((statement) => /\bFROM judgments\b/.test(statement));
    // The whole matrix: the latest judgment of every assignment and criterion of the campaign.
    expect(judgmentReads.filter((statement) => /s\.campaign_id = /.test(statement) && /max\(id\)/.test(statement))).toHaveLength(1);
    expect(judgmentReads).toEqual([...new Set(judgmentReads)]);
  });
});

describe('CLI', () => {
  it('creates, lists and shows a release with --json, the version positional', () => {
    const out = tmp.file('cli');
    const created = awbJson<ReleaseSummary>(['release', 'create', 'CLI rel', '2.0.0', '--dataset', 'Rich', '--type', 'semantic', '--split', 'train=0.5,test=0.5', '--seed', '3', '--out', out, '--db', dbFile]);
    expect(created.status).toBe(0);
    expect(created.json).toMatchObject({ name: 'CLI rel', version: '2.0.0', dir: out, counts: { train: 4, test: 4 }, gate: { passed: true, checks: [] } });
    expect(created.json.files.every((f) => /^[0-9a-f]{64}$/.test(f.sha256))).toBe(true);
    const shown = awbJson<{ id: number; name: string; card: string }>(['release', 'show', String(created.json.id), '--db', dbFile]);
    expect(shown.json.card).toBe(fs.readFileSync(path.join(out, 'README.md'), 'utf8'));
    const bad = awb(['release', 'create', 'CLI rel', 'one', '--out', tmp.file('x'), '--db', dbFile]);
    expect(bad.status).toBe(2);
    expect(bad.stderr + bad.stdout).toMatch(/semantic version/);
  });
});
