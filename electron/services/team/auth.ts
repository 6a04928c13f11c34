import { randomBytes } from 'node:crypto';
import { hash as argon2Hash, verify as argon2Verify } from '@node-rs/argon2';
import {
  countAccounts,
  deleteExpiredSessions,
  deleteSession,
  findAccountById,
  findAccountByName,
  findToken,
  insertSession,
  sessionAccount,
  touchToken,
  type AccountRow,
} from '../../../db/queries/accounts';
import type { WritableDB } from '../../../db/sql';
import type { CallContext } from '../../../shared/api';
import { sha256 } from '../hash';

/**
 * Sign-in for team mode. Passwords and per-person tokens are kept only as argon2id hashes
 * (memory-hard, from @node-rs/argon2). A token reads `awb_<id>_<secret>`: the id finds its row,
 * the secret is checked against the hash. A sign-in opens a session: a random 256-bit id sent
 * as an HttpOnly, SameSite=Strict cookie, of which only a SHA-256 is stored.
 */

export const SESSION_COOKIE = 'awb_session';
export const SESSION_HOURS = 12;

export type Caller = NonNullable<CallContext['account']>;

export function hashSecret(secret: string): Promise<string> {
  return argon2Hash(secret);
}

export function newTokenSecret(): string {
  return randomBytes(32).toString('base64url');
}

export function formatToken(tokenId: number, secret: string): string {
  return `awb_${tokenId}_${secret}`;
}

function callerOf(row: AccountRow): Caller {
  return { id: row.id, name: row.name, role: row.role };
}

export type AuthFailure = 'unknown' | 'bad-secret' | 'expired' | 'revoked' | 'disabled';

const FAILURE_TEXT: Record<AuthFailure, string> = {
  unknown: 'Unknown name, password or token.',
  'bad-secret': 'Unknown name, password or token.',
  expired: 'This token has expired: ask a maintainer for a new one.',
  revoked: 'This token was revoked: ask a maintainer for a new one.',
  disabled: 'This account is disabled.',
};

export function failureText(failure: AuthFailure): string {
  return FAILURE_TEXT[failure];
}

export class Authenticator {
  /** Tokens whose secret was verified lately (SHA-256 of the whole token → token id), to spare argon2 on every call. */
  private readonly verified = new Map<string, number>();

  constructor(
    private readonly db: WritableDB,
    private readonly now: () => Date = () => new Date(),
  ) {}

  teamMode(): boolean {
    return countAccounts(this.db) > 0;
  }

  /** Checks a token; its row's state (revoked, expired, account disabled) is read on every call. */
  async checkToken(token: string): Promise<{ ok: true; caller: Caller; tokenId: number } | { ok: false; failure: AuthFailure; account?: string }> {
    const match = /^awb_(\d+)_([A-Za-z0-9_-]{20,})$/.exec(token.trim());
    if (!match) return { ok: false, failure: 'unknown' };
    const row = findToken(this.db, Number(match[1]));
    if (!row) return { ok: false, failure: 'unknown' };
    const account = findAccountById(this.db, row.account_id)!;
    const digest = sha256(token.trim());
    const cached = this.verified.get(digest) === row.id;
    if (!cached) {
      if (!(await argon2Verify(row.hash, match[2]!))) return { ok: false, failure: 'bad-secret', account: account.name };
      if (this.verified.size > 10_000) this.verified.clear();
      this.verified.set(digest, row.id);
    }
    const now = this.now().toISOString();
    if (row.revoked_at !== null) return { ok: false, failure: 'revoked', account: account.name };
    if (row.expires_at !== null && row.expires_at <= now) return { ok: false, failure: 'expired', account: account.name };
    if (account.disabled) return { ok: false, failure: 'disabled', account: account.name };
    if (!row.last_used_at || row.last_used_at.slice(0, 16) !== now.slice(0, 16)) touchToken(this.db, row.id, now);
    return { ok: true, caller: callerOf(account), tokenId: row.id };
  }

  async checkPassword(name: string, password: string): Promise<{ ok: true; caller: Caller } | { ok: false; failure: AuthFailure; account?: string }> {
    const account = findAccountByName(this.db, name);
    if (!account || account.password_hash === null) {
      // The same work either way, so the time taken does not tell which names exist.
      await argon2Verify(DUMMY_HASH, password).catch(() => false);
      return { ok: false, failure: 'unknown' };
    }
    if (!(await argon2Verify(account.password_hash, password))) return { ok: false, failure: 'bad-secret', account: account.name };
    if (account.disabled) return { ok: false, failure: 'disabled', account: account.name };
    return { ok: true, caller: callerOf(account) };
  }

  openSession(caller: Caller, tokenId: number | null): { id: string; maxAgeSeconds: number } {
    const id = randomBytes(32).toString('base64url');
    const now = this.now();
    const expires = new Date(now.getTime() + SESSION_HOURS * 3600_000);
    deleteExpiredSessions(this.db, now.toISOString());
    insertSession(this.db, sha256(id), caller.id, tokenId, now.toISOString(), expires.toISOString());
    return { id, maxAgeSeconds: SESSION_HOURS * 3600 };
  }

  sessionCaller(id: string): Caller | undefined {
    const row = sessionAccount(this.db, sha256(id), this.now().toISOString());
    return row ? callerOf(row) : undefined;
  }

  closeSession(id: string): void {
    deleteSession(this.db, sha256(id));
  }

  /** Whether this exact token was verified lately, so that checking it again costs no hash. */
  verifiedLately(token: string): boolean {
    return this.verified.has(sha256(token.trim()));
  }

  forgetVerifiedTokens(): void {
    this.verified.clear();
  }
}

/** An argon2id hash of a random string, checked against when the name is unknown. */
const DUMMY_HASH = '$argon2id$v=19$m=19456,t=2,p=1$aZQDPiJ8v7PLGiWWpong1Q$eL3LWRFANnpruZRnxey93Jn1DMy2smOpWOHobHKzVCU';

/**
 * Failed sign-ins per account and per address, and wrong bearer tokens per address, in a sliding
 * window: past the limit, sign-in (or a token not verified lately) is refused for a while whatever
 * the secret, so guessing is slow even from many addresses. An attempt is counted when it is let
 * in, before its secret is checked, so that many attempts at once cannot all pass the limit
 * while the first are still being hashed; one that succeeds is taken back.
 */
export class LoginLimiter {
  /** Failed (or admitted, not yet succeeded) attempts by key, each with its time and its own number. */
  private readonly failures = new Map<string, { at: number; id: number }[]>();
  private nextId = 1;

  constructor(
    private readonly perAccount = 5,
    private readonly perAddress = 20,
    private readonly windowMs = 15 * 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  private recent(key: string): { at: number; id: number }[] {
    const cutoff = this.now() - this.windowMs;
    const kept = (this.failures.get(key) ?? []).filter((t) => t.at > cutoff);
    if (kept.length) this.failures.set(key, kept);
    else this.failures.delete(key);
    return kept;
  }

  private wait(lists: ({ at: number }[] | null)[]): number {
    const blocked = lists.filter((x): x is { at: number }[] => x !== null);
    if (!blocked.length) return 0;
    const oldest = Math.max(...blocked.map((list) => list[0]!.at));
    return Math.max(1, Math.ceil((oldest + this.windowMs - this.now()) / 1000));
  }

  /** Seconds to wait, or 0 when a try is allowed. */
  retryAfter(account: string, address: string): number {
    const a = this.recent(`a:${account.toLowerCase()}`);
    const b = this.recent(`i:${address}`);
    return this.wait([a.length >= this.perAccount ? a : null, b.length >= this.perAddress ? b : null]);
  }

  /** Counts a failure now (an attempt admitted earlier already counts). */
  fail(account: string, address: string): void {
    this.count([`a:${account.toLowerCase()}`, `i:${address}`]);
  }

  /** The sign-in succeeded: the account starts afresh, and the admitted attempt is taken back from the address. */
  succeed(account: string, admitted?: Admitted): void {
    this.failures.delete(`a:${account.toLowerCase()}`);
    if (admitted) this.takeBack(admitted);
  }

  /** Lets a sign-in attempt in, counted as a failure until `succeed`; or says how long to wait. */
  admit(account: string, address: string): Admitted | { wait: number } {
    const wait = this.retryAfter(account, address);
    if (wait > 0) return { wait };
    return this.count([`a:${account.toLowerCase()}`, `i:${address}`]);
  }

  /** The same for a bearer token whose secret must be hashed: limited per address. */
  admitToken(address: string): Admitted | { wait: number } {
    const list = this.recent(`t:${address}`);
    if (list.length >= this.perAddress) return { wait: this.wait([list]) };
    return this.count([`t:${address}`]);
  }

  /** A token admitted by `admitToken` was right. */
  tokenSucceeded(admitted: Admitted): void {
    this.takeBack(admitted);
  }

  private count(keys: string[]): Admitted {
    const attempt = { at: this.now(), id: this.nextId++ };
    for (const key of keys) this.failures.set(key, [...this.recent(key), attempt]);
    return { keys, id: attempt.id };
  }

  private takeBack(admitted: Admitted): void {
    for (const key of admitted.keys) {
      const kept = (this.failures.get(key) ?? []).filter((t) => t.id !== admitted.id);
      if (kept.length) this.failures.set(key, kept);
      else this.failures.delete(key);
    }
  }
}

/** An attempt let in by the limiter, which counts until it is taken back. */
export interface Admitted {
  keys: string[];
  id: number;
}
