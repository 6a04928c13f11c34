import {
  campaignAnnotatorNames,
  campaignContents,
  campaignInstanceMap,
  instanceHashes,
  instanceRecords,
  publishContents,
  pushCampaignAnnotators,
  pushCampaignInstances,
  upsertInstanceRecords,
  type StoreCampaignContents,
  type StoreCampaignInstance,
  type StoreInstanceRecord,
} from '../../../db/postgres/contents';
import type { PgClient } from '../../../db/postgres/sql';
import { campaignAnnotators, getOrCreateAnnotator } from '../../../db/queries/annotators';
import { addCampaignAnnotator, addCampaignItem, findCampaignByUid, insertCampaign, type CampaignRow } from '../../../db/queries/campaigns';
import { findProtocol, getProtocol } from '../../../db/queries/protocols';
import { campaignInstancePositions } from '../../../db/queries/campaigns';
import { findInstanceByKeyParts, instanceKeyParts, type InstanceKeyParts } from '../../../db/queries/instances';
import { insertProtocolAt } from '../../../db/queries/protocols';
import type { ReadableDB, WritableDB } from '../../../db/sql';
import { AppError } from '../../../shared/api';
import { AwbRecord } from '../../../shared/awb-format';
import { ProtocolDocument } from '../../../shared/protocols';
import { keyOf } from '../../../shared/release/schema';
import { sha256 } from '../hash';
import { RECORD_BATCH, readInstanceRecords } from '../record-reader';
import { WriteContext, writeRecord } from '../record-writer';

/**
 * Carrying a campaign through the shared store to a desktop that lacks it. A maintainer's push
 * stores the campaign's settings, protocol document, annotators and each of its instances as an
 * awb-instance/1 record under its stable key (dataset / source id / ambiguity type, as releases
 * key instances); a pull writes what the desktop lacks with the same writer as `awb import
 * --format awb`, so interpretations, evidence, passages and provenance come along, and an
 * instance already here (same key) is reused.
 *
 * The store's assignments and judgments name instances by the publishing desktop's ids;
 * `InstanceIds` maps them to and from this desktop's ids through the keys.
 */

const keyOfParts = (p: Pick<InstanceKeyParts, 'dataset' | 'source_id' | 'ambiguity_type'>) => keyOf(p.dataset, p.source_id, p.ambiguity_type);

/** Maps a campaign's instance ids between the store and this desktop. */
export class InstanceIds {
  private readonly byId = new Map<number, StoreCampaignInstance>();
  private readonly byKey = new Map<string, StoreCampaignInstance>();
  private readonly toStoreCache = new Map<number, number | undefined>();
  private readonly toLocalCache = new Map<number, number>();

  constructor(
    private readonly db: ReadableDB,
    rows: readonly StoreCampaignInstance[],
  ) {
    for (const row of rows) {
      this.byId.set(row.instance_id, row);
      this.byKey.set(row.instance_key, row);
    }
  }

  /** A campaign published before the store kept instance keys: ids are taken as they are. */
  get identity(): boolean {
    return this.byId.size === 0;
  }

  get rows(): StoreCampaignInstance[] {
    return [...this.byId.values()];
  }

  /** Looks up the keys of many local ids at once (one query instead of one per id). */
  prefetch(localIds: readonly number[]): void {
    if (this.identity) return;
    const wanted = [...new Set(localIds)].filter((id) => !this.toStoreCache.has(id));
    for (const parts of instanceKeyParts(this.db, wanted)) this.toStoreCache.set(parts.id, this.byKey.get(keyOfParts(parts))?.instance_id);
  }

  toStore(localId: number): number | undefined {
    if (this.identity) return localId;
    if (!this.toStoreCache.has(localId)) this.prefetch([localId]);
    return this.toStoreCache.get(localId);
  }

  /** This desktop's id of a store instance id, if this desktop holds the instance. */
  toLocal(storeId: number): number | undefined {
    if (this.identity) return storeId;
    const cached = this.toLocalCache.get(storeId);
    if (cached !== undefined) return cached;
    const row = this.byId.get(storeId);
    if (!row) return undefined;
    const found = findInstanceByKeyParts(this.db, row.dataset, row.source_id, row.ambiguity_type);
    if (found !== undefined) this.toLocalCache.set(storeId, found);
    return found;
  }

  /** Keys of the given store instances (all, without a filter) that this desktop does not hold. */
  lacking(storeIds?: ReadonlySet<number>): string[] {
    const out: string[] = [];
    for (const row of this.byId.values()) {
      if (storeIds && !storeIds.has(row.instance_id)) continue;
      if (findInstanceByKeyParts(this.db, row.dataset, row.source_id, row.ambiguity_type) === undefined) out.push(row.instance_key);
    }
    return out;
  }
}

export async function storeInstanceIds(client: PgClient, db: ReadableDB, uid: string): Promise<InstanceIds> {
  return new InstanceIds(db, await campaignInstanceMap(client, uid));
}

/**
 * A maintainer's push of one campaign's contents, inside the push's PostgreSQL transaction:
 * settings and protocol (once), annotators and instance keys (added), and instance records
 * (added, or replaced when their content changed). Returns the campaign's id map.
 */
export async function publishCampaignContents(client: PgClient, db: ReadableDB, campaign: CampaignRow, log: (line: string) => void): Promise<InstanceIds> {
  const protocol = getProtocol(db, campaign.protocol_id);
  if (!protocol) throw new AppError('internal', `Campaign "${campaign.name}" names a protocol (${campaign.protocol_id}) this database does not hold.`);
  const document: ProtocolDocument = { key: protocol.key, name: protocol.name, description: protocol.description, guidelines: protocol.guidelines, criteria: protocol.criteria };
  await publishContents(client, campaign.uid, {
    protocol_key: protocol.key,
    protocol_version: protocol.version,
    protocol_built_in: protocol.builtIn,
    protocol: JSON.stringify(document),
    selection: campaign.selection,
    per_instance: campaign.per_instance,
    seed: campaign.seed,
  });
  await pushCampaignAnnotators(
    client,
    campaign.uid,
    campaignAnnotators(db, campaign.id).map((a) => a.name),
  );

  const local = campaignInstancePositions(db, campaign.id);
  const parts = new Map(instanceKeyParts(db, local.map((l) => l.instance_id)).map((p) => [p.id, p]));
  const keyById = new Map([...parts.values()].map((p) => [p.id, keyOfParts(p)]));
  const stored = await instanceHashes(client, [...keyById.values()]);
  let written = 0;
  for (let start = 0; start < local.length; start += RECORD_BATCH) {
    const ids = local.slice(start, start + RECORD_BATCH).map((l) => l.instance_id);
    const changed: StoreInstanceRecord[] = [];
    readInstanceRecords(db, ids).forEach((record, i) => {
      const key = keyById.get(ids[i]!)!;
      const text = JSON.stringify(record);
      const hash = sha256(text);
      if (stored.get(key) !== hash) changed.push({ key, hash, record: text });
    });
    written += await upsertInstanceRecords(client, changed);
  }
  if (written) log(`Stored ${written} instance record(s) of "${campaign.name}"`);

  const existing = await campaignInstanceMap(client, campaign.uid);
  const byKey = new Set(existing.map((r) => r.instance_key));
  const taken = new Set(existing.map((r) => r.instance_id));
  let free = [...taken, ...local.map((l) => l.instance_id)].reduce((a, b) => Math.max(a, b), 0) + 1;
  const added: StoreCampaignInstance[] = [];
  for (const l of local) {
    const p = parts.get(l.instance_id)!;
    const key = keyById.get(l.instance_id)!;
    if (byKey.has(key)) continue;
    // The publisher's own ids, unless another desktop's key took one first.
    const id = taken.has(l.instance_id) ? free++ : l.instance_id;
    taken.add(id);
    byKey.add(key);
    added.push({ instance_id: id, instance_key: key, dataset: p.dataset, source_id: p.source_id, ambiguity_type: p.ambiguity_type, position: l.position });
  }
  await pushCampaignInstances(client, campaign.uid, added);
  return new InstanceIds(db, [...existing, ...added]);
}

/** What a desktop needs to create a campaign it lacks, read from the store. */
export interface CampaignPackage {
  uid: string;
  name: string;
  blind: boolean;
  contents: StoreCampaignContents;
  annotators: string[];
}

/** The campaign's settings and annotators; undefined for a campaign published without them. */
export async function fetchCampaignPackage(client: PgClient, campaign: { uid: string; name: string; blind: boolean }): Promise<CampaignPackage | undefined> {
  const contents = await campaignContents(client, campaign.uid);
  if (!contents) return undefined;
  return { uid: campaign.uid, name: campaign.name, blind: campaign.blind, contents, annotators: await campaignAnnotatorNames(client, campaign.uid) };
}

/** The records of the given instance keys, from the store. */
export async function fetchRecords(client: PgClient, keys: readonly string[]): Promise<StoreInstanceRecord[]> {
  return keys.length ? instanceRecords(client, keys) : [];
}

/** Writes received records (inside the caller's transaction); instances already here are kept. Returns how many were new. */
export function writeReceivedRecords(context: WriteContext, records: readonly StoreInstanceRecord[]): number {
  let created = 0;
  for (const stored of records) {
    let record: AwbRecord;
    try {
      record = AwbRecord.parse(JSON.parse(stored.record));
    } catch (error) {
      throw new AppError('invalid_input', `The shared store's record of instance ${stored.key} is not a valid awb-instance/1 record: ${(error as Error).message.slice(0, 300)}`);
    }
    if (writeRecord(context, record) === 'imported') created++;
  }
  return created;
}

export function newWriteContext(db: WritableDB): WriteContext {
  return new WriteContext(db, 'team sync');
}

/**
 * Creates a campaign received from the store (inside the caller's transaction, after its
 * instances are written): its protocol version if this desktop lacks it, the campaign under the
 * same uid, its annotators and its items. Assignments and judgments follow in the pull.
 */
export function createReceivedCampaign(db: WritableDB, pkg: CampaignPackage, ids: InstanceIds): { campaign: CampaignRow; warning: string | null } {
  const c = pkg.contents;
  const parsed = ProtocolDocument.safeParse({ key: c.protocol_key, ...(JSON.parse(c.protocol) as object) });
  if (!parsed.success) throw new AppError('invalid_input', `The shared store's protocol ${c.protocol_key}@${c.protocol_version} is not valid: ${parsed.error.message.slice(0, 300)}`);
  const here = findProtocol(db, `${c.protocol_key}@${c.protocol_version}`);
  let warning: string | null = null;
  if (here && JSON.stringify(here.criteria) !== JSON.stringify(parsed.data.criteria)) {
    warning = `This desktop's protocol ${c.protocol_key}@${c.protocol_version} has other criteria than the one campaign "${pkg.name}" was made with; the campaign uses this desktop's. Ask the maintainer for the protocol file and import it.`;
  }
  const protocolId = here?.id ?? insertProtocolAt(db, { ...parsed.data, version: c.protocol_version, builtIn: c.protocol_built_in });
  const campaignId = insertCampaign(db, {
    uid: pkg.uid,
    name: pkg.name,
    protocolId,
    selection: JSON.parse(c.selection) as Record<string, unknown>,
    perInstance: c.per_instance,
    seed: Number(c.seed),
    blind: pkg.blind,
  });
  for (const name of pkg.annotators) addCampaignAnnotator(db, campaignId, getOrCreateAnnotator(db, name));
  for (const row of ids.rows) {
    if (row.position === null) continue;
    const local = ids.toLocal(row.instance_id);
    if (local !== undefined) addCampaignItem(db, campaignId, local, row.position);
  }
  return { campaign: findCampaignByUid(db, pkg.uid)!, warning };
}
