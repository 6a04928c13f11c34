import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { campaignsAssignedTo } from '../../../db/postgres/contents';
import { migratePostgres } from '../../../db/postgres/migrate';
import { deleteCampaign, storeCampaigns, storeNow } from '../../../db/postgres/store';
import { listCampaigns } from '../../../db/queries/campaigns';
import { campaignSyncMarks } from '../../../db/queries/team-campaign-sync';
import { countJudgmentsAfter } from '../../../db/queries/judgments';
import { getTeamSync, recordSyncOutcome, saveTeamSync, type TeamSyncRow } from '../../../db/queries/team-sync';
import type { WritableDB } from '../../../db/sql';
import { AppError, type SyncReport, type TeamStatus } from '../../../shared/api';
import { connectionUrl, redactStoreUrl, scrubSecrets } from './store-url';
import { pullCampaigns } from './sync-pull';
import { pushCampaigns } from './sync-push';
import { storeError, storeStep, type SyncSession } from './sync-session';

/**
 * Sync between this desktop's SQLite file (the working copy, usable offline) and the shared
 * PostgreSQL store. One run: prepare, push (sync-push.ts), then pull (sync-pull.ts), each
 * side's writes in one transaction.
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
    throw new AppError('invalid_input', 'An annotator desktop needs the annotator it belongs to.', undefined, { kind: 'field', field: 'annotator' });
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

function requireConfig(db: WritableDB): TeamSyncRow {
  const row = getTeamSync(db);
  if (!row) throw new AppError('invalid_input', 'This database is not set up for sync: connect it to a shared store first.', undefined, { kind: 'operation', operation: 'sync:configure' });
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
    throw error instanceof AppError ? error : new AppError('invalid_input', (error as Error).message);
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

/** One run against the store: prepare, push, pull; the client closed however it ends. */
async function syncWith(
  db: WritableDB,
  config: TeamSyncRow,
  url: string,
  { now, log, env }: { now: () => Date; log: (line: string) => void; env: NodeJS.ProcessEnv },
): Promise<SyncReport> {
  const client = await connect(url, env);
  try {
    const report = emptyReport(url);
    const session: SyncSession = { db, client, config, url, report, now, log, onServer: new Map(), idMaps: new Map() };
    const assignedHere = await storeStep(session, 'prepare', () => prepareStore(session));
    const local = listCampaigns(db);
    const localUids = new Set(local.map((c) => c.uid));
    // Campaigns to bring here: all the store holds (an annotator's: those it is assigned in).
    const toReceive = [...session.onServer.values()].filter((c) => !c.deleted && !localUids.has(c.uid) && (assignedHere === null || assignedHere.has(c.uid)));
    const syncing = await pushCampaigns(session, local);
    await pullCampaigns(session, syncing, toReceive);
    if (report.conflicts) {
      report.warnings.push(`${report.conflicts} pulled judgment(s) disagree with a value decided here without knowing them: both stay in the history, flagged for a maintainer to adjudicate.`);
    }
    log(`Pushed ${report.pushed}, pulled ${report.pulled}.`);
    return report;
  } finally {
    await client.end().catch(() => undefined);
  }
}

function emptyReport(url: string): SyncReport {
  return {
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
}

/**
 * The store brought to this version's schema, the clocks compared, and its campaigns read (into
 * the session); for an annotator's desktop, the campaigns it is assigned in (null: all).
 */
async function prepareStore(session: SyncSession): Promise<Set<string> | null> {
  const { client, config, report } = session;
  await migratePostgres(client);
  const serverNow = await storeNow(client);
  const skew = Math.round((session.now().getTime() - serverNow.getTime()) / 1000);
  if (Math.abs(skew) > SKEW_WARNING_SECONDS) {
    report.clockSkewSeconds = skew;
    report.warnings.push(
      `This computer's clock is ${Math.abs(skew)} s ${skew > 0 ? 'ahead of' : 'behind'} the shared store's. Judgments are ordered by when they reach the store, not by their timestamps, so none is lost or reordered; but the times written on judgments made here are off by as much: set the clock right.`,
    );
  }
  for (const campaign of await storeCampaigns(client)) session.onServer.set(campaign.uid, campaign);
  return config.role === 'annotator' ? new Set(await campaignsAssignedTo(client, config.annotator ?? '')) : null;
}
