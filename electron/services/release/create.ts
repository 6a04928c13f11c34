import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { checkpointsDone, commitThenCheckpoint } from '../checkpoints';
import { countInstances } from '../../../db/queries/instances';
import { finishRelease, insertRelease } from '../../../db/queries/releases';
import { beginWrite, commit, rollback, type WritableDB } from '../../../db/sql';
import { AppError, InstanceFilter, type ReleaseCreateRequest, type ReleaseDraft, type ReleaseFile, type ReleasePreview, type ReleaseSummary } from '../../../shared/api';
import { AWB_FORMAT } from '../../../shared/awb-format';
import { renderCard } from '../../../shared/release/card';
import { schemaRows } from '../../../shared/release/schema';
import { EncoderPool } from './encoder-pool';
import { encodeInstances, type SplitOutput } from './encode-instances';
import { checksumsText, HashedFile, openFileSink } from './files';
import { planRelease, previewPlan, type ReleasePlan } from './plan';
import { RELEASE_FORMAT, type CreateOptions, type ReleaseWriting } from './writing';

/**
 * Creating a release: plan (read only), check the gate and the licence, then write every file
 * into a temporary folder beside the output folder while the frozen records go into the database
 * in one transaction; the folder is renamed into place and the transaction committed only when
 * everything is written. Any failure (a full disk, a cancel) removes the temporary folder and
 * rolls the transaction back, so neither a half-written folder nor a partial release remains.
 */

const WORKER_FROM = 5000;

const today = () => new Date().toISOString().slice(0, 10);

export function previewRelease(db: WritableDB, draft: ReleaseDraft, appVersion: string): ReleasePreview {
  const plan = previewPlan(db, draft, { appVersion, date: today() });
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

/** Whether a process with this id runs (one we may not signal runs too). */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes what a killed release left beside `out`: `<out>.partial-<pid>-<suffix>` folders whose
 * process no longer runs (a release still being written by a live process is left alone).
 */
export function removeStalePartials(out: string): string[] {
  const prefix = `${path.basename(out)}.partial-`;
  let names: string[];
  try {
    names = fs.readdirSync(path.dirname(out));
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const pid = Number(/^(\d+)-[a-z0-9]+$/.exec(name.slice(prefix.length))?.[1] ?? NaN);
    if (!name.startsWith(prefix) || !Number.isSafeInteger(pid) || pid === process.pid || processAlive(pid)) continue;
    fs.rmSync(path.join(path.dirname(out), name), { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}

function refused(plan: ReleasePlan, out: string): ReleaseSummary {
  return { id: null, name: plan.draft.name, version: plan.draft.version, dir: out, counts: plan.counts, files: [], gate: plan.gate };
}

/** Writes a release to `request.out` (the handler resolves the default folder first). */
export async function createRelease(db: WritableDB, request: ReleaseCreateRequest & { out: string }, options: CreateOptions): Promise<ReleaseSummary> {
  const out = path.resolve(request.out);
  const date = options.date ?? today();
  // One transaction from the first read to the commit: the instances cannot move in between.
  removeStalePartials(out);
  // A previous release's checkpoint first: a write while it runs keeps SQLite from restarting the log.
  await checkpointsDone();
  // The encoders start while the plan is made: their start-up (loading code, opening the file) overlaps it.
  const starting = startEncoders(db, options);
  let plan: ReleasePlan;
  let temporary: string | null = null;
  try {
    // Another writer's lock (an import in another process) is waited for.
    await beginWrite(db, options.signal ? { signal: options.signal } : {});
    plan = checkedPlan(db, request, options, date, out);
    // The gate refuses: nothing is written, and the checks come back as data (exit 1 in the CLI).
    if (plan.gate.passed || request.force) temporary = temporaryFolder(db, out);
  } catch (error) {
    await stopEncoders(starting);
    throw error;
  }
  if (temporary === null) {
    rollback(db);
    await stopEncoders(starting);
    return refused(plan, out);
  }
  const writing: ReleaseWriting = {
    db,
    plan,
    request,
    options,
    out,
    temporary,
    open: options.openSink ?? openFileSink,
    opened: [],
    gate: { ...plan.gate, forced: plan.gate.passed ? null : request.force },
    licenceForced: plan.licence.compatible ? null : request.force,
  };
  let renamed = false;
  let committed: ReleaseSummary;
  let pool: EncoderPool | null = null;
  try {
    pool = await starting;
    // Started for a large database, but this release is small: encoded here after all.
    if (pool && options.encoders === undefined && plan.count < WORKER_FROM) {
      await pool.close();
      pool = null;
    }
    const releaseId = insertReleaseRow(writing);
    if (options.signal?.aborted) throw new AppError('cancelled', 'Release cancelled; nothing was written.');
    const outputs = await encodeInstances(writing, releaseId, pool);
    const files = writeReleaseFiles(writing, releaseId, outputs, date);
    moveIntoPlace(writing.temporary, out);
    renamed = true;
    // With encoders, one of them checkpoints the log this commit leaves, in the background.
    if (pool) commitThenCheckpoint(db, pool.checkpointAndClose.bind(pool));
    else commit(db);
    committed = { id: releaseId, name: request.name, version: request.version, dir: out, counts: plan.counts, files, gate: writing.gate };
  } catch (error) {
    rollback(db);
    await pool?.close();
    pool = null;
    for (const file of writing.opened) file.abort();
    fs.rmSync(renamed ? out : writing.temporary, { recursive: true, force: true });
    throw releaseFailure(error);
  }
  // Published: whatever happens from here (a progress listener that throws, a worker that will
  // not stop) must not touch the committed release or its folder, nor report it as failed.
  try {
    options.onProgress?.(plan.count, plan.count);
  } catch {
    // Best-effort: the release is committed.
  }
  return committed;
}

/**
 * The encoder workers for a release, started before its plan: as many as asked, else two (one per
 * core) when the database holds enough instances that the release may need them (the plan, which
 * counts the release's own, decides whether they are used).
 */
function startEncoders(db: WritableDB, options: CreateOptions): Promise<EncoderPool | null> {
  const count = options.encoders ?? (countInstances(db, InstanceFilter.parse({})) >= WORKER_FROM ? Math.min(2, os.availableParallelism()) : 0);
  // Never rejects (a worker that cannot start is left out), but is awaited only after the plan.
  return count > 0 ? EncoderPool.start(db.name, count).catch(() => null) : Promise.resolve(null);
}

async function stopEncoders(starting: Promise<EncoderPool | null>): Promise<void> {
  await (await starting)?.close().catch(() => undefined);
}

/** The plan, refused (with the transaction rolled back) for a problem, a used output folder or a licence conflict not overridden. */
function checkedPlan(db: WritableDB, request: ReleaseCreateRequest, options: CreateOptions, date: string, out: string): ReleasePlan {
  try {
    const plan = planRelease(db, request, { appVersion: options.appVersion, date, deferFunnel: true });
    const problem = plan.problems[0];
    if (problem) throw new AppError(problem.code, problem.message);
    checkOutputFolder(out);
    if (!plan.licence.compatible && !request.force) {
      throw new AppError(
        'conflict',
        `The release licence contradicts its sources: ${plan.licence.problems.join('; ')}. Choose a compatible licence, or publish anyway with a reason the card will record.`,
        { licence: plan.licence },
        { kind: 'force', field: 'force' },
      );
    }
    return plan;
  } catch (error) {
    rollback(db);
    throw error;
  }
}

/** A new folder beside the output folder, to write the release into. */
function temporaryFolder(db: WritableDB, out: string): string {
  const temporary = `${out}.partial-${process.pid}-${Date.now().toString(36)}`;
  try {
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.mkdirSync(temporary);
  } catch (error) {
    rollback(db);
    throw new AppError('invalid_input', `Cannot write beside ${out}: ${(error as Error).message}`);
  }
  return temporary;
}

function insertReleaseRow({ db, plan, request, options, out, gate }: ReleaseWriting): number {
  return insertRelease(db, {
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
    card: '', // written with the files, once the funnel is counted
    appVersion: options.appVersion,
    schemaVersion: plan.card.schemaVersion,
    dir: out,
  });
}

/** The written folder renamed to the output folder (an empty folder given as the output is replaced: renaming onto a folder is not portable). */
function moveIntoPlace(temporary: string, out: string): void {
  if (fs.existsSync(out)) {
    checkOutputFolder(out);
    fs.rmdirSync(out);
  }
  fs.renameSync(temporary, out);
}

/** A failure while writing, as the caller should see it: a full disk says so. */
function releaseFailure(error: unknown): unknown {
  if (error instanceof AppError) return error;
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOSPC' || code === 'EDQUOT') {
    return new AppError('internal', `The disk filled up while writing the release; nothing was published and the partial files were removed (${(error as Error).message}).`);
  }
  return error;
}

/** The card, release.json and checksums beside the data files; the release row finished with them. */
function writeReleaseFiles(writing: ReleaseWriting, releaseId: number, outputs: SplitOutput[], date: string): ReleaseFile[] {
  const { db, plan, request, options, gate, licenceForced } = writing;
  const card = renderCard({ ...plan.card, gate, licenceForced });
  const dataFiles: (ReleaseFile & { bytes: number })[] = [];
  plan.splits.forEach((_, index) => {
    const { jsonl, parquet } = outputs[index]!;
    dataFiles.push({ path: jsonl.relativePath, sha256: jsonl.finish(), rows: jsonl.rows, bytes: jsonl.bytes });
    dataFiles.push({ path: parquet.file.relativePath, sha256: parquet.finish(), rows: parquet.file.rows, bytes: parquet.file.bytes });
  });
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
    description: request.description,
    authors: request.authors,
    gate: { thresholds: request.gate, ...gate },
    licence: { ...plan.licence, requested: request.licence, forced: licenceForced },
    sources: plan.sources,
    agreement: plan.agreement,
    files: dataFiles,
    parquet_schema: schemaRows(),
  };
  const writeWhole = (relativePath: string, text: string): ReleaseFile => {
    const file = new HashedFile(relativePath, writing.temporary, writing.open);
    writing.opened.push(file);
    file.write(Buffer.from(text, 'utf8'));
    return { path: relativePath, sha256: file.finish(), rows: null };
  };
  const others = [writeWhole('README.md', card), writeWhole('release.json', `${JSON.stringify(metadata, null, 2)}\n`)];
  const covered = [...others, ...dataFiles.map(({ path: p, sha256: s, rows }) => ({ path: p, sha256: s, rows }))].sort((a, b) => (a.path < b.path ? -1 : 1));
  const checksums = writeWhole('checksums.sha256', checksumsText(covered));
  const files = [...covered, checksums];
  finishRelease(db, releaseId, files, metadata, card);
  return files;
}
