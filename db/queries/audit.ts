import type { AuditEntry } from '../../shared/api';
import { all, isBusy, run, sql, withBusyTimeout, type ReadableDB, type WritableDB } from '../sql';

/** The audit trail: who called which write operation, when, with what (paths and secrets left out). */

export interface AuditRow {
  id: number;
  at: string;
  account: string;
  role: string;
  operation: string;
  summary: string;
  ok: number;
}

export function insertAudit(db: WritableDB, entry: Omit<AuditRow, 'id'>): void {
  run(
    db,
    sql`INSERT INTO audit_log (at, account, role, operation, summary, ok)
        VALUES (${entry.at}, ${entry.account}, ${entry.role}, ${entry.operation}, ${entry.summary}, ${entry.ok})`,
  );
}

/**
 * Inserts a row, waiting at most `waitMs` for another connection's write lock; false when the
 * lock stayed taken (the caller keeps the row and tries again later).
 */
export function tryInsertAudit(db: WritableDB, entry: Omit<AuditRow, 'id'>, waitMs: number): boolean {
  try {
    withBusyTimeout(db, waitMs, () => insertAudit(db, entry));
    return true;
  } catch (error) {
    if (isBusy(error)) return false;
    throw error;
  }
}

function rowToAuditEntry(row: AuditRow): AuditEntry {
  return { id: row.id, at: row.at, account: row.account, role: row.role, operation: row.operation, summary: JSON.parse(row.summary) as Record<string, unknown>, ok: row.ok === 1 };
}

/** The trail newest first, of one account or of all. */
export function auditPage(db: ReadableDB, filter: { account?: string | undefined; offset: number; limit: number }): AuditEntry[] {
  const where = filter.account === undefined ? sql.empty : sql`WHERE account = ${filter.account}`;
  return all<AuditRow>(db, sql`SELECT * FROM audit_log ${where} ORDER BY id DESC LIMIT ${filter.limit} OFFSET ${filter.offset}`).map(rowToAuditEntry);
}

export function auditCounts(db: ReadableDB): { account: string; writes: number; last_at: string }[] {
  return all(db, sql`SELECT account, count(*) AS writes, max(at) AS last_at FROM audit_log WHERE ok = 1 AND operation <> 'session:sign-in' GROUP BY account`);
}

