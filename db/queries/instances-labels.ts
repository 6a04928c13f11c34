import type { AmbiguityType, Answerability, Domain } from '../../shared/domain';
import { all, sql, type ReadableDB } from '../sql';

/**
 * Instances counted by topic and answerability, for the pipeline funnel's domain table (MARCH
 * Table 7) and the release card. Reads only; instances.ts is the table's writer.
 *
 * An instance's answerability is its own label, else its base question's; an instance with two
 * or more active interpretations and no label is ambiguous by construction.
 */

/** The answerability an instance `i` (joined to its base question `b`) is counted under. */
export const EFFECTIVE_ANSWERABILITY = sql`coalesce(i.answerability, CASE WHEN i.interpretation_count >= 2 THEN 'ambiguous' END, b.answerability)`;

export interface LabelCountRow {
  ambiguity_type: AmbiguityType;
  domain: Domain | null;
  answerability: Answerability | null;
  n: number;
}

/** Ready instances of the given datasets (all when none), by type, topic and answerability. */
export function readyLabelCounts(db: ReadableDB, datasetIds: readonly number[]): LabelCountRow[] {
  const scope = datasetIds.length ? sql`AND i.dataset_id IN ${sql.list([...datasetIds])}` : sql.empty;
  return all(
    db,
    sql`SELECT i.ambiguity_type, i.domain, ${EFFECTIVE_ANSWERABILITY} AS answerability, count(*) AS n
        FROM instances i JOIN base_questions b ON b.id = i.base_question_id
        WHERE i.status = 'ready' ${scope} GROUP BY 1, 2, 3`,
  );
}
