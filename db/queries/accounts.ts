import type { AccountView } from '../../shared/api';
import { all, get, run, sql, transaction, type ReadableDB, type WritableDB } from '../sql';

/** Team mode: accounts, their tokens and sign-in sessions (only hashes of secrets are stored). */

export type AccountRole = 'maintainer' | 'annotator' | 'viewer';

export interface AccountRow {
  id: number;
  name: string;
  role: AccountRole;
  password_hash: string | null;
  disabled: number;
  created_at: string;
}

export interface TokenRow {
  id: number;
  account_id: number;
  label: string;
  hash: string;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
}

export function countAccounts(db: ReadableDB): number {
  return get<{ n: number }>(db, sql`SELECT count(*) AS n FROM accounts WHERE disabled = 0`)!.n;
}

export function insertAccount(db: WritableDB, name: string, role: AccountRole, passwordHash: string | null): number {
  return get<{ id: number }>(db, sql`INSERT INTO accounts (name, role, password_hash) VALUES (${name}, ${role}, ${passwordHash}) RETURNING id`)!.id;
}

export function findAccountByName(db: ReadableDB, name: string): AccountRow | undefined {
  return get<AccountRow>(db, sql`SELECT * FROM accounts WHERE name = ${name}`);
}

export function findAccountById(db: ReadableDB, id: number): AccountRow | undefined {
  return get<AccountRow>(db, sql`SELECT * FROM accounts WHERE id = ${id}`);
}

export function listAccounts(db: ReadableDB): AccountRow[] {
  return all<AccountRow>(db, sql`SELECT * FROM accounts ORDER BY name`);
}

export function setAccountRole(db: WritableDB, id: number, role: AccountRole): void {
  run(db, sql`UPDATE accounts SET role = ${role} WHERE id = ${id}`);
}

export function setAccountPassword(db: WritableDB, id: number, passwordHash: string | null): void {
  run(db, sql`UPDATE accounts SET password_hash = ${passwordHash} WHERE id = ${id}`);
}

/** Disabling keeps the account (its audit trail names it) but ends its tokens and sessions. */
export function disableAccount(db: WritableDB, id: number, at: string): void {
  run(db, sql`UPDATE accounts SET disabled = 1 WHERE id = ${id}`);
  run(db, sql`UPDATE account_tokens SET revoked_at = ${at} WHERE account_id = ${id} AND revoked_at IS NULL`);
  run(db, sql`DELETE FROM account_sessions WHERE account_id = ${id}`);
}

export function insertToken(db: WritableDB, accountId: number, label: string, hash: string, expiresAt: string | null): number {
  return get<{ id: number }>(
    db,
    sql`INSERT INTO account_tokens (account_id, label, hash, expires_at) VALUES (${accountId}, ${label}, ${hash}, ${expiresAt}) RETURNING id`,
  )!.id;
}

export function findToken(db: ReadableDB, id: number): TokenRow | undefined {
  return get<TokenRow>(db, sql`SELECT * FROM account_tokens WHERE id = ${id}`);
}

/** An account's tokens as its view lists them (never their hashes). */
export function accountTokens(db: ReadableDB, accountId: number): AccountView['tokens'] {
  return all<TokenRow>(db, sql`SELECT * FROM account_tokens WHERE account_id = ${accountId} ORDER BY id`).map((t) => ({
    id: t.id,
    label: t.label,
    createdAt: t.created_at,
    expiresAt: t.expires_at,
    revokedAt: t.revoked_at,
    lastUsedAt: t.last_used_at,
  }));
}

/** Revokes a token and ends the sessions it opened, together. */
export function revokeToken(db: WritableDB, id: number, at: string): void {
  transaction(db, () => {
    run(db, sql`UPDATE account_tokens SET revoked_at = coalesce(revoked_at, ${at}) WHERE id = ${id}`);
    run(db, sql`DELETE FROM account_sessions WHERE token_id = ${id}`);
  });
}

export function touchToken(db: WritableDB, id: number, at: string): void {
  run(db, sql`UPDATE account_tokens SET last_used_at = ${at} WHERE id = ${id}`);
}

export function insertSession(db: WritableDB, idHash: string, accountId: number, tokenId: number | null, createdAt: string, expiresAt: string): void {
  run(
    db,
    sql`INSERT INTO account_sessions (id_hash, account_id, token_id, created_at, expires_at)
        VALUES (${idHash}, ${accountId}, ${tokenId}, ${createdAt}, ${expiresAt})`,
  );
}

/** The live session's account: not expired, the account enabled, its token (if any) not revoked or expired. */
export function sessionAccount(db: ReadableDB, idHash: string, now: string): AccountRow | undefined {
  return get<AccountRow>(
    db,
    sql`SELECT a.* FROM account_sessions s JOIN accounts a ON a.id = s.account_id
        LEFT JOIN account_tokens t ON t.id = s.token_id
        WHERE s.id_hash = ${idHash} AND s.expires_at > ${now} AND a.disabled = 0
          AND (s.token_id IS NULL OR (t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > ${now})))`,
  );
}

export function deleteSession(db: WritableDB, idHash: string): void {
  run(db, sql`DELETE FROM account_sessions WHERE id_hash = ${idHash}`);
}

export function deleteExpiredSessions(db: WritableDB, now: string): void {
  run(db, sql`DELETE FROM account_sessions WHERE expires_at <= ${now}`);
}
