import type pg from 'pg';
import type { storeCampaigns } from '../../../db/postgres/store';
import type { TeamSyncRow } from '../../../db/queries/team-sync';
import type { WritableDB } from '../../../db/sql';
import { AppError, type SyncReport } from '../../../shared/api';
import type { InstanceIds } from './campaign-transfer';
import { redactStoreUrl, scrubSecrets } from './store-url';

/** What one sync run's steps (prepare, push, pull) share. */
export interface SyncSession {
  db: WritableDB;
  client: pg.Client;
  config: TeamSyncRow;
  url: string;
  report: SyncReport;
  now: () => Date;
  log: (line: string) => void;
  /** The store's campaigns by uid (a maintainer's push adds the ones it publishes). */
  onServer: Map<string, StoreCampaign>;
  /** Per campaign synced, how its instances are named on the store and here. */
  idMaps: Map<string, InstanceIds>;
}

export type StoreCampaign = Awaited<ReturnType<typeof storeCampaigns>>[number];

/** Runs one step against the store; a failure becomes an AppError that says what it left as it was. */
export async function storeStep<T>(session: Pick<SyncSession, 'url'>, step: 'push' | 'pull' | 'prepare', work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw error instanceof AppError ? error : storeError(error, session.url, step);
  }
}

export function storeError(error: unknown, url: string, step: 'connect' | 'push' | 'pull' | 'prepare'): AppError {
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

