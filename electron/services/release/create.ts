import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { finishRelease, insertRelease, insertReleaseChunk, insertReleaseInstances, type ReleaseInstanceRow } from '../../../db/queries/releases';
import { beginWrite, commit, rollback, type WritableDB } from '../../../db/sql';
import { AppError, type ReleaseCreateRequest, type ReleaseDraft, type ReleaseFile, type ReleasePreview, type ReleaseSummary } from '../../../shared/api';
import { AWB_FORMAT } from '../../../shared/awb-format';
import { AMBIGUITY_TYPES } from '../../../shared/domain';
import { dataFileName, renderCard } from '../../../shared/release/card';
import { RELEASE_COLUMNS, schemaRows } from '../../../shared/release/schema';
import { Shredder } from '../../../shared/release/shred';
import { encodeTask, type EncodedPart, type EncodeTask } from './encode';
import { EncoderPool } from './encoder-pool';
import { checksumsText, HashedFile, openFileSink, ParquetAssembler, type OpenSink } from './files';
import { completeFunnel, planRelease, type ReleasePlan } from './plan';

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
  /** Instances per Parquet row group (default 10,000); also the size of one encoding task. */
  rowGroupRows?: number;
  /** Fixed date for the card (tests); default today. */
  date?: string;
  /**
   * Encoder workers (encode.ts). By default one per core, at most two, for releases of 5,000
   * instances or more (below that, starting them costs more than they save); 0 encodes on the
   * main thread, as it does when the database is in memory.
   */
  encoders?: number;
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

/** What the main thread keeps of a task while it is encoded: where its results go. */
interface TaskMeta {
  split: number;
  positions: Int32Array;
  ids: Float64Array;
  types: Uint8Array;
}

export async function createRelease(db: WritableDB, request: ReleaseCreateRequest, options: CreateOptions): Promise<ReleaseSummary> {
  const out = path.resolve(request.out);
  const date = options.date ?? today();
  removeStalePartials(out);
  // One transaction from the first read to the commit: the instances cannot move in between.
  // Another writer's lock (an import in another process) is waited for.
  await beginWrite(db, options.signal ? { signal: options.signal } : {});
  let plan: ReleasePlan;
  try {
    plan = planRelease(db, request, { appVersion: options.appVersion, date, deferFunnel: true });
    const problem = plan.problems[0];
    if (problem) throw new AppError(problem.code, problem.message);
    checkOutputFolder(out);
    if (!plan.licence.compatible && !request.force) {
      throw new AppError('conflict', `The release licence contradicts its sources: ${plan.licence.problems.join('; ')}. Choose a compatible licence, or publish anyway with --force REASON.`, {
        licence: plan.licence,
      });
    }
  } catch (error) {
    rollback(db);
    throw error;
  }
  // The gate refuses: nothing is written, and the checks come back as data (exit 1 in the CLI).
  if (!plan.gate.passed && !request.force) {
    rollback(db);
    return refused(plan, out);
  }
  const gate = { ...plan.gate, forced: plan.gate.passed ? null : request.force };
  const licenceForced = plan.licence.compatible ? null : request.force;

  const temporary = `${out}.partial-${process.pid}-${Date.now().toString(36)}`;
  try {
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.mkdirSync(temporary);
  } catch (error) {
    rollback(db);
    throw new AppError('invalid_input', `Cannot write beside ${out}: ${(error as Error).message}`);
  }
  const open = options.openSink ?? openFileSink;
  const opened: { abort(): void }[] = [];
  let renamed = false;
  let committed: ReleaseSummary;
  let pool: EncoderPool | null = null;
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
      card: '', // written with the files, once the funnel is counted
      appVersion: options.appVersion,
      schemaVersion: plan.card.schemaVersion,
      dir: out,
    });
    // Nothing release-specific (name, version, date) inside data files: same content, same bytes.
    const kv = [{ key: 'awb.format', value: RELEASE_FORMAT }];
    const rowGroupRows = options.rowGroupRows ?? 10_000;
    const outputs = plan.splits.map((split) => {
      const jsonl = new HashedFile(dataFileName(split, 'jsonl'), temporary, open);
      const parquet = new ParquetAssembler(dataFileName(split, 'parquet'), temporary, open, kv);
      opened.push(jsonl, parquet.file);
      return { jsonl, parquet };
    });
    const encoders = options.encoders ?? (plan.count >= WORKER_FROM ? Math.min(2, os.availableParallelism()) : 0);
    pool = encoders > 0 ? await EncoderPool.start(db.name, encoders) : null;
    if (options.signal?.aborted) throw new AppError('cancelled', 'Release cancelled; nothing was written.');
    const shredder = new Shredder(RELEASE_COLUMNS);
    const encode = (task: EncodeTask): Promise<EncodedPart> => (pool ? pool.run(task) : Promise.resolve().then(() => encodeTask(db, task, shredder)));

    // Tasks: a row group's worth of one split's instances, in key order, encoded in parallel and
    // written in the order they were made (so every file's bytes are the same whatever the timing).
    const queue: { meta: TaskMeta; part: Promise<EncodedPart> }[] = [];
    const maxQueued = pool ? pool.size * 2 : 1;
    const buckets = plan.splits.map(() => ({ positions: [] as number[], ids: [] as number[], types: [] as number[] }));
    let seq = 0;
    let done = 0;
    let funnelCounted = false;
    const dispatch = (split: number) => {
      const bucket = buckets[split]!;
      if (!bucket.ids.length) return;
      const meta: TaskMeta = { split, positions: Int32Array.from(bucket.positions), ids: Float64Array.from(bucket.ids), types: Uint8Array.from(bucket.types) };
      buckets[split] = { positions: [], ids: [], types: [] };
      const part = encode({ seq: seq++, ids: meta.ids.slice(), types: meta.types.slice() });
      part.catch(() => undefined); // a failure surfaces when the part is taken, in order
      queue.push({ meta, part });
    };
    const take = async () => {
      const { meta, part: pending } = queue.shift()!;
      const part = await pending;
      if (part.keys.length !== meta.ids.length) throw new AppError('internal', `A release task came back with ${part.keys.length} of ${meta.ids.length} records.`);
      const split = plan.splits[meta.split]!;
      const output = outputs[meta.split]!;
      output.jsonl.write(part.jsonl);
      output.jsonl.rows += meta.ids.length;
      output.parquet.append(part.group);
      let entries: ReleaseInstanceRow[] = [];
      let k = 0;
      for (const frozen of part.frozen) {
        const chunk = insertReleaseChunk(db, releaseId, frozen.records, frozen.content);
        for (let line = 0; line < frozen.records; line++, k++) {
          entries.push({
            releaseId,
            key: part.keys[k]!,
            split,
            position: meta.positions[k]!,
            ambiguityType: AMBIGUITY_TYPES[meta.types[k]!]!,
            instanceId: meta.ids[k]!,
            sha256: part.hashes[k]!,
            chunk,
            line,
          });
          if (entries.length >= 100) {
            insertReleaseInstances(db, entries);
            entries = [];
          }
        }
      }
      insertReleaseInstances(db, entries);
      if (k !== meta.ids.length || part.hashes.length !== k) throw new AppError('internal', `A release task froze ${k} of ${meta.ids.length} records.`);
      done += meta.ids.length;
      options.onProgress?.(done, plan.count);
      await new Promise((resolve) => setImmediate(resolve));
      if (options.signal?.aborted) throw new AppError('cancelled', 'Release cancelled; nothing was written.');
    };
    for (let i = 0; i < plan.count; i++) {
      const split = plan.splitOf[i]!;
      const bucket = buckets[split]!;
      bucket.positions.push(i);
      bucket.ids.push(plan.ids[i]!);
      bucket.types.push(plan.types[i]!);
      if (bucket.ids.length >= rowGroupRows) dispatch(split);
      if (queue.length > maxQueued) {
        // The encoders have work: count the card's funnel meanwhile, once.
        if (!funnelCounted) {
          completeFunnel(db, plan);
          funnelCounted = true;
        }
        await take();
      }
    }
    for (let split = 0; split < plan.splits.length; split++) dispatch(split);
    while (queue.length) await take();
    if (!funnelCounted) completeFunnel(db, plan);
    const card = renderCard({ ...plan.card, gate, licenceForced });

    const dataFiles: (ReleaseFile & { bytes: number })[] = [];
    plan.splits.forEach((split, index) => {
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
    finishRelease(db, releaseId, files, metadata, card);
    if (fs.existsSync(out)) {
      // An empty folder given as the output: replace it (renaming onto a folder is not portable).
      checkOutputFolder(out);
      fs.rmdirSync(out);
    }
    fs.renameSync(temporary, out);
    renamed = true;
    commit(db);
    committed = { id: releaseId, name: request.name, version: request.version, dir: out, counts: plan.counts, files, gate };
  } catch (error) {
    rollback(db);
    await pool?.close();
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
  // Published: whatever happens from here (a progress listener that throws, a worker that will
  // not stop) must not touch the committed release or its folder, nor report it as failed.
  try {
    options.onProgress?.(plan.count, plan.count);
  } catch {
    // Best-effort: the release is committed.
  }
  await pool?.close().catch(() => undefined);
  return committed;
}
