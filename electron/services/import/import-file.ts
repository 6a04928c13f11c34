import fs from 'node:fs';
import path from 'node:path';
import type { z } from 'zod';
import { optimize } from '../../../db/connection';
import { beginWrite, commit, DatabaseBusyError, isBusy, rollback, type WritableDB } from '../../../db/sql';
import { AppError, type ImportIssue, type ImportReport } from '../../../shared/api';
import type { AwbDataset, AwbRecord } from '../../../shared/awb-format';
import { IMPORT_FORMATS, type ImportFormat } from '../../../shared/domain';
import { mergeInstanceSearchIndex } from '../../../db/queries/instances';
import { indexPassagesAfter, maxPassageId } from '../../../db/queries/passages';
import { WriteContext, writeRecord } from '../record-writer';
import { canCheckpointInBackground, checkpointInBackground, checkpointsDone, commitThenCheckpoint } from '../checkpoints';
import { withBreaks } from '../steps';
import { FORMATS, type SourceFormat } from './formats';
import { emptyCitationLinks } from './formats/format';
import { parseRecord } from './json-record';
import { FileStructureError, type RawRecord } from './json-scanner';
import { DEFAULT_MAX_RECORD_BYTES, readRecords } from './json-stream';

export interface ImportOptions {
  file: string;
  format: ImportFormat;
  /** Dataset name; defaults to the file name without extension (awb: each record's own). */
  dataset?: string;
  /** Import the valid records and write the invalid ones to a rejects report. */
  skipInvalid?: boolean;
  rejectsFile?: string;
  maxRecordBytes?: number;
  signal?: AbortSignal;
  onProgress?: (progress: { bytes: number; totalBytes: number; records: number }) => void;
  /** Files of at least this many bytes commit without checkpointing and leave it to another thread (default 16 MiB; tests lower it). */
  checkpointInBackgroundFrom?: number;
}

/**
 * From this size on, an import leaves the log it wrote (about twice the file) to be checkpointed on
 * another thread (checkpoints.ts): for 20,000 MuSiQue records (346 MB) the checkpoint at the
 * commit took 3-4 s of the import's 25-30 s. Below it, starting a thread costs more than it saves.
 */
const CHECKPOINT_IN_BACKGROUND_FROM = 16 * 2 ** 20;

/** How many problems a report lists; the rest are counted in `moreErrors`. */
const LISTED_ERRORS = 100;
/** A file whose first records are all invalid is the wrong format: stop reading it early. */
const GIVE_UP_AFTER = 1000;

export function defaultDatasetName(file: string): string {
  return path.basename(file).replace(/\.(jsonl|json|ndjson)(\.gz)?$/i, '') || 'dataset';
}

function fieldPath(issuePath: readonly PropertyKey[]): string {
  return issuePath
    .map((part, i) => (typeof part === 'number' ? `[${part}]` : `${i === 0 ? '' : '.'}${String(part)}`))
    .join('');
}

function zodIssues(error: z.ZodError, location: string): ImportIssue[] {
  return error.issues.map((issue) => ({ location, field: fieldPath(issue.path), message: issue.message }));
}

/**
 * When the first record fails, name the format it does fit, if any: a record that another
 * format's schema accepts in full is that format's, even where it shares keys with the one named
 * (ASQA records carry AmbigNQ's `annotations`, for one).
 */
function formatHint(value: unknown, current: ImportFormat): string | null {
  if (typeof value !== 'object' || value === null) return null;
  // A whole SQuAD file read as one record: its articles sit under "data".
  if (current !== 'squad2' && Array.isArray((value as { data?: unknown }).data) && FORMATS.squad2.schema.safeParse((value as { data: unknown[] }).data[0]).success) {
    return 'this looks like a SQuAD 2.0 file ({"version", "data": [articles]}); try the format "squad2"';
  }
  for (const name of IMPORT_FORMATS) {
    if (name === current) continue;
    if (FORMATS[name].schema.safeParse(value).success) {
      return `this looks like ${FORMATS[name].label} data, not ${FORMATS[current].label}; try the format "${name}"`;
    }
  }
  return null;
}

function friendlyDatabaseError(error: unknown, file: string): Error {
  const code = (error as { code?: string }).code;
  if (code === 'SQLITE_FULL') {
    return new AppError('internal', `The disk is full, so SQLite could not write. Nothing from ${file} was imported; free some space and try again.`);
  }
  if (error instanceof DatabaseBusyError || isBusy(error)) {
    return new AppError('conflict', `The database is busy with another write (another import or run). Nothing from ${file} was imported; try again when it finishes.`);
  }
  if ((error as Error).name === 'AbortError') return new AppError('cancelled', `Import of ${file} cancelled; nothing was imported.`);
  return error as Error;
}

/** One file being imported: its report, its rejects, and what it has seen so far. */
class FileImport {
  readonly shortName: string;
  readonly report: ImportReport;
  readonly context: WriteContext;
  readonly citationLinks = emptyCitationLinks();
  /** Source ids seen, with the line they were first seen on. */
  private readonly seen = new Map<string, number>();
  valid = 0;
  private rejectsFd: number | null = null;

  constructor(
    db: WritableDB,
    readonly options: ImportOptions,
    readonly format: SourceFormat<unknown>,
    readonly datasetName: string | null,
  ) {
    this.shortName = path.basename(options.file);
    this.context = new WriteContext(db, this.shortName, true);
    this.report = {
      file: options.file,
      format: format.name,
      dataset: datasetName ?? '(from each record)',
      read: 0,
      imported: 0,
      duplicates: 0,
      rejected: 0,
      committed: false,
      errors: [],
      moreErrors: 0,
      rejectsFile: null,
      passagesCreated: 0,
      citationLinks: null,
      seconds: 0,
    };
  }

  addIssues(issues: ImportIssue[]): void {
    for (const issue of issues) {
      if (this.report.errors.length < LISTED_ERRORS) this.report.errors.push(issue);
      else this.report.moreErrors++;
    }
  }

  /** Counts a rejected record, lists its issues, and (with skipInvalid) writes it to the rejects file. */
  reject(raw: RawRecord, issues: ImportIssue[]): void {
    this.report.rejected++;
    this.addIssues(issues);
    if (!this.options.skipInvalid) return;
    if (this.rejectsFd === null) {
      this.report.rejectsFile = this.options.rejectsFile ?? `${this.options.file}.rejects.jsonl`;
      this.rejectsFd = fs.openSync(this.report.rejectsFile, 'w');
    }
    const record = raw.bytes && raw.bytes.length <= 1024 * 1024 ? raw.bytes.toString('utf8') : null;
    fs.writeSync(this.rejectsFd, `${JSON.stringify({ location: `${this.shortName}: ${raw.location}`, errors: issues, record })}\n`);
  }

  close(): void {
    if (this.rejectsFd !== null) fs.closeSync(this.rejectsFd);
  }

  /** The record in the format's terms, checked: parsed, valid for the format's schema, with a new id; null when rejected. */
  check(raw: RawRecord, maxRecordBytes: number): unknown {
    const location = `${this.shortName}: ${raw.location}`;
    const parsed = parseRecord(raw, maxRecordBytes);
    if (!parsed.ok) {
      const message =
        raw.index === 0 && raw.location.startsWith('line ') && parsed.message.startsWith('invalid JSON')
          ? `${parsed.message} (the file should hold one JSON record per line, or one JSON array of records)`
          : parsed.message;
      this.reject(raw, [{ location: `${this.shortName}: line ${parsed.line}`, field: '', message }]);
      return null;
    }
    const checked = this.format.schema.safeParse(parsed.value);
    if (!checked.success) {
      const issues = zodIssues(checked.error, location);
      const hint = raw.index === 0 ? formatHint(parsed.value, this.format.name) : null;
      if (hint) issues.unshift({ location, field: '', message: hint });
      this.reject(raw, issues);
      return null;
    }
    const sourceId = this.format.sourceId(checked.data, raw);
    const firstLine = this.seen.get(sourceId);
    if (sourceId.replaceAll('\u0000', '') === '') {
      this.reject(raw, [{ location, field: 'id', message: 'the record has no id' }]);
      return null;
    }
    if (firstLine !== undefined) {
      this.reject(raw, [{ location, field: 'id', message: `duplicate id ${JSON.stringify(sourceId.replaceAll('\u0000', ' / ').replace(/ \/ $/, ''))} in this file (first on line ${firstLine})` }]);
      return null;
    }
    if (!this.checkSubIds(checked.data, raw, location)) return null;
    this.seen.set(sourceId, raw.line);
    this.valid++;
    return checked.data;
  }

  /** A record holding many questions (a SQuAD article): each question's id is new in the file, and each counts as read. */
  private checkSubIds(data: unknown, raw: RawRecord, location: string): boolean {
    if (!this.format.subIds) return true;
    const ids = this.format.subIds(data);
    const repeated = ids.map((id) => `\u0001${id}`).find((key, i, all) => this.seen.has(key) || all.indexOf(key) !== i);
    if (repeated !== undefined) {
      const first = this.seen.get(repeated);
      this.reject(raw, [{ location, field: 'id', message: `duplicate question id ${JSON.stringify(repeated.slice(1))} in this file${first !== undefined ? ` (first on line ${first})` : ''}` }]);
      return false;
    }
    for (const key of ids) this.seen.set(`\u0001${key}`, raw.line);
    this.report.read += ids.length - 1;
    return true;
  }

  /**
   * Converts a checked record and writes it. No savepoint per record: FTS5 flushes its pending
   * index at every savepoint, which made imports several times slower. A record that passed
   * validation and still fails to store is a fault, and the whole file is rolled back.
   */
  store(data: unknown, raw: RawRecord, dataset: AwbDataset | null): void {
    const converted = this.format.toAwb(data, {
      dataset: dataset ?? (data as AwbRecord).dataset,
      corpus: this.datasetName ?? (data as AwbRecord).dataset.name,
      raw,
      citationLinks: this.citationLinks,
    });
    for (const record of Array.isArray(converted) ? converted : [converted]) {
      let outcome: 'imported' | 'duplicate';
      try {
        outcome = writeRecord(this.context, record);
      } catch (error) {
        if (error instanceof AppError) throw error;
        throw Object.assign(new Error(`${this.shortName}: ${raw.location}: could not be stored: ${(error as Error).message}`), {
          code: (error as { code?: string }).code,
        });
      }
      if (outcome === 'imported') this.report.imported++;
      else this.report.duplicates++;
    }
  }

  /** Nothing was kept: the counts of what was written go back to zero. */
  discardCounts(): void {
    this.report.imported = 0;
    this.report.duplicates = 0;
    this.report.passagesCreated = 0;
    this.report.citationLinks = null;
  }
}

function statFile(file: string): fs.Stats {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch {
    throw new AppError('not_found', `No file at ${file}`);
  }
  if (!stat.isFile()) throw new AppError('invalid_input', `${file} is not a file`);
  return stat;
}

/**
 * Imports one file, all or nothing: the records are validated and written inside one
 * transaction, and any invalid record (unless `skipInvalid`) rolls the whole file back. A killed
 * process leaves the database as it was, since the transaction never committed.
 */
export async function importFile(db: WritableDB, options: ImportOptions): Promise<ImportReport> {
  const started = performance.now();
  const file = options.file;
  const stat = statFile(file);
  if (db.inTransaction) throw new AppError('conflict', 'Another write is in progress on this connection');
  const format: SourceFormat<unknown> = FORMATS[options.format];
  const maxRecordBytes = options.maxRecordBytes ?? DEFAULT_MAX_RECORD_BYTES;
  const datasetName = options.dataset ?? (options.format === 'awb' ? null : defaultDatasetName(file));
  const dataset: AwbDataset | null = datasetName ? { name: datasetName, source_format: format.name, ...format.defaults } : null;
  const run = new FileImport(db, options, format, datasetName);
  const report = run.report;

  let lastPassageBefore = 0;
  const inBackground = stat.size >= (options.checkpointInBackgroundFrom ?? CHECKPOINT_IN_BACKGROUND_FROM) && canCheckpointInBackground(db.name);
  // A large write while a checkpoint runs would keep SQLite from restarting the log: it grows instead.
  if (inBackground) await checkpointsDone();
  try {
    // Another writer (an import in another process, a release) is waited for, not failed on.
    await beginWrite(db, options.signal ? { signal: options.signal } : {});
    lastPassageBefore = maxPassageId(db);
    const records = readRecords(file, {
      maxRecordBytes,
      ...(format.splits ? { splits: format.splits } : {}),
      ...(format.wrapper ? { wrapper: format.wrapper } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      onBytes: (bytes) => options.onProgress?.({ bytes, totalBytes: stat.size, records: report.read }),
    });
    for await (const raw of records) {
      report.read++;
      const data = run.check(raw, maxRecordBytes);
      if (data !== null && (report.rejected === 0 || options.skipInvalid)) run.store(data, raw, dataset);
      if (run.valid === 0 && report.rejected >= GIVE_UP_AFTER) {
        run.addIssues([{ location: run.shortName, field: '', message: `stopped reading after ${GIVE_UP_AFTER} invalid records and no valid one: is this a ${format.label} file?` }]);
        break;
      }
    }
    report.passagesCreated = run.context.passagesCreated;
    const links = run.citationLinks;
    if (links.byNumber + links.byTitleText + links.unmatched > 0) report.citationLinks = links;
    if (report.rejected > 0 && !options.skipInvalid) {
      rollback(db);
      run.discardCounts();
    } else {
      options.onProgress?.({ bytes: stat.size, totalBytes: stat.size, records: report.read });
      indexPassagesAfter(db, lastPassageBefore);
      if (inBackground) commitThenCheckpoint(db, () => checkpointInBackground(db.name));
      else commit(db);
      report.committed = true;
    }
  } catch (error) {
    rollback(db);
    if (!(error instanceof FileStructureError)) throw friendlyDatabaseError(error, file);
    run.addIssues([{ location: `${run.shortName}: line ${error.line}`, field: '', message: error.message }]);
    run.discardCounts();
    report.rejected = Math.max(report.rejected, 1);
  } finally {
    run.close();
  }
  if (report.committed && report.imported > 0) {
    optimize(db);
    await withBreaks(mergeInstanceSearchIndex(db));
  }
  report.seconds = Number(((performance.now() - started) / 1000).toFixed(3));
  return report;
}
