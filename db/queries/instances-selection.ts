import type { AmbiguityType, Answerability, Domain, InstanceStatus } from '../../shared/domain';
import { all, iterateRaw, sql, type ReadableDB, type SqlFragment } from '../sql';
import { EFFECTIVE_ANSWERABILITY } from './instances-labels';

/**
 * The instances a release selects (a read of `instances` with their base question and dataset),
 * and the datasets they come from. Read-only, apart from instances.ts for size: a release plan
 * reads a million of these rows, so the selection has its own plan test in queries.test.ts.
 */

export interface ReleaseFilter {
  datasetIds: readonly number[];
  types: readonly AmbiguityType[];
  statuses: readonly InstanceStatus[];
}

/**
 * One selected instance, as an array (a million of them are read to plan a release): id, dataset
 * name, source id, ambiguity type, status, hops, interpretations, question, the base question's
 * `extra.split` when its source had one, topic, and answerability as the card counts it.
 */
export type CandidateRow = [
  id: number,
  dataset: string,
  sourceId: string,
  ambiguityType: AmbiguityType,
  status: InstanceStatus,
  hops: number | null,
  interpretations: number,
  question: string,
  sourceSplit: string | null,
  domain: Domain | null,
  answerability: Answerability | null,
];

function candidateWhere(filter: ReleaseFilter) {
  const conditions = [sql`1 = 1`];
  if (filter.datasetIds.length) conditions.push(sql`i.dataset_id IN ${sql.list([...filter.datasetIds])}`);
  if (filter.types.length) conditions.push(sql`i.ambiguity_type IN ${sql.list([...filter.types])}`);
  if (filter.statuses.length) conditions.push(sql`i.status IN ${sql.list([...filter.statuses])}`);
  return sql.join(conditions, sql` AND `);
}

/**
 * The instances a release selects, in the order of their stable key (dataset name, source id,
 * ambiguity type: binary collation, so the order is the same on every machine). Joined from the
 * datasets down (CROSS JOIN fixes that order in SQLite, with or without statistics), so that the
 * unique indexes on (dataset, source id) and (base question, type) give the key order without
 * sorting a million rows.
 */
export function releaseCandidates(db: ReadableDB, filter: ReleaseFilter): Generator<CandidateRow> {
  return iterateRaw<CandidateRow>(db, releaseCandidatesQuery(filter));
}

export function releaseCandidatesQuery(filter: ReleaseFilter): SqlFragment {
  return sql`SELECT i.id, d.name AS dataset, b.source_id, i.ambiguity_type, i.status, b.hops,
               i.interpretation_count AS interpretations, b.question,
               CASE WHEN json_type(b.extra, '$.split') = 'text' THEN json_extract(b.extra, '$.split') END AS source_split,
               i.domain, ${EFFECTIVE_ANSWERABILITY} AS answerability
        FROM datasets d
        CROSS JOIN base_questions b ON b.dataset_id = d.id
        CROSS JOIN instances i ON i.base_question_id = b.id AND i.dataset_id = d.id
        WHERE ${candidateWhere(filter)}
        ORDER BY d.name, b.source_id, i.ambiguity_type`;
}

/** The datasets (name, licence, attribution, url) of the selected instances. */
export function releaseSources(db: ReadableDB, filter: ReleaseFilter): { name: string; licence: string; attribution: string; url: string }[] {
  return all(
    db,
    sql`SELECT d.name, d.licence, d.attribution, d.url FROM datasets d
        WHERE EXISTS (SELECT 1 FROM instances i WHERE i.dataset_id = d.id AND ${candidateWhere(filter)})
        ORDER BY d.name`,
  );
}
