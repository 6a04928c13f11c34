import type { BaseQuestionFilter } from '../../shared/api';
import type { Answerability } from '../../shared/domain';
import { among, type Facet, finish, inSteps, keepsHops, mergeGroups, sumFacets } from '../../shared/facets';
import { toFtsQuery } from '../../shared/search';
import { allRaw, column, sql, type ReadableDB } from '../sql';

/**
 * The counts beside the base question table: how many match, and per dataset, hop count and
 * answerability label how many would match under the other filters. The base questions are
 * grouped by those three columns once (a few dozen groups; through an index that holds them, so
 * without reading a row) and every count is summed from the groups, where four queries each read
 * the table before (about 0.2 s at 435,000 base questions). Under a search, the matches' ids are
 * read once and grouped some thousands at a time, in steps the caller may let other requests run
 * between, as the instance table's counts are (instances-facets.ts).
 */

export interface BaseQuestionFacetCounts {
  total: number;
  datasets: { value: number; count: number }[];
  hops: { value: number | null; count: number }[];
  answerability: { value: Answerability | 'unlabelled'; count: number }[];
}

type GroupColumns = [number, number | null, Answerability | null];
type GroupRow = [...GroupColumns, number];
interface Group {
  dataset: number;
  hops: number | null;
  answerability: Answerability | null;
  count: number;
}

const STEP = 8_192;

export function* baseQuestionFacetSteps(db: ReadableDB, filter: BaseQuestionFilter, step = STEP): Generator<void, BaseQuestionFacetCounts> {
  const fts = toFtsQuery(filter.search, { prefixLast: true });
  const rows =
    fts === null
      ? allRaw<GroupRow>(db, sql`SELECT dataset_id, hops, answerability, count(*) FROM base_questions GROUP BY 1, 2, 3`)
      : yield* inSteps(column<number>(db, sql`SELECT rowid FROM base_questions_fts WHERE base_questions_fts MATCH ${fts}`), step, (ids) => groupsOf(db, ids));
  const groups: Group[] = mergeGroups<GroupColumns>(rows).map(({ columns: [dataset, hops, answerability], count }) => ({ dataset, hops, answerability, count }));
  return countsFromGroups(groups, filter);
}

export function baseQuestionFacetCounts(db: ReadableDB, filter: BaseQuestionFilter): BaseQuestionFacetCounts {
  return finish(baseQuestionFacetSteps(db, filter));
}

function groupsOf(db: ReadableDB, ids: readonly number[]): GroupRow[] {
  return allRaw<GroupRow>(
    db,
    sql`SELECT dataset_id, hops, answerability, count(*) FROM base_questions
        WHERE id IN (SELECT value FROM json_each(${JSON.stringify(ids)})) GROUP BY 1, 2, 3`,
  );
}

/** The filters as base-questions.ts writes them in SQL: a missing label is 'unlabelled', a missing hop count 0. */
function countsFromGroups(groups: readonly Group[], filter: BaseQuestionFilter): BaseQuestionFacetCounts {
  const facets: Record<'datasets' | 'hops' | 'answerability', Facet<Group>> = {
    datasets: { value: (g) => g.dataset, keeps: (g) => among(filter.datasets, g.dataset) },
    hops: { value: (g) => g.hops, keeps: (g) => keepsHops(filter.hops, g.hops) },
    answerability: { value: (g) => g.answerability ?? 'unlabelled', keeps: (g) => among<string>(filter.answerability, g.answerability ?? 'unlabelled') },
  };
  const { total, counts } = sumFacets(groups, facets);
  return {
    total,
    datasets: counts.datasets as BaseQuestionFacetCounts['datasets'],
    hops: counts.hops as BaseQuestionFacetCounts['hops'],
    answerability: counts.answerability as BaseQuestionFacetCounts['answerability'],
  };
}
