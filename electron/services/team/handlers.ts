import {
  accountTokens,
  countAccounts,
  disableAccount,
  findAccountByName,
  findToken,
  insertAccount,
  insertToken,
  listAccounts,
  revokeToken,
  setAccountPassword,
  setAccountRole,
  type AccountRow,
} from '../../../db/queries/accounts';
import { auditCounts, auditPage } from '../../../db/queries/audit';
import { transaction, type WritableDB } from '../../../db/sql';
import { AppError, type AccountView, type CallContext, type Handlers, type IssuedToken } from '../../../shared/api';
import { formatToken, hashSecret, newTokenSecret } from './auth';
import { configureSync, removeStoreCampaign, runSync, syncStatus } from './sync';
import type { Workbench } from '../workbench';

type TeamOperation =
  | 'team:status'
  | 'account:list'
  | 'account:create'
  | 'account:set-role'
  | 'account:set-password'
  | 'account:disable'
  | 'account:issue-token'
  | 'account:revoke-token'
  | 'account:audit'
  | 'sync:configure'
  | 'sync:run'
  | 'sync:remove-campaign';

function accountView(db: WritableDB, row: AccountRow, counts: Map<string, { writes: number; last_at: string }>): AccountView {
  const done = counts.get(row.name);
  return {
    id: row.id,
    name: row.name,
    role: row.role,
    disabled: row.disabled === 1,
    hasPassword: row.password_hash !== null,
    createdAt: row.created_at,
    tokens: accountTokens(db, row.id),
    writes: done?.writes ?? 0,
    lastWriteAt: done?.last_at ?? null,
  };
}

function findAccount(db: WritableDB, name: string): AccountRow {
  const row = findAccountByName(db, name);
  if (!row) throw new AppError('not_found', `No account "${name}"`);
  return row;
}

async function issueToken(db: WritableDB, account: AccountRow, label: string, expiresInDays: number | undefined): Promise<IssuedToken> {
  const secret = newTokenSecret();
  const hash = await hashSecret(secret);
  const expiresAt = expiresInDays === undefined ? null : new Date(Date.now() + expiresInDays * 86_400_000).toISOString();
  const tokenId = insertToken(db, account.id, label, hash, expiresAt);
  return { account: account.name, tokenId, token: formatToken(tokenId, secret), expiresAt };
}

export function teamHandlers(workbench: Workbench): Pick<Handlers, TeamOperation> {
  const { db, events } = workbench;
  const views = () => {
    const counts = new Map(auditCounts(db).map((c) => [c.account, c]));
    return listAccounts(db).map((row) => accountView(db, row, counts));
  };
  return {
    'team:status': (_input, context?: CallContext) => ({
      teamMode: countAccounts(db) > 0,
      me: context?.account ?? null,
      sync: syncStatus(db),
    }),
    'account:list': () => views(),
    'account:create': async ({ name, role, password, expiresInDays }) => {
      if (findAccountByName(db, name)) throw new AppError('conflict', `An account "${name}" exists already.`);
      const passwordHash = password === undefined ? null : await hashSecret(password);
      const id = transaction(db, () => insertAccount(db, name, role, passwordHash));
      const issued = await issueToken(db, { id, name, role, password_hash: passwordHash, disabled: 0, created_at: '' }, 'first', expiresInDays);
      events.emit('data:changed', { reason: 'team' });
      return issued;
    },
    'account:set-role': ({ name, role }) => {
      const row = findAccount(db, name);
      if (row.role === 'maintainer' && role !== 'maintainer' && views().filter((a) => a.role === 'maintainer' && !a.disabled).length === 1) {
        throw new AppError('conflict', `${name} is the last maintainer: make someone else a maintainer first.`);
      }
      setAccountRole(db, row.id, role);
      return views().find((a) => a.id === row.id)!;
    },
    'account:set-password': async ({ name, password }) => {
      const row = findAccount(db, name);
      setAccountPassword(db, row.id, await hashSecret(password));
      return { ok: true };
    },
    'account:disable': ({ name }) => {
      const row = findAccount(db, name);
      disableAccount(db, row.id, new Date().toISOString());
      return views().find((a) => a.id === row.id)!;
    },
    'account:issue-token': ({ name, label, expiresInDays }) => {
      const row = findAccount(db, name);
      if (row.disabled) throw new AppError('conflict', `${name} is disabled.`);
      return issueToken(db, row, label, expiresInDays);
    },
    'account:revoke-token': ({ tokenId }) => {
      if (!findToken(db, tokenId)) throw new AppError('not_found', `No token ${tokenId}`);
      revokeToken(db, tokenId, new Date().toISOString());
      return { ok: true };
    },
    'account:audit': ({ name, offset, limit }) =>
      auditPage(db, { account: name, offset, limit }),
    'sync:configure': (request) => configureSync(db, request),
    'sync:run': async ({ postgres }) => {
      const report = await runSync(db, { postgres });
      events.emit('data:changed', { reason: 'sync' });
      return report;
    },
    'sync:remove-campaign': ({ uid, postgres }) => removeStoreCampaign(db, uid, { postgres }),
  };
}
