import { all, get, iterate, run, sql, type ReadableDB, type WritableDB } from '../sql';

export type JudgmentSource = 'app' | 'pack' | 'file' | 'resolution';

export interface NewJudgment {
  uid: string;
  assignmentId: number;
  criterion: string;
  value: string | null;
  comment: string;
  source: JudgmentSource;
  itemMs: number | null;
  createdAt: string;
  conflict?: boolean;
}

export function insertJudgment(db: WritableDB, j: NewJudgment): number {
  return get<{ id: number }>(
    db,
    sql`INSERT INTO judgments (uid, assignment_id, criterion, value, comment, source, item_ms, created_at, conflict)
        VALUES (${j.uid}, ${j.assignmentId}, ${j.criterion}, ${j.value}, ${j.comment}, ${j.source}, ${j.itemMs}, ${j.createdAt}, ${j.conflict ?? false})
        RETURNING id`,
  )!.id;
}

export function judgmentExists(db: ReadableDB, uid: string): boolean {
  return get(db, sql`SELECT 1 AS x FROM judgments WHERE uid = ${uid}`) !== undefined;
}

export interface CurrentJudgment {
  id: number;
  assignment_id: number;
  criterion: string;
  value: string | null;
  comment: string;
  conflict: number;
  created_at: string;
}

/** The latest judgment of each criterion of one assignment. */
export function currentJudgments(db: ReadableDB, assignmentId: number): CurrentJudgment[] {
  return all<CurrentJudgment>(
    db,
    sql`SELECT j.id, j.assignment_id, j.criterion, j.value, j.comment, j.conflict, j.created_at FROM judgments j
        WHERE j.assignment_id = ${assignmentId}
          AND j.id = (SELECT max(id) FROM judgments k WHERE k.assignment_id = j.assignment_id AND k.criterion = j.criterion)`,
  );
}

/** The latest judgment of every (assignment, criterion) of a campaign, with who and what. */
export function campaignCurrentJudgments(
  db: ReadableDB,
  campaignId: number,
): (CurrentJudgment & { instance_id: number; annotator: string })[] {
  return all(
    db,
    sql`SELECT j.id, j.assignment_id, j.criterion, j.value, j.comment, j.conflict, j.created_at, s.instance_id, a.name AS annotator
        FROM judgments j
        JOIN assignments s ON s.id = j.assignment_id
        JOIN annotators a ON a.id = s.annotator_id
        WHERE s.campaign_id = ${campaignId}
          AND j.id = (SELECT max(id) FROM judgments k WHERE k.assignment_id = j.assignment_id AND k.criterion = j.criterion)
        ORDER BY s.instance_id, a.name, j.criterion`,
  );
}

/**
 * The annotator's latest decision in a campaign that no undo has taken back (for undo). In-app
 * undo writes its entry with source 'resolution'; walking back from the newest, each such entry
 * cancels the next 'app' decision, so repeated undos take decisions back one at a time, newest
 * first, as a stack (two decisions on one criterion take two undos to clear it). A decision that
 * a later pack or file import replaced is passed over: undoing it would overwrite the import.
 */
export function lastDecision(db: ReadableDB, campaignId: number, annotatorId: number): { id: number; assignment_id: number; criterion: string; instance_id: number } | undefined {
  let pending = 0;
  for (const row of iterate<{ id: number; assignment_id: number; criterion: string; instance_id: number; source: JudgmentSource; replaced: number }>(
    db,
    sql`SELECT j.id, j.assignment_id, j.criterion, s.instance_id, j.source,
               EXISTS (SELECT 1 FROM judgments k WHERE k.assignment_id = j.assignment_id AND k.criterion = j.criterion
                       AND k.id > j.id AND k.source IN ('pack', 'file')) AS replaced
        FROM judgments j JOIN assignments s ON s.id = j.assignment_id
        WHERE s.campaign_id = ${campaignId} AND s.annotator_id = ${annotatorId} AND j.source IN ('app', 'resolution')
        ORDER BY j.id DESC`,
  )) {
    if (row.source === 'resolution') pending++;
    else if (pending > 0) pending--;
    else if (!row.replaced) return { id: row.id, assignment_id: row.assignment_id, criterion: row.criterion, instance_id: row.instance_id };
  }
  return undefined;
}

/** The value and comment a criterion had just before a judgment (null when it had none). */
export function judgmentBefore(db: ReadableDB, assignmentId: number, criterion: string, judgmentId: number): { value: string | null; comment: string } | undefined {
  return get(
    db,
    sql`SELECT value, comment FROM judgments WHERE assignment_id = ${assignmentId} AND criterion = ${criterion} AND id < ${judgmentId} ORDER BY id DESC LIMIT 1`,
  );
}

export function markConflict(db: WritableDB, judgmentId: number): void {
  run(db, sql`UPDATE judgments SET conflict = 1 WHERE id = ${judgmentId}`);
}

export function openConflicts(db: ReadableDB, campaignId: number): { assignment_id: number; criterion: string; instance_id: number; annotator: string }[] {
  return all(
    db,
    sql`SELECT DISTINCT j.assignment_id, j.criterion, s.instance_id, a.name AS annotator FROM judgments j
        JOIN assignments s ON s.id = j.assignment_id JOIN annotators a ON a.id = s.annotator_id
        WHERE j.conflict = 1 AND s.campaign_id = ${campaignId} ORDER BY s.instance_id, a.name`,
  );
}

/** The current value of every criterion an annotator has decided in a campaign. */
export function annotatorCurrentJudgments(db: ReadableDB, campaignId: number, annotatorId: number): (CurrentJudgment & { instance_id: number })[] {
  return all(
    db,
    sql`SELECT j.id, j.assignment_id, j.criterion, j.value, j.comment, j.conflict, j.created_at, s.instance_id
        FROM assignments s JOIN judgments j ON j.assignment_id = s.id
        WHERE s.campaign_id = ${campaignId} AND s.annotator_id = ${annotatorId}
          AND j.id = (SELECT max(id) FROM judgments k WHERE k.assignment_id = j.assignment_id AND k.criterion = j.criterion)`,
  );
}

/** An adjudicated item's conflicts are settled: clears them for every annotator of the item. */
export function clearItemConflicts(db: WritableDB, campaignId: number, instanceId: number, criterion: string): void {
  run(
    db,
    sql`UPDATE judgments SET conflict = 0 WHERE conflict = 1 AND criterion = ${criterion}
          AND assignment_id IN (SELECT id FROM assignments WHERE campaign_id = ${campaignId} AND instance_id = ${instanceId})`,
  );
}

// ---- for sync with the shared store ----------------------------------------------------------

export interface OutgoingJudgment {
  id: number;
  uid: string;
  annotator: string;
  instance_id: number;
  criterion: string;
  value: string | null;
  comment: string;
  source: string;
  item_ms: number | null;
  created_at: string;
  prior_uid: string | null;
}

/** A campaign's judgments written after `afterId`, each with the one it followed on its criterion. */
export function judgmentsAfter(db: ReadableDB, campaignId: number, afterId: number): OutgoingJudgment[] {
  return all<OutgoingJudgment>(
    db,
    sql`SELECT j.id, j.uid, a.name AS annotator, s.instance_id, j.criterion, j.value, j.comment, j.source, j.item_ms, j.created_at,
               (SELECT k.uid FROM judgments k WHERE k.assignment_id = j.assignment_id AND k.criterion = j.criterion AND k.id < j.id
                ORDER BY k.id DESC LIMIT 1) AS prior_uid
        FROM judgments j JOIN assignments s ON s.id = j.assignment_id JOIN annotators a ON a.id = s.annotator_id
        WHERE s.campaign_id = ${campaignId} AND j.id > ${afterId}
        ORDER BY j.id`,
  );
}

/** Just the ids and uids of a campaign's judgments after `afterId`. */
export function judgmentUidsAfter(db: ReadableDB, campaignId: number, afterId: number): { id: number; uid: string }[] {
  return all(
    db,
    sql`SELECT j.id, j.uid FROM judgments j JOIN assignments s ON s.id = j.assignment_id
        WHERE s.campaign_id = ${campaignId} AND j.id > ${afterId} ORDER BY j.id`,
  );
}

export function countJudgmentsAfter(db: ReadableDB, campaignId: number, afterId: number): number {
  return get<{ n: number }>(
    db,
    sql`SELECT count(*) AS n FROM judgments j JOIN assignments s ON s.id = j.assignment_id WHERE s.campaign_id = ${campaignId} AND j.id > ${afterId}`,
  )!.n;
}

/** The latest judgment of one criterion of an assignment: its uid and value. */
export function latestJudgment(db: ReadableDB, assignmentId: number, criterion: string): { uid: string; value: string | null } | undefined {
  return get(db, sql`SELECT uid, value FROM judgments WHERE assignment_id = ${assignmentId} AND criterion = ${criterion} ORDER BY id DESC LIMIT 1`);
}
