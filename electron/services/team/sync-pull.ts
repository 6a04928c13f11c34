import { pullJudgments, storeAssignments, type StoreJudgment } from '../../../db/postgres/store';
import { getOrCreateAnnotator } from '../../../db/queries/annotators';
import { insertAudit } from '../../../db/queries/audit';
import { addCampaignAnnotator, type CampaignRow } from '../../../db/queries/campaigns';
import { insertJudgment, judgmentExists, type JudgmentSource } from '../../../db/queries/judgments';
import { campaignSyncMarks, setPulledThrough, setPushedThrough } from '../../../db/queries/team-campaign-sync';
import { ensureAssignment } from '../../../db/queries/assignments';
import { instanceExists } from '../../../db/queries/instances';
import { judgmentUidsAfter, latestJudgment } from '../../../db/queries/judgments';
import { transaction } from '../../../db/sql';
import {
  createReceivedCampaign,
  fetchCampaignPackage,
  fetchRecords,
  newWriteContext,
  storeInstanceIds,
  writeReceivedRecords,
  type CampaignPackage,
  type InstanceIds,
} from './campaign-transfer';
import { storeStep, type StoreCampaign, type SyncSession } from './sync-session';

/**
 * Sync's pull: read from the store what this desktop lacks (campaigns it should hold, with their
 * instances; assignments and judgments since the last pull, in the store's order), then write it
 * all in one SQLite transaction with the new marks, so a pull cut short leaves no half-made
 * campaign. A blind campaign's annotator gets only its own instances and judgments.
 */

/** What the store holds for one campaign, read before anything is written here. */
interface Incoming {
  /** Null for a campaign this desktop lacks: made from `received` in the transaction. */
  campaign: CampaignRow | null;
  received: CampaignPackage | null;
  ids: InstanceIds;
  records: Awaited<ReturnType<typeof fetchRecords>>;
  assignments: Awaited<ReturnType<typeof storeAssignments>>;
  judgments: StoreJudgment[];
}

export async function pullCampaigns(session: SyncSession, syncing: readonly CampaignRow[], toReceive: readonly StoreCampaign[]): Promise<void> {
  const incoming = await storeStep(session, 'pull', () => readIncoming(session, syncing, toReceive));
  const { report } = session;
  if (report.notHeld.length) {
    report.warnings.push(
      `${report.notHeld.length} campaign(s) on the shared store are not in this database and were published without their contents (${report.notHeld.join(', ')}): a maintainer's sync with this version of the app stores them, and the next sync here brings them.`,
    );
  }
  report.campaigns = incoming.length;
  session.log(`Writing ${incoming.reduce((n, c) => n + c.judgments.length, 0)} pulled judgment(s)…`);
  const missingInstances = new Set<number>();
  transaction(session.db, () => {
    const context = newWriteContext(session.db);
    for (const entry of incoming) {
      const written = writeReceivedRecords(context, entry.records);
      if (written) session.log(`Received ${written} instance(s)`);
      writeCampaignPull(session, campaignHere(session, entry), entry, missingInstances);
    }
  });
  if (missingInstances.size) {
    report.warnings.push(`${missingInstances.size} instance(s) of synced campaigns are not in this database; their judgments were left on the store.`);
  }
}

async function readIncoming(session: SyncSession, syncing: readonly CampaignRow[], toReceive: readonly StoreCampaign[]): Promise<Incoming[]> {
  const { client, config } = session;
  const incoming: Incoming[] = [];
  for (const campaign of syncing) {
    const blindForMe = config.role === 'annotator' && campaign.blind === 1 ? config.annotator : null;
    const ids = session.idMaps.get(campaign.uid)!;
    const assignments = await storeAssignments(client, campaign.uid, blindForMe);
    const records = await recordsFor(session, ids, assignments, blindForMe);
    const judgments = await pullJudgments(client, campaign.uid, campaignSyncMarks(session.db, campaign.uid).pulled_through, blindForMe);
    incoming.push({ campaign, received: null, ids, records, assignments, judgments });
  }
  for (const campaign of toReceive) {
    const received = await fetchCampaignPackage(client, campaign);
    if (!received) {
      session.report.notHeld.push(campaign.uid);
      continue;
    }
    const blindForMe = config.role === 'annotator' && campaign.blind ? config.annotator : null;
    const ids = await storeInstanceIds(client, session.db, campaign.uid);
    const assignments = await storeAssignments(client, campaign.uid, blindForMe);
    session.log(`Receiving campaign "${campaign.name}" (${campaign.uid})…`);
    const records = await recordsFor(session, ids, assignments, blindForMe);
    incoming.push({ campaign: null, received, ids, records, assignments, judgments: await pullJudgments(client, campaign.uid, 0, blindForMe) });
  }
  return incoming;
}

/** The instances this desktop needs: a blind campaign's annotator gets only its own. */
function recordsFor(session: SyncSession, ids: InstanceIds, assignments: Incoming['assignments'], blindForMe: string | null) {
  return ids.identity ? Promise.resolve([]) : fetchRecords(session.client, ids.lacking(blindForMe === null ? undefined : new Set(assignments.map((a) => a.instance_id))));
}

/** The campaign here, made from the store's package when this desktop lacks it. */
function campaignHere(session: SyncSession, entry: Incoming): CampaignRow {
  if (entry.campaign) return entry.campaign;
  const made = createReceivedCampaign(session.db, entry.received!, entry.ids);
  if (made.warning) session.report.warnings.push(made.warning);
  session.log(`Created campaign "${made.campaign.name}" (${made.campaign.uid}) from the shared store`);
  return made.campaign;
}

/** One campaign's pulled assignments and judgments, its marks, and the audit of who made them. */
function writeCampaignPull(session: SyncSession, campaign: CampaignRow, entry: Incoming, missingInstances: Set<number>): void {
  const db = session.db;
  const assignmentFor = assignmentPlacer(session, campaign, entry.ids, missingInstances);
  for (const a of entry.assignments) assignmentFor(a.annotator, a.instance_id, a.position);
  const byPerson = new Map<string, { judgments: number; devices: Set<string> }>();
  let through = 0;
  let blocked = false;
  for (const j of entry.judgments) {
    // The mark stops before the first judgment that could not be placed, so a later sync (once
    // its instance is here) pulls it again.
    if (!blocked) through = Number(j.seq);
    if (judgmentExists(db, j.uid)) continue;
    const assignmentId = assignmentFor(j.annotator, j.instance_id, null);
    if (assignmentId === undefined) {
      if (!blocked) through = Number(j.seq) - 1;
      blocked = true;
      continue;
    }
    insertPulledJudgment(session, assignmentId, j);
    const person = byPerson.get(j.annotator) ?? { judgments: 0, devices: new Set<string>() };
    person.judgments++;
    person.devices.add(j.device);
    byPerson.set(j.annotator, person);
  }
  if (through > 0) setPulledThrough(db, campaign.uid, through);
  // The audit trail names who made what came in, and from which desktop.
  for (const [annotator, person] of byPerson) {
    insertAudit(db, {
      at: session.now().toISOString(),
      account: annotator,
      role: 'annotator',
      operation: 'sync:pull',
      summary: JSON.stringify({ campaign: campaign.uid, judgments: person.judgments, devices: [...person.devices] }),
      ok: 1,
    });
  }
  // What was just pulled is on the store: the next push need not look at it again.
  const newest = judgmentUidsAfter(db, campaign.id, campaignSyncMarks(db, campaign.uid).pushed_through);
  const pulledUids = new Set(entry.judgments.map((j) => j.uid));
  if (newest.length > 0 && newest.every((row) => pulledUids.has(row.uid))) setPushedThrough(db, campaign.uid, newest.at(-1)!.id);
}

/**
 * The assignment a pulled judgment belongs to, made here when it is new (its annotator joining
 * the campaign); undefined when its instance is not in this database.
 */
function assignmentPlacer(session: SyncSession, campaign: CampaignRow, ids: InstanceIds, missingInstances: Set<number>) {
  const { db, report } = session;
  const annotatorIds = new Map<string, number>();
  const annotatorId = (name: string) => {
    let id = annotatorIds.get(name);
    if (id === undefined) {
      id = getOrCreateAnnotator(db, name);
      addCampaignAnnotator(db, campaign.id, id);
      annotatorIds.set(name, id);
    }
    return id;
  };
  const assignmentIds = new Map<string, number>();
  return (annotator: string, storeInstanceId: number, position: number | null): number | undefined => {
    const key = `${annotator}\u0000${storeInstanceId}`;
    const known = assignmentIds.get(key);
    if (known !== undefined) return known;
    const instanceId = ids.toLocal(storeInstanceId);
    if (instanceId === undefined || !instanceExists(db, instanceId)) {
      missingInstances.add(storeInstanceId);
      return undefined;
    }
    const made = ensureAssignment(db, campaign.id, annotatorId(annotator), instanceId, position ?? Number.MAX_SAFE_INTEGER);
    if (made.created) report.assignmentsPulled++;
    assignmentIds.set(key, made.id);
    return made.id;
  };
}

/**
 * A pulled judgment written without knowing this desktop's latest value of the same criterion,
 * and disagreeing with it, is a conflict: both values stay in the history, flagged.
 */
function insertPulledJudgment(session: SyncSession, assignmentId: number, j: StoreJudgment): void {
  const latest = latestJudgment(session.db, assignmentId, j.criterion);
  const conflict = latest !== undefined && latest.uid !== j.prior_uid && latest.value !== j.value;
  if (conflict) session.report.conflicts++;
  insertJudgment(session.db, {
    uid: j.uid,
    assignmentId,
    criterion: j.criterion,
    value: j.value,
    comment: j.comment,
    source: j.source as JudgmentSource,
    itemMs: j.item_ms,
    createdAt: j.created_at,
    conflict,
  });
  session.report.pulled++;
}
