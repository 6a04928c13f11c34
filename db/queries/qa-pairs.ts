import { all, get, run, sql, type ReadableDB, type WritableDB } from '../sql';

/**
 * The `qa_pairs` table: each row of a QA layer (a generated question with its answer, stored as a
 * passage of the layer's corpus) with the passage it was generated from and, for a paraphrase, the
 * canonical pair it rephrases. Its only writer.
 */

export interface NewQaPair {
  passageId: number;
  sourcePassageId: number;
  canonicalId: number | null;
  position: number;
  grounded: boolean;
  provenanceId: number | null;
}

/** False when the row already belongs to the layer (the same question and answer, generated twice). */
export function insertQaPair(db: WritableDB, p: NewQaPair): boolean {
  return (
    run(
      db,
      sql`INSERT INTO qa_pairs (passage_id, source_passage_id, canonical_id, position, grounded, provenance_id)
          VALUES (${p.passageId}, ${p.sourcePassageId}, ${p.canonicalId}, ${p.position}, ${p.grounded}, ${p.provenanceId})
          ON CONFLICT (passage_id) DO NOTHING`,
    ).changes === 1
  );
}

/** Passages of a corpus not yet turned into pairs, in id order. */
export function passagesWithoutPairs(db: ReadableDB, corpusId: number, limit: number): { id: number; title: string; text: string }[] {
  return all(
    db,
    sql`SELECT p.id, p.title, p.text FROM passages p WHERE p.corpus_id = ${corpusId}
          AND NOT EXISTS (SELECT 1 FROM qa_pairs q WHERE q.source_passage_id = p.id) ORDER BY p.id LIMIT ${limit}`,
  );
}

export interface QaHitRow {
  passage_id: number;
  canonical_id: number | null;
  source_passage_id: number;
  grounded: number;
  provenance_id: number | null;
  canonical_question: string;
}

/** The pairs behind some layer rows: their canonical pair (its question) and source passage. */
export function qaPairsOf(db: ReadableDB, passageIds: readonly number[]): QaHitRow[] {
  return all(
    db,
    sql`SELECT q.passage_id, q.canonical_id, q.source_passage_id, q.grounded, q.provenance_id,
               (SELECT c.title FROM passages c WHERE c.id = coalesce(q.canonical_id, q.passage_id)) AS canonical_question
        FROM qa_pairs q WHERE q.passage_id IN (SELECT value FROM json_each(${JSON.stringify(passageIds)}))`,
  );
}

/** A layer's counts: source passages covered, canonical pairs, paraphrases, grounded pairs, and the prompts behind them. */
export function qaLayerCounts(db: ReadableDB, layerCorpusId: number): { sources: number; pairs: number; paraphrases: number; grounded: number; prompts: string | null } {
  return get(
    db,
    sql`SELECT count(DISTINCT q.source_passage_id) AS sources, coalesce(sum(q.canonical_id IS NULL), 0) AS pairs,
               coalesce(sum(q.canonical_id IS NOT NULL), 0) AS paraphrases, coalesce(sum(q.canonical_id IS NULL AND q.grounded = 1), 0) AS grounded,
               (SELECT group_concat(DISTINCT v.prompt_version) FROM qa_pairs x JOIN provenance v ON v.id = x.provenance_id
                JOIN passages y ON y.id = x.passage_id WHERE y.corpus_id = ${layerCorpusId}) AS prompts
        FROM qa_pairs q JOIN passages p ON p.id = q.passage_id WHERE p.corpus_id = ${layerCorpusId}`,
  )!;
}
