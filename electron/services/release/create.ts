import fs from 'node:fs';
import path from 'node:path';
import {
  beginReleaseWrite,
  commitReleaseWrite,
  finishRelease,
  insertRelease,
  insertReleaseContent,
  insertReleaseInstance,
  rollbackReleaseWrite,
} from '../../../db/queries/releases';
import type { WritableDB } from '../../../db/sql';
import { AppError, type ReleaseCreateRequest, type ReleaseDraft, type ReleaseFile, type ReleasePreview, type ReleaseSummary } from '../../../shared/api';
import { AWB_FORMAT } from '../../../shared/awb-format';
import { dataFileName, renderCard } from '../../../shared/release/card';
import { keyOf, recordToRow, schemaRows } from '../../../shared/release/schema';
import { readInBatches, readInstanceRecords } from '../records';
import { checksumsText, HashedFile, JsonlFile, openFileSink, ParquetFile, sha256, type OpenSink } from './files';
import { ParquetPool } from './parquet-pool';
import { planRelease, plannedInstances, type ReleasePlan } from './plan';

/**
 * Creating a release: plan (read only), check the gate and the licence, then write every file
 * into a temporary folder beside the output folder while the frozen records go into the database
 * in one transaction; the folder is renamed into place and the transaction committed only when
 * everything is written. Any failure (a full disk, a cancel) removes the temporary folder and
 * rolls the transaction back, so neither a half-written folder nor a partial release remains.
 */

export const RELEASE_FORMAT = 'awb-release/1';

export interface CreateOptions {
  appVersion: string;
  signal?: AbortSignal;
  onProgress?: (done: number, total: number) => void;
  /** Tests: where bytes go (a sink that fails plays a full disk). */
  openSink?: OpenSink;
  /** Instances per Parquet row group (default 10,000). */
  rowGroupRows?: number;
  /** Fixed date for the card (tests); default today. */
  date?: string;
  /**
   * Encode Parquet in a worker thread: by default for releases of 5,000 instances or more (below
   * that, starting the worker costs more than it saves); never with `openSink`.
   */
  parquetWorker?: boolean;
}

const WORKER_FROM = 5000;

const today = () => new Date().toISOString().slice(0, 10);

export function previewRelease(db: WritableDB, draft: ReleaseDraft, appVersion: string): ReleasePreview {
  const plan = planRelease(db, draft, { appVersion, date: today() });
  return {
    counts: plan.counts,
    total: plan.count,
    perType: plan.perType,
    gate: plan.gate,
    licence: plan.licence,
    problems: plan.problems.map((p) => p.message),
    card: renderCard({ ...plan.card, gate: plan.gate, licenceForced: null }),
  };
}

function checkOutputFolder(out: string): void {
  if (!fs.existsSync(out)) return;
  const stat = fs.statSync(out);
  if (!stat.isDirectory()) throw new AppError('conflict', `${out} exists and is not a folder; choose an empty or new folder.`);
  if (fs.readdirSync(out).length) throw new AppError('conflict', `${out} is not empty; a release is written into an empty or new folder.`);
}

function refused(plan: ReleasePlan, out: string): ReleaseSummary {
  return { id: null, name: plan.draft.name, version: plan.draft.version, dir: out, counts: plan.counts, files: [], gate: plan.gate };
}

/** The planned instances in order, each with its record, read in batches. */
function* batchedRecords(db: WritableDB, plan: ReleasePlan) {
  for (const batch of readInBatches(db, plannedInstances(plan), (item) => item.id, readInstanceRecords)) yield* batch;
}

export async function createRelease(db: WritableDB, request: ReleaseCreateRequest, options: CreateOptions): Promise<ReleaseSummary> {
  const out = path.resolve(request.out);
  const date = options.date ?? today();
  // One transaction from the first read to the commit: the instances cannot move in between.
  beginReleaseWrite(db);
  let plan: ReleasePlan;
  try {
    plan = planRelease(db, request, { appVersion: options.appVersion, date });
    const problem = plan.problems[0];
    if (problem) throw new AppError(problem.code, problem.message);
    checkOutputFolder(out);
    if (!plan.licence.compatible && !request.force) {
      throw new AppError('conflict', `The release licence contradicts its sources: ${plan.licence.problems.join('; ')}. Choose a compatible licence, or publish anyway with --force REASON.`, {
        licence: plan.licence,
      });
    }
  } catch (error) {
    rollbackReleaseWrite(db);
    throw error;
  }
  // The gate refuses: nothing is written, and the checks come back as data (exit 1 in the CLI).
  if (!plan.gate.passed && !request.force) {
    rollbackReleaseWrite(db);
    return refused(plan, out);
  }
  const gate = { ...plan.gate, forced: plan.gate.passed ? null : request.force };
  const licenceForced = plan.licence.compatible ? null : request.force;
  const card = renderCard({ ...plan.card, gate, licenceForced });

  const temporary = `${out}.partial-${process.pid}-${Date.now().toString(36)}`;
  try {
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.mkdirSync(temporary);
  } catch (error) {
    rollbackReleaseWrite(db);
    throw new AppError('invalid_input', `Cannot write beside ${out}: ${(error as Error).message}`);
  }
  const open = options.openSink ?? openFileSink;
  const opened: { abort(): void }[] = [];
  let renamed = false;
  let pool: ParquetPool | null = null;
  try {
    const releaseId = insertRelease(db, {
      name: request.name,
      version: request.version,
      selection: request.selection,
      split: request.split,
      thresholds: request.gate,
      gate,
      licence: plan.licence.licence,
      forcedReason: request.force && (!plan.gate.passed || !plan.licence.compatible) ? request.force : null,
      counts: plan.counts,
      instances: plan.count,
      card,
      appVersion: options.appVersion,
      schemaVersion: plan.card.schemaVersion,
      dir: out,
    });
    // Nothing release-specific (name, version, date) inside data files: same content, same bytes.
    const kv = [{ key: 'awb.format', value: RELEASE_FORMAT }];
    const rowGroupRows = options.rowGroupRows ?? 10_000;
    const wantWorker = !options.openSink && (options.parquetWorker ?? plan.count >= WORKER_FROM);
    pool = wantWorker ? await ParquetPool.start() : null;
    const writers = new Map(
      plan.splits.map((split, index) => {
        const jsonl = new JsonlFile(dataFileName(split, 'jsonl'), temporary, open);
        opened.push(jsonl.file);
        let parquet: ParquetFile | null = null;
        if (pool) pool.open(index, dataFileName(split, 'parquet'), temporary, rowGroupRows, kv);
        else {
          parquet = new ParquetFile(dataFileName(split, 'parquet'), temporary, open, rowGroupRows, kv);
          opened.push(parquet.file);
        }
        return [split, { index, jsonl, parquet }] as const;
      }),
    );
    let done = 0;
    // Records are read a batch at a time: one query per table per batch, not a dozen per instance.
    for (const { item, record } of batchedRecords(db, plan)) {
      const line = JSON.stringify(record);
      const hash = sha256(line);
      insertReleaseContent(db, hash, line);
      insertReleaseInstance(db, {
        releaseId,
        key: keyOf(record.dataset.name, record.base_question.source_id, item.type),
        split: item.split,
        position: item.index,
        ambiguityType: item.type,
        instanceId: item.id,
        sha256: hash,
      });
      const writer = writers.get(item.split)!;
      writer.jsonl.add(line);
      if (writer.parquet) writer.parquet.add(recordToRow(record));
      else pool!.add(writer.index, line);
      if (++done % 1000 === 0) {
        options.onProgress?.(done, plan.count);
        await new Promise((resolve) => setImmediate(resolve));
        await pool?.throttle();
        if (options.signal?.aborted) throw new AppError('cancelled', 'Release cancelled; nothing was written.');
      }
    }
    const dataFiles: (ReleaseFile & { bytes: number })[] = [];
    for (const split of plan.splits) {
      const w = writers.get(split)!;
      dataFiles.push({ path: w.jsonl.file.relativePath, sha256: w.jsonl.finish(), rows: w.jsonl.file.rows, bytes: w.jsonl.file.bytes });
      const parquetPath = dataFileName(split, 'parquet');
      if (w.parquet) dataFiles.push({ path: parquetPath, sha256: w.parquet.finish(), rows: w.parquet.file.rows, bytes: w.parquet.file.bytes });
      else dataFiles.push({ path: parquetPath, ...(await pool!.finish(w.index)) });
    }
    dataFiles.sort((a, b) => (a.path < b.path ? -1 : 1));
    const metadata = {
      format: RELEASE_FORMAT,
      name: request.name,
      version: request.version,
      created: date,
      app_version: options.appVersion,
      schema_version: plan.card.schemaVersion,
      record_format: AWB_FORMAT,
      selection: request.selection,
      split: request.split,
      splits: plan.splits,
      counts: plan.counts,
      per_type: plan.perType,
      instances: plan.count,
      gate: { thresholds: request.gate, ...gate },
      licence: { ...plan.licence, forced: licenceForced },
      sources: plan.sources,
      agreement: plan.agreement,
      files: dataFiles,
      parquet_schema: schemaRows(),
    };
    const writeWhole = (relativePath: string, text: string): ReleaseFile => {
      const file = new HashedFile(relativePath, temporary, open);
      opened.push(file);
      file.write(Buffer.from(text, 'utf8'));
      return { path: relativePath, sha256: file.finish(), rows: null };
    };
    const others = [writeWhole('README.md', card), writeWhole('release.json', `${JSON.stringify(metadata, null, 2)}\n`)];
    const covered = [...others, ...dataFiles.map(({ path: p, sha256: s, rows }) => ({ path: p, sha256: s, rows }))].sort((a, b) => (a.path < b.path ? -1 : 1));
    const checksums = writeWhole('checksums.sha256', checksumsText(covered));
    const files = [...covered, checksums];
    finishRelease(db, releaseId, files, metadata);
    if (fs.existsSync(out)) {
      // An empty folder given as the output: replace it (renaming onto a folder is not portable).
      checkOutputFolder(out);
      fs.rmdirSync(out);
    }
    fs.renameSync(temporary, out);
    renamed = true;
    commitReleaseWrite(db);
    options.onProgress?.(plan.count, plan.count);
    await pool?.close();
    return { id: releaseId, name: request.name, version: request.version, dir: out, counts: plan.counts, files, gate };
  } catch (error) {
    rollbackReleaseWrite(db);
    await pool?.close(true);
    pool = null;
    for (const file of opened) file.abort();
    fs.rmSync(renamed ? out : temporary, { recursive: true, force: true });
    if (error instanceof AppError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOSPC' || code === 'EDQUOT') {
      throw new AppError('internal', `The disk filled up while writing the release; nothing was published and the partial files were removed (${(error as Error).message}).`);
    }
    throw error;
  }
}
