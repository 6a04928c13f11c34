import { pgAll, pgRun, pgSql, type PgClient } from './sql';

/**
 * The shared store's copy of what a desktop needs to judge a campaign it lacks: the campaign's
 * settings and protocol document, its annotators, its instances as awb-instance/1 records (keyed
 * by the stable instance key), and the map from the instance ids the store's assignments and
 * judgments carry to those keys.
 */

export interface StoreCampaignContents {
  protocol_key: string;
  protocol_version: number;
  protocol_built_in: boolean;
  /** The protocol document (name, description, guidelines, criteria) as JSON text. */
  protocol: string;
  /** The selection as JSON text. */
  selection: string;
  per_instance: number;
  /** bigint comes back as text. */
  seed: string;
}

export interface StoreCampaignInstance {
  instance_id: number;
  instance_key: string;
  dataset: string;
  source_id: string;
  ambiguity_type: string;
  position: number | null;
}

export interface StoreInstanceRecord {
  key: string;
  hash: string;
  record: string;
}

const BATCH = 500;

function batches<T>(rows: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let start = 0; start < rows.length; start += BATCH) out.push(rows.slice(start, start + BATCH));
  return out;
}

/** Stores a campaign's settings unless the store has them (they do not change once published). */
export async function publishContents(client: PgClient, uid: string, c: Omit<StoreCampaignContents, 'seed'> & { seed: number }): Promise<boolean> {
  return (
    (await pgRun(
      client,
      pgSql`INSERT INTO awb_campaign_contents (campaign_uid, protocol_key, protocol_version, protocol_built_in, protocol, selection, per_instance, seed)
            VALUES (${uid}, ${c.protocol_key}, ${c.protocol_version}, ${c.protocol_built_in}, ${c.protocol}, ${c.selection}, ${c.per_instance}, ${c.seed})
            ON CONFLICT (campaign_uid) DO NOTHING`,
    )) > 0
  );
}

export async function campaignContents(client: PgClient, uid: string): Promise<StoreCampaignContents | undefined> {
  const rows = await pgAll<StoreCampaignContents>(
    client,
    pgSql`SELECT protocol_key, protocol_version, protocol_built_in, protocol, selection, per_instance, seed::text AS seed
          FROM awb_campaign_contents WHERE campaign_uid = ${uid}`,
  );
  return rows[0];
}

export async function pushCampaignAnnotators(client: PgClient, uid: string, names: readonly string[]): Promise<number> {
  if (names.length === 0) return 0;
  return pgRun(
    client,
    pgSql`INSERT INTO awb_campaign_annotators (campaign_uid, annotator) SELECT ${uid}, * FROM unnest(${names}::text[]) ON CONFLICT DO NOTHING`,
  );
}

export async function campaignAnnotatorNames(client: PgClient, uid: string): Promise<string[]> {
  return (await pgAll<{ annotator: string }>(client, pgSql`SELECT annotator FROM awb_campaign_annotators WHERE campaign_uid = ${uid} ORDER BY annotator`)).map(
    (r) => r.annotator,
  );
}

/** The campaigns in which the store holds an assignment for this person. */
export async function campaignsAssignedTo(client: PgClient, annotator: string): Promise<string[]> {
  return (await pgAll<{ uid: string }>(client, pgSql`SELECT DISTINCT campaign_uid AS uid FROM awb_assignments WHERE annotator = ${annotator}`)).map((r) => r.uid);
}

/** The content hashes the store holds for these instance keys. */
export async function instanceHashes(client: PgClient, keys: readonly string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const part of batches(keys)) {
    for (const row of await pgAll<{ key: string; hash: string }>(client, pgSql`SELECT key, hash FROM awb_instances WHERE key = ANY(${part}::text[])`)) {
      out.set(row.key, row.hash);
    }
  }
  return out;
}

/** Adds records, and replaces a stored one only when its hash differs. Returns how many were written. */
export async function upsertInstanceRecords(client: PgClient, rows: readonly StoreInstanceRecord[]): Promise<number> {
  let written = 0;
  for (const part of batches(rows)) {
    written += await pgRun(
      client,
      pgSql`INSERT INTO awb_instances (key, hash, record)
            SELECT * FROM unnest(${part.map((r) => r.key)}::text[], ${part.map((r) => r.hash)}::text[], ${part.map((r) => r.record)}::text[])
            ON CONFLICT (key) DO UPDATE SET hash = excluded.hash, record = excluded.record, updated_at = now()
            WHERE awb_instances.hash <> excluded.hash`,
    );
  }
  return written;
}

export async function instanceRecords(client: PgClient, keys: readonly string[]): Promise<StoreInstanceRecord[]> {
  const out: StoreInstanceRecord[] = [];
  for (const part of batches(keys)) {
    out.push(...(await pgAll<StoreInstanceRecord>(client, pgSql`SELECT key, hash, record FROM awb_instances WHERE key = ANY(${part}::text[]) ORDER BY key`)));
  }
  return out;
}

export async function campaignInstanceMap(client: PgClient, uid: string): Promise<StoreCampaignInstance[]> {
  return pgAll<StoreCampaignInstance>(
    client,
    pgSql`SELECT instance_id, instance_key, dataset, source_id, ambiguity_type, position FROM awb_campaign_instances
          WHERE campaign_uid = ${uid} ORDER BY instance_id`,
  );
}

/** Adds instance-id-to-key rows; existing ones (by id or by key) are kept. */
export async function pushCampaignInstances(client: PgClient, uid: string, rows: readonly StoreCampaignInstance[]): Promise<number> {
  let inserted = 0;
  for (const part of batches(rows)) {
    inserted += await pgRun(
      client,
      pgSql`INSERT INTO awb_campaign_instances (campaign_uid, instance_id, instance_key, dataset, source_id, ambiguity_type, position)
            SELECT ${uid}, * FROM unnest(${part.map((r) => r.instance_id)}::int[], ${part.map((r) => r.instance_key)}::text[], ${part.map((r) => r.dataset)}::text[],
                                         ${part.map((r) => r.source_id)}::text[], ${part.map((r) => r.ambiguity_type)}::text[], ${part.map((r) => r.position)}::int[])
            ON CONFLICT DO NOTHING`,
    );
  }
  return inserted;
}
