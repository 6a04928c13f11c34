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

// ---- the QA layer (URASys ask-and-augment): a corpus of kind 'qa' beside a passage corpus -----------

export interface QaLayerRow {
  id: number;
  name: string;
  parent_id: number;
}

/** The QA layer of a corpus, made on first use (named "<corpus> · QA"). */
export function getOrCreateQaLayer(db: WritableDB, parentId: number, name: string): number {
  const existing = qaLayerOf(db, parentId);
  if (existing) return existing.id;
  if (findCorpusByName(db, name)) throw new Error(`a corpus named "${name}" exists and is not the QA layer`);
  return Number(
    run(db, sql`INSERT INTO corpora (name, description, kind, parent_id) VALUES (${name}, ${'Question-answer pairs generated from its passages (URASys ask-and-augment)'}, 'qa', ${parentId})`)
      .lastInsertRowid,
  );
}

export function qaLayerOf(db: ReadableDB, parentId: number): QaLayerRow | undefined {
  return get<QaLayerRow>(db, sql`SELECT id, name, parent_id FROM corpora WHERE parent_id = ${parentId} AND kind = 'qa'`);
}

/** Every QA layer's corpus id (kept out of searches of all corpora, which mean the passages). */
export function qaLayerIds(db: ReadableDB): number[] {
  return all<{ id: number }>(db, sql`SELECT id FROM corpora WHERE kind = 'qa'`).map((r) => r.id);
}

export function corpusKind(db: ReadableDB, id: number): 'passages' | 'qa' {
  return get<{ kind: 'passages' | 'qa' }>(db, sql`SELECT kind FROM corpora WHERE id = ${id}`)?.kind ?? 'passages';
}
