import { pgAll, pgRun, pgSql, type PgClient } from './sql';

/** The shared store's queries: campaigns, assignments and append-only judgments. */

export interface StoreCampaign {
  uid: string;
  name: string;
  blind: boolean;
  deleted: boolean;
}

export interface StoreJudgment {
  seq: string;
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
  device: string;
}

export interface PushedJudgment {
  uid: string;
  annotator: string;
  instanceId: number;
  criterion: string;
  value: string | null;
  comment: string;
  source: string;
  itemMs: number | null;
  createdAt: string;
  priorUid: string | null;
}

export async function storeNow(client: PgClient): Promise<Date> {
  const rows = await pgAll<{ now: Date }>(client, pgSql`SELECT now() AS now`);
  return rows[0]!.now;
}

export async function storeCampaigns(client: PgClient): Promise<StoreCampaign[]> {
  return pgAll<StoreCampaign>(client, pgSql`SELECT uid, name, blind, deleted_at IS NOT NULL AS deleted FROM awb_campaigns ORDER BY uid`);
}

/** Publishes a campaign unless the store has it (or its tombstone). */
export async function publishCampaign(client: PgClient, c: { uid: string; name: string; blind: boolean; by: string }): Promise<boolean> {
  return (await pgRun(client, pgSql`INSERT INTO awb_campaigns (uid, name, blind, published_by) VALUES (${c.uid}, ${c.name}, ${c.blind}, ${c.by}) ON CONFLICT (uid) DO NOTHING`)) > 0;
}

export async function deleteCampaign(client: PgClient, uid: string): Promise<boolean> {
  return (await pgRun(client, pgSql`UPDATE awb_campaigns SET deleted_at = now() WHERE uid = ${uid} AND deleted_at IS NULL`)) > 0;
}

export async function pushAssignments(client: PgClient, campaignUid: string, rows: readonly { annotator: string; instanceId: number; position: number }[]): Promise<number> {
  if (rows.length === 0) return 0;
  return pgRun(
    client,
    pgSql`INSERT INTO awb_assignments (campaign_uid, annotator, instance_id, position)
          SELECT ${campaignUid}, * FROM unnest(${rows.map((r) => r.annotator)}::text[], ${rows.map((r) => r.instanceId)}::int[], ${rows.map((r) => r.position)}::int[])
          ON CONFLICT DO NOTHING`,
  );
}

export async function storeAssignments(client: PgClient, campaignUid: string, annotator: string | null): Promise<{ annotator: string; instance_id: number; position: number }[]> {
  return pgAll(
    client,
    pgSql`SELECT annotator, instance_id, position FROM awb_assignments
          WHERE campaign_uid = ${campaignUid} AND (${annotator}::text IS NULL OR annotator = ${annotator}) ORDER BY annotator, position`,
  );
}

/** Appends judgments; those whose uid the store holds are passed over. Returns how many were new. */
export async function pushJudgments(client: PgClient, campaignUid: string, device: string, rows: readonly PushedJudgment[]): Promise<number> {
  let inserted = 0;
  const BATCH = 20_000;
  for (let start = 0; start < rows.length; start += BATCH) {
    const part = rows.slice(start, start + BATCH);
    inserted += await pgRun(
      client,
      pgSql`INSERT INTO awb_judgments (uid, campaign_uid, annotator, instance_id, criterion, value, comment, source, item_ms, created_at, prior_uid, device)
            SELECT u, ${campaignUid}, a, i, c, v, m, s, t, w, p, ${device}
            FROM unnest(${part.map((r) => r.uid)}::text[], ${part.map((r) => r.annotator)}::text[], ${part.map((r) => r.instanceId)}::int[],
                        ${part.map((r) => r.criterion)}::text[], ${part.map((r) => r.value)}::text[], ${part.map((r) => r.comment)}::text[],
                        ${part.map((r) => r.source)}::text[], ${part.map((r) => r.itemMs)}::int[], ${part.map((r) => r.createdAt)}::text[],
                        ${part.map((r) => r.priorUid)}::text[])
                 WITH ORDINALITY AS x(u, a, i, c, v, m, s, t, w, p, n)
            ORDER BY n
            ON CONFLICT (uid) DO NOTHING`,
    );
  }
  return inserted;
}

/**
 * Judgments of a campaign after `afterSeq`, in the order they reached the store. With
 * `onlyAnnotator`, only that person's (a blind campaign read by an annotator).
 */
export async function pullJudgments(client: PgClient, campaignUid: string, afterSeq: number, onlyAnnotator: string | null): Promise<StoreJudgment[]> {
  return pgAll<StoreJudgment>(
    client,
    pgSql`SELECT seq::text AS seq, uid, annotator, instance_id, criterion, value, comment, source, item_ms, created_at, prior_uid, device
          FROM awb_judgments
          WHERE campaign_uid = ${campaignUid} AND seq > ${afterSeq} AND (${onlyAnnotator}::text IS NULL OR annotator = ${onlyAnnotator})
          ORDER BY seq`,
  );
}

