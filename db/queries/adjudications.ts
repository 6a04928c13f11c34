import { all, get, sql, type ReadableDB, type WritableDB } from '../sql';

export interface AdjudicationRow {
  id: number;
  instance_id: number;
  criterion: string;
  value: string;
  reason: string;
  adjudicator: string;
  created_at: string;
}

export function insertAdjudication(
  db: WritableDB,
  a: { campaignId: number; instanceId: number; criterion: string; value: string; reason: string; adjudicator: string },
): number {
  return get<{ id: number }>(
    db,
    sql`INSERT INTO adjudications (campaign_id, instance_id, criterion, value, reason, adjudicator)
        VALUES (${a.campaignId}, ${a.instanceId}, ${a.criterion}, ${a.value}, ${a.reason}, ${a.adjudicator}) RETURNING id`,
  )!.id;
}

/** The latest adjudication of each (instance, criterion) of a campaign. */
export function currentAdjudications(db: ReadableDB, campaignId: number): AdjudicationRow[] {
  return all<AdjudicationRow>(
    db,
    sql`SELECT id, instance_id, criterion, value, reason, adjudicator, created_at FROM adjudications a
        WHERE campaign_id = ${campaignId}
          AND id = (SELECT max(id) FROM adjudications b WHERE b.campaign_id = a.campaign_id AND b.instance_id = a.instance_id AND b.criterion = a.criterion)`,
  );
}
