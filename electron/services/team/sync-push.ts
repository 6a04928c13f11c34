import { publishCampaign, pushAssignments, pushJudgments } from '../../../db/postgres/store';
import { campaignAssignments } from '../../../db/queries/assignments';
import type { CampaignRow } from '../../../db/queries/campaigns';
import { campaignSyncMarks, setPushedThrough } from '../../../db/queries/team-campaign-sync';
import { countJudgmentsAfter, judgmentsAfter } from '../../../db/queries/judgments';
import { transaction } from '../../../db/sql';
import { AppError } from '../../../shared/api';
import { publishCampaignContents, storeInstanceIds, type InstanceIds } from './campaign-transfer';
import { storeError, type SyncSession } from './sync-session';

/**
 * Sync's push: every judgment written here since the last push, in one PostgreSQL transaction
 * (a maintainer's desktop first publishes its campaigns, their contents and assignments), then
 * this file records how far it got. Answers the campaigns that are on the store, to pull next.
 */
export async function pushCampaigns(session: SyncSession, local: readonly CampaignRow[]): Promise<CampaignRow[]> {
  const { client, db, report } = session;
  const pushedMarks: { uid: string; through: number }[] = [];
  const syncing: CampaignRow[] = [];
  try {
    await client.query('BEGIN');
    for (const campaign of local) {
      if (!(await onStore(session, campaign))) continue;
      syncing.push(campaign);
      const through = await pushCampaign(session, campaign);
      if (through !== null) pushedMarks.push({ uid: campaign.uid, through });
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error instanceof AppError ? error : storeError(error, session.url, 'push');
  }
  transaction(db, () => {
    for (const mark of pushedMarks) setPushedThrough(db, mark.uid, mark.through);
  });
  for (const gone of report.deletedOnServer) {
    report.warnings.push(
      `Campaign "${gone.name}" (${gone.uid}) was deleted on the shared store: its ${gone.heldJudgments} judgment(s) not yet pushed stay in this database and were not sent. Ask a maintainer whether to restore it.`,
    );
  }
  return syncing;
}

/**
 * Whether a campaign is on the store to sync with: a maintainer publishes one the store lacks; a
 * campaign the store lacks or deleted keeps its judgments here, and the report says so.
 */
async function onStore(session: SyncSession, campaign: CampaignRow): Promise<boolean> {
  const { client, db, config, report } = session;
  let onServer = session.onServer.get(campaign.uid);
  if (!onServer && config.role === 'maintainer') {
    await publishCampaign(client, { uid: campaign.uid, name: campaign.name, blind: campaign.blind === 1, by: config.annotator ?? config.device });
    onServer = { uid: campaign.uid, name: campaign.name, blind: campaign.blind === 1, deleted: false };
    session.onServer.set(campaign.uid, onServer);
    session.log(`Published campaign "${campaign.name}" (${campaign.uid})`);
  }
  if (onServer && !onServer.deleted) return true;
  const held = countJudgmentsAfter(db, campaign.id, campaignSyncMarks(db, campaign.uid).pushed_through);
  if (onServer?.deleted) report.deletedOnServer.push({ uid: campaign.uid, name: campaign.name, heldJudgments: held });
  else if (held > 0) report.warnings.push(`Campaign "${campaign.name}" is not on the shared store yet (a maintainer's sync publishes it): its ${held} judgment(s) stay here for now.`);
  return false;
}

/** One campaign's push: its contents and assignments (a maintainer's), then its unsent judgments; the id pushed through, or null. */
async function pushCampaign(session: SyncSession, campaign: CampaignRow): Promise<number | null> {
  const { client, db, config, report } = session;
  const maintainer = config.role === 'maintainer';
  const ids = maintainer ? await publishCampaignContents(client, db, campaign, session.log) : await storeInstanceIds(client, db, campaign.uid);
  session.idMaps.set(campaign.uid, ids);
  if (maintainer) await pushCampaignAssignments(session, campaign, ids);
  const unsent = judgmentsAfter(db, campaign.id, campaignSyncMarks(db, campaign.uid).pushed_through);
  ids.prefetch(unsent.map((j) => j.instance_id));
  // A judgment of an instance the store cannot name holds back the rest (in order).
  const stuck = unsent.findIndex((j) => ids.toStore(j.instance_id) === undefined);
  const outgoing = stuck < 0 ? unsent : unsent.slice(0, stuck);
  if (stuck >= 0) {
    report.warnings.push(
      `${unsent.length - stuck} judgment(s) of "${campaign.name}" concern an instance the shared store does not list for this campaign: they stay here until a maintainer's sync publishes it.`,
    );
  }
  if (outgoing.length === 0) return null;
  session.log(`Pushing ${outgoing.length} judgment(s) of "${campaign.name}"…`);
  const fresh = await pushJudgments(
    client,
    campaign.uid,
    config.device,
    outgoing.map((j) => ({
      uid: j.uid,
      annotator: j.annotator,
      instanceId: ids.toStore(j.instance_id)!,
      criterion: j.criterion,
      value: j.value,
      comment: j.comment,
      source: j.source,
      itemMs: j.item_ms,
      createdAt: j.created_at,
      priorUid: j.prior_uid,
    })),
  );
  report.pushed += fresh;
  report.alreadyOnServer += outgoing.length - fresh;
  return outgoing.at(-1)!.id;
}

async function pushCampaignAssignments(session: SyncSession, campaign: CampaignRow, ids: InstanceIds): Promise<void> {
  const local = campaignAssignments(session.db, campaign.id);
  ids.prefetch(local.map((a) => a.instance_id));
  const rows = local.flatMap((a) => {
    const instanceId = ids.toStore(a.instance_id);
    return instanceId === undefined ? [] : [{ annotator: a.annotator, instanceId, position: a.position }];
  });
  await pushAssignments(session.client, campaign.uid, rows);
}
