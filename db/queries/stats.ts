import type { Stats } from '../../shared/api';
import { AMBIGUITY_TYPES, INSTANCE_STATUSES } from '../../shared/domain';
import { get, sql, type ReadableDB } from '../sql';
import { countInstancesBy } from './instances';

/**
 * The counts the home screen shows, across tables in one statement (each a count of its own
 * table, kept in one place so the numbers come from one snapshot). It only reads.
 */
export function getStats(db: ReadableDB): Stats {
  const counts = get<Omit<Stats, 'instancesByType' | 'instancesByStatus'>>(
    db,
    sql`SELECT (SELECT count(*) FROM datasets) AS datasets,
               (SELECT count(*) FROM base_questions) AS baseQuestions,
               (SELECT count(*) FROM passages) AS passages,
               (SELECT count(*) FROM corpora) AS corpora,
               (SELECT count(*) FROM instances) AS instances,
               (SELECT count(*) FROM interpretations) AS interpretations,
               (SELECT count(*) FROM long_answers) AS longAnswers`,
  )!;
  const byType = countInstancesBy(db, 'ambiguity_type');
  const byStatus = countInstancesBy(db, 'status');
  return {
    ...counts,
    instancesByType: Object.fromEntries(AMBIGUITY_TYPES.map((t) => [t, byType[t] ?? 0])) as Stats['instancesByType'],
    instancesByStatus: Object.fromEntries(INSTANCE_STATUSES.map((s) => [s, byStatus[s] ?? 0])) as Stats['instancesByStatus'],
  };
}
