import path from 'node:path';
import { tryInsertAudit, type AuditRow } from '../../../db/queries/audit';
import { lockWaitMs, type WritableDB } from '../../../db/sql';
import type { CallContext, EventMessage, Handlers, Job, OperationName } from '../../../shared/api';
import type { EventBus } from '../events';
import { isRead } from '../../../shared/api/access';
import { PATH_KEY } from './reach';

/**
 * The audit trail: who called which operation, when, with what (secrets hidden, paths cut to
 * their file name, long input cut short) and whether it succeeded. Writes are recorded whichever
 * client made them; refusals (a wrong password, a role that may not, an input a schema refused,
 * a caller not signed in) and uploads are recorded by the HTTP gate.
 *
 * Recording never fails the call it records. A row that meets another process's write lock is
 * kept in memory and written as soon as the lock is free (at the latest when the workbench
 * closes, which waits for the lock), so a busy database costs neither the answer nor the row.
 */

export interface AuditWho {
  account: string;
  role: string;
}

/** Who a call context stands for: the signed-in account, or the owner (desktop, CLI, loopback). */
export function whoOf(context: CallContext | undefined): AuditWho {
  return { account: context?.account?.name ?? 'owner', role: context?.account?.role ?? 'owner' };
}

/** Callers who did not sign in (or whose sign-in failed). */
export const ANONYMOUS: AuditWho = { account: 'anonymous', role: 'anonymous' };

const SECRET_KEY = /^(password|token|secret|apiKey)$/i;
const MAX_KEYS = 50;
const MAX_SUMMARY = 4000;

/** The input as the audit trail keeps it: secrets out, paths cut to their file name, long text and lists cut. */
export function auditSummary(input: unknown): unknown {
  const clean = (value: unknown, key = '', depth = 0): unknown => {
    if (SECRET_KEY.test(key)) return '[hidden]';
    if (typeof value === 'string') {
      if (PATH_KEY.test(key)) return path.basename(value);
      return value.length > 200 ? `${value.slice(0, 200)}…` : value;
    }
    if (depth > 8 && typeof value === 'object' && value !== null) return '…';
    if (Array.isArray(value)) return value.length > MAX_KEYS ? [...value.slice(0, MAX_KEYS).map((v) => clean(v, '', depth + 1)), `… ${value.length - MAX_KEYS} more`] : value.map((v) => clean(v, '', depth + 1));
    if (typeof value === 'object' && value !== null) {
      const entries = Object.entries(value);
      const kept = entries.slice(0, MAX_KEYS).map(([k, v]) => [k.slice(0, 100), clean(v, k, depth + 1)]);
      if (entries.length > MAX_KEYS) kept.push(['…', `${entries.length - MAX_KEYS} more fields`]);
      return Object.fromEntries(kept);
    }
    return value;
  };
  return clean(input) ?? {};
}

function summaryText(input: unknown): string {
  const text = JSON.stringify(auditSummary(input));
  return text.length > MAX_SUMMARY ? JSON.stringify({ cut: `${text.slice(0, MAX_SUMMARY)}…` }) : text;
}

/** Rows that met another writer's lock, by connection, waiting to be written. */
const pending = new WeakMap<WritableDB, { rows: Omit<AuditRow, 'id'>[]; timer: NodeJS.Timeout | null }>();

function queueOf(db: WritableDB) {
  let queue = pending.get(db);
  if (!queue) {
    queue = { rows: [], timer: null };
    pending.set(db, queue);
  }
  return queue;
}

/** Writes the rows waiting, oldest first, each waiting up to `waitMs` for the lock; stops at the first still refused. */
function writePending(db: WritableDB, waitMs: number): void {
  const queue = pending.get(db);
  if (!queue || !db.open) return;
  while (queue.rows.length) {
    try {
      if (!tryInsertAudit(db, queue.rows[0]!, waitMs)) return;
    } catch (error) {
      console.error(`awb: an audit row could not be written (${(error as Error).message})`);
    }
    queue.rows.shift();
  }
}

function retryLater(db: WritableDB): void {
  const queue = queueOf(db);
  if (queue.timer) return;
  queue.timer = setTimeout(() => {
    queue.timer = null;
    writePending(db, 0);
    if (queue.rows.length) retryLater(db);
  }, 1000);
  queue.timer.unref();
}

/** Records one call. Never throws; a row the lock holds back is written later (see above). */
export function recordAudit(db: WritableDB, who: AuditWho, operation: string, input: unknown, ok: boolean, at = new Date()): void {
  const row = { at: at.toISOString(), account: who.account.slice(0, 200), role: who.role, operation: operation.slice(0, 100), summary: summaryText(input), ok: ok ? 1 : 0 };
  const queue = queueOf(db);
  queue.rows.push(row);
  try {
    // Never hold the process up for the lock here: the server would stop answering meanwhile.
    writePending(db, 0);
  } catch (error) {
    console.error(`awb: an audit row could not be written (${(error as Error).message})`);
  }
  if (queue.rows.length) retryLater(db);
}

/**
 * Writes the rows still waiting before the connection closes. Recording a call is worth a longer
 * wait than the call itself took (a write that gave up on the lock is still recorded): at least
 * a minute, or the lock wait when that is longer. Says so on stderr while it waits.
 */
export function flushAudit(db: WritableDB, waitMs = Math.max(lockWaitMs(), 60_000)): void {
  const queue = pending.get(db);
  if (!queue?.rows.length) return;
  if (queue.timer) clearTimeout(queue.timer);
  queue.timer = null;
  writePending(db, 0);
  if (!queue.rows.length) return;
  process.stderr.write(`awb: waiting for another process's write to finish, to record ${queue.rows.length} call(s) in the audit trail…\n`);
  writePending(db, waitMs);
  if (queue.rows.length) process.stderr.write(`awb: ${queue.rows.length} audit row(s) could not be written: the database stayed locked by another writer.\n`);
}

export function audit(db: WritableDB, context: CallContext | undefined, name: OperationName | string, input: unknown, ok: boolean, at = new Date()): void {
  recordAudit(db, whoOf(context), name, input, ok, at);
}

/**
 * Wraps every handler that writes so that each call is audited, whatever client made it. An
 * operation that starts a job is recorded when the job ends, with its outcome: an import that
 * failed is a failed write, though starting it succeeded.
 */
export function auditWrites(db: WritableDB, handlers: Handlers, events: EventBus): Handlers {
  const wrapped: Record<string, unknown> = { ...handlers };
  for (const name of Object.keys(handlers) as OperationName[]) {
    if (isRead(name)) continue;
    const inner = handlers[name] as (input: unknown, context?: CallContext) => unknown;
    wrapped[name] = async (input: unknown, context?: CallContext) => {
      const at = new Date();
      let value: unknown;
      try {
        value = await inner(input, context);
      } catch (error) {
        audit(db, context, name, input, false, at);
        throw error;
      }
      const jobId = (value as { jobId?: unknown } | null)?.jobId;
      if (typeof jobId !== 'string') audit(db, context, name, input, true, at);
      else {
        const off = events.subscribe((message: EventMessage) => {
          if (message.name !== 'job:done' || (message.payload as Job).id !== jobId) return;
          off();
          audit(db, context, name, input, (message.payload as Job).state === 'done', at);
        });
      }
      return value;
    };
  }
  return wrapped as Handlers;
}
