import type { AmbiguityType } from '../../shared/domain';
import { all, sql, type ReadableDB } from '../sql';

/**
 * The gold side of scoring, read in bulk for one dataset: its ready instances with their base
 * question's source id, their active interpretations' short answers and aliases, their reference
 * long answers, and the fragments of the frozen evidence list the interpretations cite.
 *
 * One module across tables because the four reads make one gold snapshot, each scoped to the same
 * ready instances of the dataset; it only reads (each table's writer is its own module).
 */

export interface GoldInstanceRow {
  id: number;
  source_id: string;
  ambiguity_type: AmbiguityType;
}

/** Ready instances of a dataset, ordered by source id and type. */
export function goldInstances(db: ReadableDB, datasetId: number): GoldInstanceRow[] {
  return all<GoldInstanceRow>(
    db,
    sql`SELECT i.id, b.source_id, i.ambiguity_type
        FROM instances i JOIN base_questions b ON b.id = i.base_question_id
        WHERE i.dataset_id = ${datasetId} AND i.status = 'ready'
        ORDER BY b.source_id, i.ambiguity_type`,
  );
}

export interface GoldInterpretationRow {
  instance_id: number;
  position: number;
  short_answer: string | null;
  /** JSON array of strings. */
  answer_aliases: string;
}

/** Active interpretations of a dataset's ready instances, in position order. */
export function goldInterpretations(db: ReadableDB, datasetId: number): GoldInterpretationRow[] {
  return all<GoldInterpretationRow>(
    db,
    sql`SELECT p.instance_id, p.position, p.short_answer, p.answer_aliases
        FROM interpretations p JOIN instances i ON i.id = p.instance_id
        WHERE i.dataset_id = ${datasetId} AND i.status = 'ready' AND p.status = 'active'
        ORDER BY p.instance_id, p.position`,
  );
}

/** Reference long answers of a dataset's ready instances. */
export function goldLongAnswers(db: ReadableDB, datasetId: number): { instance_id: number; text: string }[] {
  return all(
    db,
    sql`SELECT a.instance_id, a.text
        FROM long_answers a JOIN instances i ON i.id = a.instance_id
        WHERE i.dataset_id = ${datasetId} AND i.status = 'ready'
        ORDER BY a.instance_id, a.position`,
  );
}

export interface GoldCitationRow {
  instance_id: number;
  evidence_id: number;
  rank: number;
  title: string;
  passage_source_id: string | null;
}

/** Each fragment of the frozen evidence lists that an active interpretation cites, once per instance. */
export function goldCitations(db: ReadableDB, datasetId: number): GoldCitationRow[] {
  return all<GoldCitationRow>(
    db,
    sql`SELECT DISTINCT e.instance_id, e.id AS evidence_id, e.rank, g.title, g.source_id AS passage_source_id
        FROM interpretation_citations c
        JOIN interpretations p ON p.id = c.interpretation_id
        JOIN evidence e ON e.id = c.evidence_id
        JOIN passages g ON g.id = e.passage_id
        JOIN instances i ON i.id = e.instance_id
        WHERE i.dataset_id = ${datasetId} AND i.status = 'ready' AND p.status = 'active'
        ORDER BY e.instance_id, e.rank`,
  );
}

/** How many fragments each ready instance's frozen evidence list holds (instances without one are absent). */
export function goldFragmentCounts(db: ReadableDB, datasetId: number): { instance_id: number; n: number }[] {
  return all(
    db,
    sql`SELECT e.instance_id, count(*) AS n
        FROM evidence e JOIN instances i ON i.id = e.instance_id
        WHERE i.dataset_id = ${datasetId} AND i.status = 'ready' AND e.interpretation_id IS NULL
        GROUP BY e.instance_id`,
  );
}
