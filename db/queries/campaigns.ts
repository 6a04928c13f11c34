import type { AmbiguityType, InstanceStatus } from '../../shared/domain';
import { all, get, run, sql, type ReadableDB, type WritableDB } from '../sql';

export interface CampaignRow {
  id: number;
  uid: string;
  name: string;
  protocol_id: number;
  selection: string;
  per_instance: number;
  seed: number;
  blind: number;
  created_at: string;
}

export interface NewCampaign {
  uid: string;
  name: string;
  protocolId: number;
  selection: Record<string, unknown>;
  perInstance: number;
  seed: number;
  blind: boolean;
}

export function insertCampaign(db: WritableDB, c: NewCampaign): number {
  return get<{ id: number }>(
    db,
    sql`INSERT INTO campaigns (uid, name, protocol_id, selection, per_instance, seed, blind)
        VALUES (${c.uid}, ${c.name}, ${c.protocolId}, ${JSON.stringify(c.selection)}, ${c.perInstance}, ${c.seed}, ${c.blind})
        RETURNING id`,
  )!.id;
}

export function addCampaignAnnotator(db: WritableDB, campaignId: number, annotatorId: number): void {
  run(db, sql`INSERT OR IGNORE INTO campaign_annotators (campaign_id, annotator_id) VALUES (${campaignId}, ${annotatorId})`);
}

export function addCampaignItem(db: WritableDB, campaignId: number, instanceId: number, position: number): void {
  run(db, sql`INSERT INTO campaign_items (campaign_id, instance_id, position) VALUES (${campaignId}, ${instanceId}, ${position})`);
}

export function getCampaign(db: ReadableDB, id: number): CampaignRow | undefined {
  return get<CampaignRow>(db, sql`SELECT * FROM campaigns WHERE id = ${id}`);
}

export function findCampaignByUid(db: ReadableDB, uid: string): CampaignRow | undefined {
  return get<CampaignRow>(db, sql`SELECT * FROM campaigns WHERE uid = ${uid}`);
}

export function listCampaigns(db: ReadableDB): CampaignRow[] {
  return all<CampaignRow>(db, sql`SELECT * FROM campaigns ORDER BY id DESC`);
}

export function campaignItems(db: ReadableDB, campaignId: number): { instance_id: number; position: number }[] {
  return all(db, sql`SELECT instance_id, position FROM campaign_items WHERE campaign_id = ${campaignId} ORDER BY position`);
}

export function isCampaignItem(db: ReadableDB, campaignId: number, instanceId: number): boolean {
  return get(db, sql`SELECT 1 AS x FROM campaign_items WHERE campaign_id = ${campaignId} AND instance_id = ${instanceId}`) !== undefined;
}

export interface CampaignInstanceRow {
  id: number;
  ambiguity_type: AmbiguityType;
  status: InstanceStatus;
  question: string;
}

/** The instances of a campaign with their type, status and question (in no particular order). */
export function campaignInstances(db: ReadableDB, campaignId: number): CampaignInstanceRow[] {
  return all<CampaignInstanceRow>(
    db,
    sql`SELECT i.id, i.ambiguity_type, i.status, b.question FROM instances i
        JOIN base_questions b ON b.id = i.base_question_id
        JOIN campaign_items c ON c.instance_id = i.id
        WHERE c.campaign_id = ${campaignId}`,
  );
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

/** The datasets of a campaign's instances. */
export function campaignDatasetNames(db: ReadableDB, campaignId: number): string[] {
  return all<{ name: string }>(
    db,
    sql`SELECT DISTINCT d.name FROM campaign_items c JOIN instances i ON i.id = c.instance_id JOIN datasets d ON d.id = i.dataset_id
        WHERE c.campaign_id = ${campaignId} ORDER BY d.name`,
  ).map((r) => r.name);
}
