import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { campaignsAssignedTo } from '../../../db/postgres/contents';
import { migratePostgres } from '../../../db/postgres/migrate';
import {
  deleteCampaign,
  publishCampaign,
  pullJudgments,
  pushAssignments,
  pushJudgments,
  storeAssignments,
  storeCampaigns,
  storeNow,
  type StoreJudgment,
} from '../../../db/postgres/store';
import { getOrCreateAnnotator } from '../../../db/queries/annotators';
import { insertAudit } from '../../../db/queries/audit';
import { campaignAssignments } from '../../../db/queries/assignments';
import { addCampaignAnnotator, listCampaigns, type CampaignRow } from '../../../db/queries/campaigns';
import { insertJudgment, judgmentExists, type JudgmentSource } from '../../../db/queries/judgments';
import { ensureAssignment } from '../../../db/queries/assignments';
import { instanceExists } from '../../../db/queries/instances';
import { countJudgmentsAfter, judgmentsAfter, judgmentUidsAfter, latestJudgment } from '../../../db/queries/judgments';
import { campaignSyncMarks, setPulledThrough, setPushedThrough } from '../../../db/queries/team-campaign-sync';
import { getTeamSync, recordSyncOutcome, saveTeamSync, type TeamSyncRow } from '../../../db/queries/team-sync';
import { transaction, type WritableDB } from '../../../db/sql';
import { AppError, type SyncReport, type TeamStatus } from '../../../shared/api';
import {
  createReceivedCampaign,
  fetchCampaignPackage,
  fetchRecords,
  newWriteContext,
  publishCampaignContents,
  storeInstanceIds,
  writeReceivedRecords,
  type CampaignPackage,
  type InstanceIds,
} from './campaign-transfer';
import { connectionUrl, redactStoreUrl, scrubSecrets } from './store-url';

/**
 * Sync between this desktop's SQLite file (the working copy, usable offline) and the shared
 * PostgreSQL store. One run: push, then pull, each side's writes in one transaction.
 *
 * - Push: every judgment written here since the last push, by uid, in one PostgreSQL transaction
 *   (a uid the store holds is passed over, so a push repeated after a crash stores nothing twice);
 *   then this file records how far it got. A maintainer's desktop also publishes its campaigns
 *   with what an empty desktop needs to judge them (settings, protocol, annotators, assignments,
 *   and each instance as an awb-instance/1 record; see campaign-transfer.ts).
 * - Pull: campaigns this desktop lacks (an annotator's: those it is assigned in), with their
 *   instances, then the assignments and judgments that reached the store since the last pull, in
 *   the store's order, all into one SQLite transaction with the new mark, so a pull cut short
 *   leaves no half-made campaign. An annotator's desktop pulls only its own judgments (and only
 *   its own instances) of a blind campaign. A pulled judgment that was written without
 *   knowing this desktop's latest value of the same criterion, and disagrees with it, is flagged
 *   as a conflict (both values stay in the history; the maintainer settles it by adjudication).
 * - A campaign the store deleted keeps its judgments here, unpushed, and the report says so.
 */

export interface SyncOptions {
  /** A URL given for this run (may carry a password; never kept). */
  postgres?: string | undefined;
  now?: () => Date;
  log?: (line: string) => void;
  env?: NodeJS.ProcessEnv;
}

const SKEW_WARNING_SECONDS = 60;

export function configureSync(db: WritableDB, request: { postgres: string; role: 'maintainer' | 'annotator'; annotator?: string | undefined }): TeamStatus['sync'] {
  if (request.role === 'annotator' && !request.annotator) {
    throw new AppError('invalid_input', 'An annotator desktop needs the annotator it belongs to: give --annotator NAME.');
  }
  let store: string;
  try {
    store = redactStoreUrl(request.postgres);
  } catch (error) {
    throw new AppError('invalid_input', (error as Error).message);
  }
  const existing = getTeamSync(db);
  saveTeamSync(db, { store, device: existing?.device ?? randomUUID(), annotator: request.annotator ?? null, role: request.role });
  return syncStatus(db);
}

export function syncStatus(db: WritableDB): TeamStatus['sync'] {
  const row = getTeamSync(db);
  if (!row) return { configured: false, store: null, device: null, role: null, annotator: null, lastSyncAt: null, lastError: null, pending: 0 };
  let pending = 0;
  for (const campaign of listCampaigns(db)) pending += countJudgmentsAfter(db, campaign.id, campaignSyncMarks(db, campaign.uid).pushed_through);
  return {
    configured: true,
    store: row.store,
    device: row.device,
    role: row.role,
    annotator: row.annotator,
    lastSyncAt: row.last_sync_at,
    lastError: row.last_error,
    pending,
  };
}

async function connect(url: string, env: NodeJS.ProcessEnv): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000, ...(env.PGPASSWORD ? { password: env.PGPASSWORD } : {}) });
  // A server that goes away emits 'error' on an idle client; the query in flight rejects anyway.
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => undefined);
    throw storeError(error, url, 'connect');
  }
  return client;
}

function storeError(error: unknown, url: string, step: 'connect' | 'push' | 'pull' | 'prepare'): AppError {
  const raw = scrubSecrets((error as Error).message ?? String(error));
  const where = redactStoreUrl(url);
  const code = (error as { code?: string }).code;
  const gone = code === 'ECONNREFUSED' || code === 'ECONNRESET' || code === '57P01' || code === '57P02' || code === '57P03' || /terminat|ECONNRESET|Connection ended|closed/i.test(raw);
  const consequence =
    step === 'push'
      ? 'Nothing of this push was stored (its transaction was rolled back); every judgment is still here and the next sync sends it.'
      : step === 'pull'
        ? 'This desktop kept everything it had; what was pushed before stays pushed, and the next sync pulls the rest.'
        : 'Nothing was changed on either side.';
  if (step === 'connect' && /password must be a string|no password/i.test(raw)) {
    return new AppError('unauthorized', `The shared store at ${where} asks for a password: set PGPASSWORD (or AWB_POSTGRES_URL) for this command; it is never kept in the database.`);
  }
  if (step === 'connect') return new AppError('conflict', `Cannot reach the shared store at ${where}: ${raw}. Work goes on offline; sync again when it is back.`);
  if (gone) return new AppError('conflict', `The shared store at ${where} went away during the ${step}: ${raw}. ${consequence}`);
  return new AppError('internal', `Sync failed during the ${step} (${where}): ${raw}. ${consequence}`);
}

function requireConfig(db: WritableDB): TeamSyncRow {
  const row = getTeamSync(db);
  if (!row) throw new AppError('invalid_input', 'This database is not set up for sync: run `awb team init --postgres postgres://user@host:port/database` first.');
  return row;
}

export async function removeStoreCampaign(db: WritableDB, uid: string, options: SyncOptions = {}): Promise<{ ok: true }> {
  const config = requireConfig(db);
  if (config.role !== 'maintainer') throw new AppError('forbidden', 'Only a maintainer desktop may delete a campaign from the shared store.');
  const url = connectionUrl(options.postgres, config.store, options.env);
  const client = await connect(url, options.env ?? process.env);
  try {
    await migratePostgres(client);
    if (!(await deleteCampaign(client, uid))) throw new AppError('not_found', `The shared store holds no campaign ${uid}.`);
    return { ok: true };
  } finally {
    await client.end().catch(() => undefined);
  }
}

export async function runSync(db: WritableDB, options: SyncOptions = {}): Promise<SyncReport> {
  const config = requireConfig(db);
  const now = options.now ?? (() => new Date());
  const log = options.log ?? (() => undefined);
  const env = options.env ?? process.env;
  const started = performance.now();
  let url: string;
  try {
    url = connectionUrl(options.postgres, config.store, env);
  } catch (error) {
    throw new AppError('invalid_input', (error as Error).message);
  }
  try {
    const report = await syncWith(db, config, url, { now, log, env });
    report.seconds = Math.round((performance.now() - started) / 10) / 100;
    recordSyncOutcome(db, { at: now().toISOString(), error: null, report: JSON.stringify(report) });
    return report;
  } catch (error) {
    const message = error instanceof AppError ? error.message : scrubSecrets((error as Error).message);
    recordSyncOutcome(db, { at: now().toISOString(), error: message, report: null });
    throw error instanceof AppError ? error : new AppError('internal', message);
  }
}

async function syncWith(
  db: WritableDB,
  config: TeamSyncRow,
  url: string,
  { now, log, env }: { now: () => Date; log: (line: string) => void; env: NodeJS.ProcessEnv },
): Promise<SyncReport> {
  const client = await connect(url, env);
  const report: SyncReport = {
    store: redactStoreUrl(url),
    pushed: 0,
    alreadyOnServer: 0,
    pulled: 0,
    assignmentsPulled: 0,
    conflicts: 0,
    campaigns: 0,
    deletedOnServer: [],
    notHeld: [],
    clockSkewSeconds: null,
    warnings: [],
    seconds: 0,
  };
  try {
    let server: Awaited<ReturnType<typeof storeCampaigns>>;
    let assignedHere: Set<string> | null = null;
    try {
      await migratePostgres(client);
      const serverNow = await storeNow(client);
      const skew = Math.round((now().getTime() - serverNow.getTime()) / 1000);
      if (Math.abs(skew) > SKEW_WARNING_SECONDS) {
        report.clockSkewSeconds = skew;
        report.warnings.push(
          `This computer's clock is ${Math.abs(skew)} s ${skew > 0 ? 'ahead of' : 'behind'} the shared store's. Judgments are ordered by when they reach the store, not by their timestamps, so none is lost or reordered; but the times written on judgments made here are off by as much: set the clock right.`,
        );
      }
      server = await storeCampaigns(client);
      if (config.role === 'annotator') assignedHere = new Set(await campaignsAssignedTo(client, config.annotator ?? ''));
    } catch (error) {
      throw error instanceof AppError ? error : storeError(error, url, 'prepare');
    }
    const byUid = new Map(server.map((c) => [c.uid, c]));
    const local = listCampaigns(db);
    const localUids = new Set(local.map((c) => c.uid));
    // Campaigns to bring here: all the store holds (an annotator's: those it is assigned in).
    const toReceive = server.filter((c) => !c.deleted && !localUids.has(c.uid) && (assignedHere === null || assignedHere.has(c.uid)));
    const idMaps = new Map<string, InstanceIds>();

    // ---- push: one PostgreSQL transaction, then the marks here -----------------------------
    const pushedMarks: { uid: string; through: number }[] = [];
    const syncing: CampaignRow[] = [];
    try {
      await client.query('BEGIN');
      for (const campaign of local) {
        let onServer = byUid.get(campaign.uid);
        if (!onServer && config.role === 'maintainer') {
          await publishCampaign(client, { uid: campaign.uid, name: campaign.name, blind: campaign.blind === 1, by: config.annotator ?? config.device });
          onServer = { uid: campaign.uid, name: campaign.name, blind: campaign.blind === 1, deleted: false };
          byUid.set(campaign.uid, onServer);
          log(`Published campaign "${campaign.name}" (${campaign.uid})`);
        }
        const marks = campaignSyncMarks(db, campaign.uid);
        if (!onServer || onServer.deleted) {
          const held = countJudgmentsAfter(db, campaign.id, marks.pushed_through);
          if (onServer?.deleted) report.deletedOnServer.push({ uid: campaign.uid, name: campaign.name, heldJudgments: held });
          else if (held > 0) report.warnings.push(`Campaign "${campaign.name}" is not on the shared store yet (a maintainer's sync publishes it): its ${held} judgment(s) stay here for now.`);
          continue;
        }
        syncing.push(campaign);
        const ids = config.role === 'maintainer' ? await publishCampaignContents(client, db, campaign, log) : await storeInstanceIds(client, db, campaign.uid);
        idMaps.set(campaign.uid, ids);
        if (config.role === 'maintainer') {
          const local = campaignAssignments(db, campaign.id);
          ids.prefetch(local.map((a) => a.instance_id));
          const rows = local.flatMap((a) => {
            const instanceId = ids.toStore(a.instance_id);
            return instanceId === undefined ? [] : [{ annotator: a.annotator, instanceId, position: a.position }];
          });
          await pushAssignments(client, campaign.uid, rows);
        }
        const unsent = judgmentsAfter(db, campaign.id, marks.pushed_through);
        ids.prefetch(unsent.map((j) => j.instance_id));
        // A judgment of an instance the store cannot name holds back the rest (in order).
        const stuck = unsent.findIndex((j) => ids.toStore(j.instance_id) === undefined);
        const outgoing = stuck < 0 ? unsent : unsent.slice(0, stuck);
        if (stuck >= 0) {
          report.warnings.push(
            `${unsent.length - stuck} judgment(s) of "${campaign.name}" concern an instance the shared store does not list for this campaign: they stay here until a maintainer's sync publishes it.`,
          );
        }
        if (outgoing.length === 0) continue;
        log(`Pushing ${outgoing.length} judgment(s) of "${campaign.name}"…`);
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
        pushedMarks.push({ uid: campaign.uid, through: outgoing.at(-1)!.id });
      }
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error instanceof AppError ? error : storeError(error, url, 'push');
    }
    transaction(db, () => {
      for (const mark of pushedMarks) setPushedThrough(db, mark.uid, mark.through);
    });
    for (const gone of report.deletedOnServer) {
      report.warnings.push(
        `Campaign "${gone.name}" (${gone.uid}) was deleted on the shared store: its ${gone.heldJudgments} judgment(s) not yet pushed stay in this database and were not sent. Ask a maintainer whether to restore it.`,
      );
    }

    // ---- pull: read from the store, then one SQLite transaction ---------------------------
    type Incoming = {
      /** Null for a campaign this desktop lacks: made from `received` in the transaction. */
      campaign: CampaignRow | null;
      received: CampaignPackage | null;
      ids: InstanceIds;
      records: Awaited<ReturnType<typeof fetchRecords>>;
      assignments: Awaited<ReturnType<typeof storeAssignments>>;
      judgments: StoreJudgment[];
    };
    const incoming: Incoming[] = [];
    /** The instances this desktop needs: a blind campaign's annotator gets only its own. */
    const recordsFor = async (ids: InstanceIds, assignments: Incoming['assignments'], blindForMe: string | null) =>
      ids.identity ? [] : fetchRecords(client, ids.lacking(blindForMe === null ? undefined : new Set(assignments.map((a) => a.instance_id))));
    try {
      for (const campaign of syncing) {
        const blindForMe = config.role === 'annotator' && campaign.blind === 1 ? config.annotator : null;
        const marks = campaignSyncMarks(db, campaign.uid);
        const ids = idMaps.get(campaign.uid)!;
        const assignments = await storeAssignments(client, campaign.uid, blindForMe);
        incoming.push({
          campaign,
          received: null,
          ids,
          records: await recordsFor(ids, assignments, blindForMe),
          assignments,
          judgments: await pullJudgments(client, campaign.uid, marks.pulled_through, blindForMe),
        });
      }
      for (const campaign of toReceive) {
        const received = await fetchCampaignPackage(client, campaign);
        if (!received) {
          report.notHeld.push(campaign.uid);
          continue;
        }
        const blindForMe = config.role === 'annotator' && campaign.blind ? config.annotator : null;
        const ids = await storeInstanceIds(client, db, campaign.uid);
        const assignments = await storeAssignments(client, campaign.uid, blindForMe);
        log(`Receiving campaign "${campaign.name}" (${campaign.uid})…`);
        incoming.push({
          campaign: null,
          received,
          ids,
          records: await recordsFor(ids, assignments, blindForMe),
          assignments,
          judgments: await pullJudgments(client, campaign.uid, 0, blindForMe),
        });
      }
    } catch (error) {
      throw error instanceof AppError ? error : storeError(error, url, 'pull');
    }
    if (report.notHeld.length) {
      report.warnings.push(
        `${report.notHeld.length} campaign(s) on the shared store are not in this database and were published without their contents (${report.notHeld.join(', ')}): a maintainer's sync with this version of the app stores them, and the next sync here brings them.`,
      );
    }
    report.campaigns = incoming.length;
    log(`Writing ${incoming.reduce((n, c) => n + c.judgments.length, 0)} pulled judgment(s)…`);
    const missingInstances = new Set<number>();
    transaction(db, () => {
      const context = newWriteContext(db);
      for (const entry of incoming) {
        const { ids, assignments, judgments } = entry;
        const written = writeReceivedRecords(context, entry.records);
        if (written) log(`Received ${written} instance(s)`);
        let campaign: CampaignRow;
        if (entry.campaign) campaign = entry.campaign;
        else {
          const made = createReceivedCampaign(db, entry.received!, ids);
          campaign = made.campaign;
          if (made.warning) report.warnings.push(made.warning);
          log(`Created campaign "${campaign.name}" (${campaign.uid}) from the shared store`);
        }
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
        const assignmentFor = (annotator: string, storeInstanceId: number, position: number | null): number | undefined => {
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
        for (const a of assignments) assignmentFor(a.annotator, a.instance_id, a.position);
        const byPerson = new Map<string, { judgments: number; devices: Set<string> }>();
        let through = 0;
        let blocked = false;
        for (const j of judgments) {
          // The mark stops before the first judgment that could not be placed, so a later
          // sync (once its instance is here) pulls it again.
          if (!blocked) through = Number(j.seq);
          if (judgmentExists(db, j.uid)) continue;
          const assignmentId = assignmentFor(j.annotator, j.instance_id, null);
          if (assignmentId === undefined) {
            if (!blocked) through = Number(j.seq) - 1;
            blocked = true;
            continue;
          }
          const latest = latestJudgment(db, assignmentId, j.criterion);
          const conflict = latest !== undefined && latest.uid !== j.prior_uid && latest.value !== j.value;
          if (conflict) report.conflicts++;
          insertJudgment(db, {
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
          report.pulled++;
          const entry = byPerson.get(j.annotator) ?? { judgments: 0, devices: new Set<string>() };
          entry.judgments++;
          entry.devices.add(j.device);
          byPerson.set(j.annotator, entry);
        }
        if (through > 0) setPulledThrough(db, campaign.uid, through);
        // The audit trail names who made what came in, and from which desktop.
        for (const [annotator, entry] of byPerson) {
          insertAudit(db, {
            at: now().toISOString(),
            account: annotator,
            role: 'annotator',
            operation: 'sync:pull',
            summary: JSON.stringify({ campaign: campaign.uid, judgments: entry.judgments, devices: [...entry.devices] }),
            ok: 1,
          });
        }
        // What was just pulled is on the store: the next push need not look at it again.
        const newest = judgmentUidsAfter(db, campaign.id, campaignSyncMarks(db, campaign.uid).pushed_through);
        const pulledUids = new Set(judgments.map((j) => j.uid));
        if (newest.length > 0 && newest.every((row) => pulledUids.has(row.uid))) setPushedThrough(db, campaign.uid, newest.at(-1)!.id);
      }
    });
    if (missingInstances.size) {
      report.warnings.push(`${missingInstances.size} instance(s) of synced campaigns are not in this database; their judgments were left on the store.`);
    }
    if (report.conflicts) {
      report.warnings.push(`${report.conflicts} pulled judgment(s) disagree with a value decided here without knowing them: both stay in the history, flagged for a maintainer to adjudicate.`);
    }
    log(`Pushed ${report.pushed}, pulled ${report.pulled}.`);
    return report;
  } finally {
    await client.end().catch(() => undefined);
  }
}
