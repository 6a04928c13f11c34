import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse';
import { z } from 'zod';
import { getOrCreateCorpus } from '../../../db/queries/corpora';
import { findCorpusImport, recordCorpusProgress, startCorpusImport } from '../../../db/queries/corpus-imports';
import { indexPassagesAfter, maxPassageId, upsertPassage } from '../../../db/queries/passages';
import { checkpointLessOften, optimize } from '../../../db/connection';
import { beginWrite, commit, rollback, type WritableDB } from '../../../db/sql';
import { AppError, type CorpusFormat, type CorpusImportReport } from '../../../shared/api';
import { nonBlank } from '../../../shared/awb-format';
import { chunkText } from '../../../shared/retrieval/chunk';
import { parseRecord } from '../import/json-record';
import { FileStructureError } from '../import/json-scanner';
import { DEFAULT_MAX_RECORD_BYTES, readRecords } from '../import/json-stream';

/**
 * Corpus import: passages from MuSiQue records, `{id, title, text}` JSON Lines, DPR's
 * `psgs_w100.tsv` (`id`, `text`, `title`), or Wikipedia articles (`{id, title, text}` JSON Lines)
 * cut into passages of about 100 words on sentence boundaries.
 *
 * A first pass reads and checks the whole file without writing, so a file with broken lines is
 * refused before anything is stored (or, with `skipInvalid`, its broken lines are reported and
 * left out). The second pass writes in batches, each committed together with its full-text
 * index and the import's progress, so a killed import resumes after its last batch when run
 * again. Passages are deduplicated per corpus by title and text; each keeps its file, line, and
 * (for chunked articles) its character span in the article.
 */

export { CORPUS_FORMATS, type CorpusFormat } from '../../../shared/api';

export interface CorpusImportOptions {
  file: string;
  format: CorpusFormat;
  corpus?: string;
  skipInvalid?: boolean;
  batchSize?: number;
  targetWords?: number;
  signal?: AbortSignal;
  onProgress?: (done: number, total: number) => void;
}

interface NewCorpusPassage {
  sourceId: string | null;
  title: string;
  text: string;
  charStart: number | null;
  charEnd: number | null;
}

interface SourceRecord {
  index: number;
  line: number;
  location: string;
  value?: unknown;
  error?: string;
}

const JsonPassage = z.looseObject({ id: z.union([z.string(), z.number()]).transform(String), title: z.string().default(''), text: nonBlank() });
const WikiArticle = z.looseObject({ id: z.union([z.string(), z.number()]).transform(String), title: z.string().default(''), text: z.string() });
const MusiqueParagraphs = z.looseObject({
  id: z.string().optional(),
  paragraphs: z.array(z.looseObject({ idx: z.number().int().optional(), title: z.string(), paragraph_text: nonBlank() })).min(1),
});
const DprRow = z.object({ id: nonBlank(), text: nonBlank(), title: z.string() });

function passagesOf(format: CorpusFormat, value: unknown, targetWords: number): { passages: NewCorpusPassage[] } | { error: { field: string; message: string } } {
  const fail = (error: z.ZodError) => {
    const issue = error.issues[0]!;
    return { error: { field: issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('').replace(/^\./, ''), message: issue.message } };
  };
  switch (format) {
    case 'musique': {
      const parsed = MusiqueParagraphs.safeParse(value);
      if (!parsed.success) return fail(parsed.error);
      return {
        passages: parsed.data.paragraphs.map((p) => ({ sourceId: null, title: p.title, text: p.paragraph_text, charStart: null, charEnd: null })),
      };
    }
    case 'jsonl':
    case 'dpr-tsv': {
      const parsed = (format === 'jsonl' ? JsonPassage : DprRow).safeParse(value);
      if (!parsed.success) return fail(parsed.error);
      return { passages: [{ sourceId: parsed.data.id, title: parsed.data.title, text: parsed.data.text, charStart: null, charEnd: null }] };
    }
    case 'wikipedia-jsonl': {
      const parsed = WikiArticle.safeParse(value);
      if (!parsed.success) return fail(parsed.error);
      return {
        passages: chunkText(parsed.data.text, targetWords).map((chunk, i) => ({
          sourceId: `${parsed.data.id}#${i}`,
          title: parsed.data.title,
          text: chunk.text,
          charStart: chunk.start,
          charEnd: chunk.end,
        })),
      };
    }
  }
}

async function* sourceRecords(file: string, format: CorpusFormat, signal?: AbortSignal): AsyncGenerator<SourceRecord> {
  if (format === 'dpr-tsv') {
    let columns: string[] = [];
    // A row with too few or too many fields is that row's problem (reported, or skipped with
    // --skip-invalid), not the whole file's.
    const parser = fs.createReadStream(file).pipe(
      parse({
        delimiter: '\t',
        bom: true,
        relax_quotes: true,
        relax_column_count: true,
        columns: (header: string[]) => (columns = header.map((h) => h.trim())),
        info: true,
        skip_empty_lines: true,
      }),
    );
    let index = 0;
    try {
      for await (const row of parser as AsyncIterable<{ record: Record<string, string>; info: { lines: number; index: number; error?: unknown } }>) {
        signal?.throwIfAborted();
        const location = `line ${row.info.lines}`;
        // csv-parse marks a row whose field count differs from the header's (info.index: its count).
        if (row.info.error) {
          yield { index: index++, line: row.info.lines, location, error: `has ${row.info.index} tab-separated fields where the header has ${columns.length} (${columns.join(', ')})` };
          continue;
        }
        yield { index: index++, line: row.info.lines, location, value: row.record };
      }
    } catch (error) {
      if ((error as Error).name === 'AbortError') throw error;
      const lines = (error as { lines?: number }).lines;
      throw new FileStructureError(`not a valid TSV file: ${(error as Error).message}`, lines ?? 0);
    }
    return;
  }
  for await (const raw of readRecords(file, { maxRecordBytes: DEFAULT_MAX_RECORD_BYTES, ...(signal ? { signal } : {}) })) {
    const parsed = parseRecord(raw, DEFAULT_MAX_RECORD_BYTES);
    yield parsed.ok
      ? { index: raw.index, line: raw.line, location: raw.location, value: parsed.value }
      : { index: raw.index, line: parsed.line, location: `line ${parsed.line}`, error: parsed.message };
  }
}

function fileKey(file: string): string {
  const stat = fs.statSync(file);
  return `${fs.realpathSync(file)}|${stat.size}|${Math.round(stat.mtimeMs)}`;
}

export async function importCorpus(db: WritableDB, options: CorpusImportOptions): Promise<CorpusImportReport> {
  const started = performance.now();
  const file = options.file;
  if (!fs.existsSync(file) || !fs.statSync(file).isFile()) throw new AppError('not_found', `No file at ${file}`);
  const shortName = path.basename(file);
  const corpusName = options.corpus ?? shortName.replace(/\.(jsonl|json|tsv|ndjson)$/i, '');
  const targetWords = options.targetWords ?? 100;
  const report: CorpusImportReport = {
    file,
    format: options.format,
    corpus: corpusName,
    records: 0,
    passagesRead: 0,
    passagesCreated: 0,
    duplicates: 0,
    rejected: 0,
    resumedFrom: 0,
    errors: [],
    committed: false,
    seconds: 0,
  };
  const issue = (location: string, field: string, message: string) => {
    report.rejected++;
    if (report.errors.length < 100) report.errors.push({ location: `${shortName}: ${location}`, field, message });
  };

  // Pass 1: read and check everything, write nothing.
  const invalid = new Set<number>();
  let total = 0;
  try {
    for await (const record of sourceRecords(file, options.format, options.signal)) {
      total++;
      if (record.error !== undefined) {
        invalid.add(record.index);
        issue(record.location, '', record.error);
        continue;
      }
      const result = passagesOf(options.format, record.value, targetWords);
      if ('error' in result) {
        invalid.add(record.index);
        issue(record.location, result.error.field, result.error.message);
      }
    }
  } catch (error) {
    if (error instanceof FileStructureError) {
      issue(`line ${error.line}`, '', error.message);
      report.seconds = Number(((performance.now() - started) / 1000).toFixed(3));
      return report;
    }
    throw error;
  }
  report.records = total;
  if (report.rejected > 0 && !options.skipInvalid) {
    report.seconds = Number(((performance.now() - started) / 1000).toFixed(3));
    return report;
  }

  // Pass 2: write in committed batches, resuming after the last one a previous run committed.
  const corpusId = getOrCreateCorpus(db, corpusName);
  const key = fileKey(file);
  const progress = findCorpusImport(db, corpusId, key) ?? startCorpusImport(db, corpusId, file, key, options.format);
  report.resumedFrom = progress.finished ? total : progress.records_done;
  if (progress.finished) {
    report.committed = true;
    report.duplicates = total;
    report.seconds = Number(((performance.now() - started) / 1000).toFixed(3));
    return report;
  }
  const batchSize = options.batchSize ?? 2000;
  let done = progress.records_done;
  let created = progress.passages_created;
  let pending: { record: SourceRecord; passages: NewCorpusPassage[] }[] = [];
  const flush = async (finished: boolean) => {
    // A batch waits for another writer's lock (another import, a release) rather than failing.
    await beginWrite(db, options.signal ? { signal: options.signal } : {});
    try {
      const before = maxPassageId(db);
      for (const { record, passages } of pending) {
        for (const p of passages) {
          const result = upsertPassage(db, {
            corpusId,
            sourceId: p.sourceId,
            title: p.title,
            text: p.text,
            origin: shortName,
            sourceLine: record.line,
            charStart: p.charStart,
            charEnd: p.charEnd,
            deferIndex: true,
          });
          if (result.created) {
            created++;
            report.passagesCreated++;
          } else report.duplicates++;
        }
        done = record.index + 1;
      }
      indexPassagesAfter(db, before);
      recordCorpusProgress(db, progress.id, finished ? total : done, created, finished);
      commit(db);
    } catch (error) {
      rollback(db);
      throw error;
    }
    pending = [];
    options.onProgress?.(done, total);
  };
  let batchPassages = 0;
  const restoreCheckpoints = checkpointLessOften(db);
  try {
    for await (const record of sourceRecords(file, options.format, options.signal)) {
      if (record.index < progress.records_done || invalid.has(record.index)) continue;
      const result = passagesOf(options.format, record.value, targetWords);
      if ('error' in result) continue;
      report.passagesRead += result.passages.length;
      pending.push({ record, passages: result.passages });
      batchPassages += result.passages.length;
      if (batchPassages >= batchSize) {
        await flush(false);
        batchPassages = 0;
      }
    }
    await flush(true);
  } finally {
    restoreCheckpoints();
  }
  optimize(db);
  report.committed = true;
  report.seconds = Number(((performance.now() - started) / 1000).toFixed(3));
  return report;
}
