import { all, get, run, sql, type ReadableDB, type WritableDB } from '../sql';
import type { AmbiguityType } from '../../shared/domain';

export interface AssignmentRow {
  id: number;
  campaign_id: number;
  instance_id: number;
  annotator_id: number;
  position: number;
  time_ms: number;
  skipped: number;
}

export function insertAssignment(db: WritableDB, campaignId: number, instanceId: number, annotatorId: number, position: number): number {
  return get<{ id: number }>(
    db,
    sql`INSERT INTO assignments (campaign_id, instance_id, annotator_id, position)
        VALUES (${campaignId}, ${instanceId}, ${annotatorId}, ${position}) RETURNING id`,
  )!.id;
}

export function findAssignment(db: ReadableDB, campaignId: number, annotatorId: number, instanceId: number): AssignmentRow | undefined {
  return get<AssignmentRow>(
    db,
    sql`SELECT * FROM assignments WHERE campaign_id = ${campaignId} AND annotator_id = ${annotatorId} AND instance_id = ${instanceId}`,
  );
}

export function annotatorQueue(db: ReadableDB, campaignId: number, annotatorId: number): AssignmentRow[] {
  return all<AssignmentRow>(
    db,
    sql`SELECT * FROM assignments WHERE campaign_id = ${campaignId} AND annotator_id = ${annotatorId} ORDER BY position`,
  );
}

export function campaignAssignments(db: ReadableDB, campaignId: number): (AssignmentRow & { annotator: string })[] {
  return all(
    db,
    sql`SELECT s.*, a.name AS annotator FROM assignments s JOIN annotators a ON a.id = s.annotator_id
        WHERE s.campaign_id = ${campaignId} ORDER BY a.name, s.position`,
  );
}

export function nextPosition(db: ReadableDB, campaignId: number, annotatorId: number): number {
  return (get<{ p: number | null }>(db, sql`SELECT max(position) AS p FROM assignments WHERE campaign_id = ${campaignId} AND annotator_id = ${annotatorId}`)?.p ?? -1) + 1;
}

export function addItemTime(db: WritableDB, assignmentId: number, ms: number): void {
  run(db, sql`UPDATE assignments SET time_ms = time_ms + ${Math.max(0, Math.round(ms))} WHERE id = ${assignmentId}`);
}

export function setSkipped(db: WritableDB, assignmentId: number, skipped: boolean): void {
  run(db, sql`UPDATE assignments SET skipped = ${skipped} WHERE id = ${assignmentId}`);
}

/** An annotator's queue with what the judging screen lists: the question and its type. */
export function annotatorQueueRows(
  db: ReadableDB,
  campaignId: number,
  annotatorId: number,
): (AssignmentRow & { question: string; ambiguity_type: AmbiguityType })[] {
  return all(
    db,
    sql`SELECT s.*, b.question, i.ambiguity_type FROM assignments s
        JOIN instances i ON i.id = s.instance_id JOIN base_questions b ON b.id = i.base_question_id
        WHERE s.campaign_id = ${campaignId} AND s.annotator_id = ${annotatorId} ORDER BY s.position`,
  );
}

export interface ProgressRow {
  annotator: string;
  total: number;
  done: number;
  skipped: number;
  time_ms: number;
}

/**
 * Per annotator of a campaign: items, items whose every required criterion has a current value,
 * skips and time.
 */
export function campaignProgress(db: ReadableDB, campaignId: number, required: readonly string[]): ProgressRow[] {
  return all<ProgressRow>(
    db,
    sql`SELECT a.name AS annotator, count(*) AS total, sum(s.skipped) AS skipped, sum(s.time_ms) AS time_ms,
               sum((SELECT count(DISTINCT j.criterion) FROM judgments j
                    WHERE j.assignment_id = s.id AND j.criterion IN ${sql.list([...required])}
                      AND j.id = (SELECT max(id) FROM judgments k WHERE k.assignment_id = j.assignment_id AND k.criterion = j.criterion)
                      AND j.value IS NOT NULL) = ${required.length}) AS done
        FROM assignments s JOIN annotators a ON a.id = s.annotator_id
        WHERE s.campaign_id = ${campaignId} GROUP BY a.name ORDER BY a.name`,
  );
}

/** Adds an assignment the store holds; returns its id (an existing one is kept). */
export function ensureAssignment(db: WritableDB, campaignId: number, annotatorId: number, instanceId: number, position: number): { id: number; created: boolean } {
  const existing = findAssignment(db, campaignId, annotatorId, instanceId);
  if (existing) return { id: existing.id, created: false };
  const taken = get(db, sql`SELECT 1 AS x FROM assignments WHERE campaign_id = ${campaignId} AND annotator_id = ${annotatorId} AND position = ${position}`) !== undefined;
  const free = taken ? nextPosition(db, campaignId, annotatorId) : position;
  return { id: insertAssignment(db, campaignId, instanceId, annotatorId, free), created: true };
}
