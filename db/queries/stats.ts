import type { Stats } from '../../shared/api';
import { AMBIGUITY_TYPES, ANSWERABILITY_LABELS, INSTANCE_STATUSES } from '../../shared/domain';
import { all, get, sql, type ReadableDB } from '../sql';
import { countInstancesBy } from './instances';

/**
 * The counts the home screen shows, across tables in one statement (each a count of its own
 * table, kept in one place so the numbers come from one snapshot). It only reads.
 */
export function getStats(db: ReadableDB): Stats {
  const counts = get<Omit<Stats, 'instancesByType' | 'instancesByStatus' | 'baseQuestionsByAnswerability'>>(
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
  // Read from the index on (answerability, dataset_id), not the table.
  const byLabel = new Map(
    all<{ label: string | null; n: number }>(db, sql`SELECT answerability AS label, count(*) AS n FROM base_questions INDEXED BY base_questions_answerability GROUP BY answerability`).map((r) => [r.label ?? 'unlabelled', r.n]),
  );
  return {
    ...counts,
    instancesByType: Object.fromEntries(AMBIGUITY_TYPES.map((t) => [t, byType[t] ?? 0])) as Stats['instancesByType'],
    instancesByStatus: Object.fromEntries(INSTANCE_STATUSES.map((s) => [s, byStatus[s] ?? 0])) as Stats['instancesByStatus'],
    baseQuestionsByAnswerability: Object.fromEntries([...ANSWERABILITY_LABELS, 'unlabelled'].map((l) => [l, byLabel.get(l) ?? 0])) as Stats['baseQuestionsByAnswerability'],
  };
}

/**
 * A stamp that changes whenever the database may have changed under this connection: a commit by
 * any other connection (`data_version`) or a row written through this one (`total_changes()`, which
 * a rollback does not take back, so a rolled-back write only costs a result computed again). Two
 * equal stamps, both taken outside a transaction, mean the same committed data.
 */
export function changeStamp(db: ReadableDB): string {
  const other = db.pragma('data_version', { simple: true }) as number;
  return `${other}:${get<{ n: number }>(db, sql`SELECT total_changes() AS n`)!.n}`;
}
