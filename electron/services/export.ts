import fs from 'node:fs';
import { baseQuestionsWithoutInstances } from '../../db/queries/base-questions';
import { findDatasetByName } from '../../db/queries/datasets';
import { instanceIdsForExport } from '../../db/queries/instances';
import type { ReadableDB } from '../../db/sql';
import { AppError, type ExportReport } from '../../shared/api';
import { readBaseQuestionRecords, readInBatches, readInstanceRecords } from './record-reader';

export interface ExportOptions {
  file: string;
  /** Dataset names; all datasets when empty. */
  datasets?: readonly string[];
  signal?: AbortSignal;
  onProgress?: (done: number, total: number) => void;
}

/**
 * Writes awb-instance/1 JSONL: one line per instance, then one line (with `instance: null`) per
 * base question that has no instance, so that importing the file gives back everything. The
 * file is written beside its target and renamed into place, so a failed export never leaves a
 * half-written file under the requested name.
 */
export async function exportJsonl(db: ReadableDB, options: ExportOptions): Promise<ExportReport> {
  const started = performance.now();
  const datasetIds = (options.datasets ?? []).map((name) => {
    const row = findDatasetByName(db, name);
    if (!row) throw new AppError('not_found', `No dataset named "${name}"`);
    return row.id;
  });
  const instances = instanceIdsForExport(db, datasetIds);
  const orphans = [...baseQuestionsWithoutInstances(db, datasetIds)];
  const total = instances.length + orphans.length;
  if (options.signal?.aborted) throw new AppError('cancelled', 'Export cancelled; no file was written.');
  const temporary = `${options.file}.partial-${process.pid}`;
  const out = fs.createWriteStream(temporary, { encoding: 'utf8' });
  let streamError: Error | null = null;
  out.on('error', (error) => (streamError = error));
  const write = (line: string) => {
    if (streamError) throw streamError;
    return out.write(line) ? Promise.resolve() : new Promise<void>((resolve) => out.once('drain', () => resolve()));
  };
  let done = 0;
  const bqs = new Set<number>();
  try {
    // Records are read a batch at a time (one query per table per batch) and written as one chunk.
    for (const batch of readInBatches(db, instances, (i) => i.id, readInstanceRecords)) {
      options.signal?.throwIfAborted();
      await write(batch.map(({ record }) => `${JSON.stringify(record)}\n`).join(''));
      for (const { item } of batch) bqs.add(item.base_question_id);
      done += batch.length;
      options.onProgress?.(done, total);
    }
    for (const batch of readInBatches(db, orphans, (o) => o.id, readBaseQuestionRecords)) {
      options.signal?.throwIfAborted();
      await write(batch.map(({ record }) => `${JSON.stringify(record)}\n`).join(''));
      for (const { item } of batch) bqs.add(item.id);
      done += batch.length;
      options.onProgress?.(done, total);
    }
    await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
    fs.renameSync(temporary, options.file);
  } catch (error) {
    out.destroy();
    fs.rmSync(temporary, { force: true });
    if ((error as Error).name === 'AbortError') throw new AppError('cancelled', 'Export cancelled; no file was written.');
    throw error;
  }
  options.onProgress?.(done, total);
  return {
    file: options.file,
    records: done,
    instances: instances.length,
    baseQuestions: bqs.size,
    seconds: Number(((performance.now() - started) / 1000).toFixed(3)),
  };
}
