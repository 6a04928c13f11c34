import { get, run, sql, type ReadableDB, type WritableDB } from '../sql';

export interface CorpusImportRow {
  id: number;
  corpus_id: number;
  file: string;
  file_key: string;
  format: string;
  records_done: number;
  passages_created: number;
  finished: number;
}

export function findCorpusImport(db: ReadableDB, corpusId: number, fileKey: string): CorpusImportRow | undefined {
  return get<CorpusImportRow>(db, sql`SELECT * FROM corpus_imports WHERE corpus_id = ${corpusId} AND file_key = ${fileKey}`);
}

export function startCorpusImport(db: WritableDB, corpusId: number, file: string, fileKey: string, format: string): CorpusImportRow {
  run(
    db,
    sql`INSERT INTO corpus_imports (corpus_id, file, file_key, format) VALUES (${corpusId}, ${file}, ${fileKey}, ${format})
        ON CONFLICT (corpus_id, file_key) DO NOTHING`,
  );
  return findCorpusImport(db, corpusId, fileKey)!;
}

/** Progress, written in the same transaction as the batch it describes. */
export function recordCorpusProgress(db: WritableDB, id: number, recordsDone: number, passagesCreated: number, finished: boolean): void {
  run(
    db,
    sql`UPDATE corpus_imports SET records_done = ${recordsDone}, passages_created = ${passagesCreated}, finished = ${finished},
               updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
        WHERE id = ${id}`,
  );
}
