import { all, get, run, sql, type ReadableDB, type WritableDB } from '../sql';

/** This desktop's side of sync with the shared store: its settings and how far each campaign went. */

export interface TeamSyncRow {
  store: string;
  device: string;
  annotator: string | null;
  role: 'maintainer' | 'annotator';
  last_sync_at: string | null;
  last_error: string | null;
  last_report: string | null;
}

export function getTeamSync(db: ReadableDB): TeamSyncRow | undefined {
  return get<TeamSyncRow>(db, sql`SELECT store, device, annotator, role, last_sync_at, last_error, last_report FROM team_sync WHERE id = 1`);
}

export function saveTeamSync(db: WritableDB, row: Pick<TeamSyncRow, 'store' | 'device' | 'annotator' | 'role'>): void {
  run(
    db,
    sql`INSERT INTO team_sync (id, store, device, annotator, role) VALUES (1, ${row.store}, ${row.device}, ${row.annotator}, ${row.role})
        ON CONFLICT (id) DO UPDATE SET store = excluded.store, annotator = excluded.annotator, role = excluded.role`,
  );
}

export function recordSyncOutcome(db: WritableDB, outcome: { at: string; error: string | null; report: string | null }): void {
  if (outcome.error === null) run(db, sql`UPDATE team_sync SET last_sync_at = ${outcome.at}, last_error = NULL, last_report = ${outcome.report} WHERE id = 1`);
  else run(db, sql`UPDATE team_sync SET last_error = ${outcome.error} WHERE id = 1`);
}

export function campaignSyncMarks(db: ReadableDB, uid: string): { pushed_through: number; pulled_through: number } {
  return get(db, sql`SELECT pushed_through, pulled_through FROM team_campaign_sync WHERE campaign_uid = ${uid}`) ?? { pushed_through: 0, pulled_through: 0 };
}

export function setPushedThrough(db: WritableDB, uid: string, id: number): void {
  run(
    db,
    sql`INSERT INTO team_campaign_sync (campaign_uid, pushed_through) VALUES (${uid}, ${id})
        ON CONFLICT (campaign_uid) DO UPDATE SET pushed_through = max(pushed_through, excluded.pushed_through)`,
  );
}

export function setPulledThrough(db: WritableDB, uid: string, seq: number): void {
  run(
    db,
    sql`INSERT INTO team_campaign_sync (campaign_uid, pulled_through) VALUES (${uid}, ${seq})
        ON CONFLICT (campaign_uid) DO UPDATE SET pulled_through = max(pulled_through, excluded.pulled_through)`,
  );
}

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

/** Adds an assignment the store holds; returns its id (an existing one is kept). */
export function ensureAssignment(db: WritableDB, campaignId: number, annotatorId: number, instanceId: number, position: number): { id: number; created: boolean } {
  const existing = get<{ id: number }>(db, sql`SELECT id FROM assignments WHERE campaign_id = ${campaignId} AND annotator_id = ${annotatorId} AND instance_id = ${instanceId}`);
  if (existing) return { id: existing.id, created: false };
  const taken = get(db, sql`SELECT 1 AS x FROM assignments WHERE campaign_id = ${campaignId} AND annotator_id = ${annotatorId} AND position = ${position}`) !== undefined;
  const free = taken
    ? (get<{ p: number | null }>(db, sql`SELECT max(position) AS p FROM assignments WHERE campaign_id = ${campaignId} AND annotator_id = ${annotatorId}`)?.p ?? -1) + 1
    : position;
  const id = get<{ id: number }>(
    db,
    sql`INSERT INTO assignments (campaign_id, instance_id, annotator_id, position) VALUES (${campaignId}, ${instanceId}, ${annotatorId}, ${free}) RETURNING id`,
  )!.id;
  return { id, created: true };
}

export function instanceExists(db: ReadableDB, id: number): boolean {
  return get(db, sql`SELECT 1 AS x FROM instances WHERE id = ${id}`) !== undefined;
}

/** The latest judgment of one criterion of an assignment: its uid and value. */
export function latestJudgment(db: ReadableDB, assignmentId: number, criterion: string): { uid: string; value: string | null } | undefined {
  return get(db, sql`SELECT uid, value FROM judgments WHERE assignment_id = ${assignmentId} AND criterion = ${criterion} ORDER BY id DESC LIMIT 1`);
}

/** The parts of an instance's stable key (dataset / base question source id / ambiguity type). */
export interface InstanceKeyParts {
  id: number;
  dataset: string;
  source_id: string;
  ambiguity_type: string;
}

export function instanceKeyParts(db: ReadableDB, ids: readonly number[]): InstanceKeyParts[] {
  if (ids.length === 0) return [];
  return all<InstanceKeyParts>(
    db,
    sql`SELECT i.id, d.name AS dataset, b.source_id, i.ambiguity_type
        FROM instances i JOIN base_questions b ON b.id = i.base_question_id JOIN datasets d ON d.id = b.dataset_id
        WHERE i.id IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`,
  );
}

export function findInstanceByKeyParts(db: ReadableDB, dataset: string, sourceId: string, type: string): number | undefined {
  return get<{ id: number }>(
    db,
    sql`SELECT i.id FROM datasets d JOIN base_questions b ON b.dataset_id = d.id JOIN instances i ON i.base_question_id = b.id
        WHERE d.name = ${dataset} AND b.source_id = ${sourceId} AND i.ambiguity_type = ${type}`,
  )?.id;
}

/** A campaign's instances: its items (with their position) and any other instance assigned in it. */
export function campaignInstancePositions(db: ReadableDB, campaignId: number): { instance_id: number; position: number | null }[] {
  return all(
    db,
    sql`SELECT instance_id, position FROM campaign_items WHERE campaign_id = ${campaignId}
        UNION
        SELECT DISTINCT instance_id, NULL FROM assignments
        WHERE campaign_id = ${campaignId} AND instance_id NOT IN (SELECT instance_id FROM campaign_items WHERE campaign_id = ${campaignId})
        ORDER BY 1`,
  );
}

/** A protocol version received from the shared store, under the version number it has there. */
export function insertProtocolAt(
  db: WritableDB,
  p: { key: string; version: number; name: string; description: string; guidelines: string; criteria: unknown; builtIn: boolean },
): number {
  return get<{ id: number }>(
    db,
    sql`INSERT INTO protocols (key, version, name, description, guidelines, criteria, built_in)
        VALUES (${p.key}, ${p.version}, ${p.name}, ${p.description}, ${p.guidelines}, ${JSON.stringify(p.criteria)}, ${p.builtIn})
        RETURNING id`,
  )!.id;
}
