import { z } from 'zod';
import { op, serverReach } from './core';

/** Team mode: accounts, roles, sessions, the audit trail and sync with a shared PostgreSQL store. */

/** A PostgreSQL address: the server connects to it with the password of its own environment. */
const postgresUrl = serverReach(z.string().min(1).max(2000));

export const ACCOUNT_ROLES = ['maintainer', 'annotator', 'viewer'] as const;
export type AccountRole = (typeof ACCOUNT_ROLES)[number];

/** Who is calling an operation. The owner is the person at the machine (desktop, CLI, loopback without team mode). */
export interface CallContext {
  account: { id: number; name: string; role: AccountRole } | null;
  /** A caller over the network (any HTTP caller while team mode is on). */
  network: boolean;
}

export interface AccountView {
  id: number;
  name: string;
  role: AccountRole;
  disabled: boolean;
  hasPassword: boolean;
  createdAt: string;
  tokens: { id: number; label: string; createdAt: string; expiresAt: string | null; revokedAt: string | null; lastUsedAt: string | null }[];
  writes: number;
  lastWriteAt: string | null;
}

export interface IssuedToken {
  account: string;
  tokenId: number;
  /** Shown once: only its hash is kept. */
  token: string;
  expiresAt: string | null;
}

export interface AuditEntry {
  id: number;
  at: string;
  account: string;
  role: string;
  operation: string;
  summary: Record<string, unknown>;
  ok: boolean;
}

export interface SyncReport {
  store: string;
  pushed: number;
  alreadyOnServer: number;
  pulled: number;
  assignmentsPulled: number;
  conflicts: number;
  campaigns: number;
  /** Campaigns this database holds that the server deleted: their judgments stay here, unpushed. */
  deletedOnServer: { uid: string; name: string; heldJudgments: number }[];
  /** Campaigns on the server that this database does not hold. */
  notHeld: string[];
  /** Set when this computer's clock and the server's differ by more than a minute. */
  clockSkewSeconds: number | null;
  warnings: string[];
  seconds: number;
}

export interface TeamStatus {
  /** Accounts exist: the server asks everyone to sign in. */
  teamMode: boolean;
  me: CallContext['account'];
  sync: {
    configured: boolean;
    /** The store's address without any password. */
    store: string | null;
    device: string | null;
    role: 'maintainer' | 'annotator' | null;
    annotator: string | null;
    lastSyncAt: string | null;
    lastError: string | null;
    /** Judgments written here and not yet pushed. */
    pending: number;
  };
}

const accountName = z.string().trim().min(1).max(100);

export const teamOperations = {
  'team:status': op<TeamStatus>()(z.object({}).strict().default({})),
  'account:list': op<AccountView[]>()(z.object({}).strict().default({})),
  'account:create': op<IssuedToken>()(
    z.object({ name: accountName, role: z.enum(ACCOUNT_ROLES), password: z.string().min(12).max(200).optional(), expiresInDays: z.number().int().min(1).max(3650).optional() }).strict(),
  ),
  'account:set-role': op<AccountView>()(z.object({ name: accountName, role: z.enum(ACCOUNT_ROLES) }).strict()),
  'account:set-password': op<{ ok: true }>()(z.object({ name: accountName, password: z.string().min(12).max(200) }).strict()),
  'account:disable': op<AccountView>()(z.object({ name: accountName }).strict()),
  'account:issue-token': op<IssuedToken>()(z.object({ name: accountName, label: z.string().max(100).default(''), expiresInDays: z.number().int().min(1).max(3650).optional() }).strict()),
  'account:revoke-token': op<{ ok: true }>()(z.object({ tokenId: z.number().int().positive() }).strict()),
  'account:audit': op<AuditEntry[]>()(
    z.object({ name: accountName.optional(), offset: z.number().int().min(0).default(0), limit: z.number().int().min(1).max(500).default(100) }).strict(),
  ),
  'sync:configure': op<TeamStatus['sync']>()(
    z
      .object({
        postgres: postgresUrl,
        role: z.enum(['maintainer', 'annotator']).default('annotator'),
        annotator: accountName.optional(),
      })
      .strict(),
  ),
  'sync:run': op<SyncReport>()(z.object({ postgres: postgresUrl.optional() }).strict().default({})),
  /** Maintainer: deletes a campaign from the shared store (a tombstone stays, so no desktop re-creates it). */
  'sync:remove-campaign': op<{ ok: true }>()(z.object({ uid: z.string().min(1), postgres: postgresUrl.optional() }).strict()),
} as const;
