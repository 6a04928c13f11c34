import { all, get, run, sql, type ReadableDB, type WritableDB } from '../sql';

export interface CorpusRow {
  id: number;
  name: string;
  description: string;
  created_at: string;
}

export function findCorpusByName(db: ReadableDB, name: string): CorpusRow | undefined {
  return get<CorpusRow>(db, sql`SELECT * FROM corpora WHERE name = ${name}`);
}

export function getOrCreateCorpus(db: WritableDB, name: string, description = ''): number {
  const existing = findCorpusByName(db, name);
  if (existing) return existing.id;
  return Number(run(db, sql`INSERT INTO corpora (name, description) VALUES (${name}, ${description})`).lastInsertRowid);
}

export function listCorpora(db: ReadableDB): (CorpusRow & { passages: number })[] {
  return all(db, sql`SELECT c.*, c.passage_count AS passages FROM corpora c ORDER BY c.name`);
}

/** Passages in a corpus (or in all corpora), from the trigger-kept counts. */
export function countCorpusPassages(db: ReadableDB, corpusId: number | null): number {
  const scope = corpusId === null ? sql.empty : sql`WHERE id = ${corpusId}`;
  return get<{ n: number }>(db, sql`SELECT coalesce(sum(passage_count), 0) AS n FROM corpora ${scope}`)!.n;
}
