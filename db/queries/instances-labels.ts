import type { AmbiguityType, Answerability, Domain } from '../../shared/domain';
import { all, sql, type ReadableDB } from '../sql';

/**
 * Instances counted by topic and answerability, for the pipeline funnel's domain table (MARCH
 * Table 7) and the release card. Reads only; instances.ts is the table's writer.
 *
 * An instance's answerability is its own label, else its base question's; an instance with two
 * or more active interpretations and no label is ambiguous by construction.
 */

const EFFECTIVE = sql`coalesce(i.answerability, CASE WHEN i.interpretation_count >= 2 THEN 'ambiguous' END, b.answerability)`;

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
    sql`SELECT i.ambiguity_type, i.domain, ${EFFECTIVE} AS answerability, count(*) AS n
        FROM instances i JOIN base_questions b ON b.id = i.base_question_id
        WHERE i.status = 'ready' ${scope} GROUP BY 1, 2, 3`,
  );
}

/** The given instances (a release's), by type, topic and answerability. */
export function labelCountsOf(db: ReadableDB, instanceIds: ArrayLike<number>): LabelCountRow[] {
  return all(
    db,
    sql`SELECT i.ambiguity_type, i.domain, ${EFFECTIVE} AS answerability, count(*) AS n
        FROM instances i JOIN base_questions b ON b.id = i.base_question_id
        WHERE i.id IN (SELECT value FROM json_each(${JSON.stringify(Array.from(instanceIds))})) GROUP BY 1, 2, 3`,
  );
}
