import { get, run, sql, type ReadableDB, type WritableDB } from '../sql';

/** The `team_sync` table (migration 0009): this desktop's settings for sync with the shared store, and how the last sync went. Its only writer. */

export interface TeamSyncRow {
  store: string;
  device: string;
  annotator: string | null;
  role: 'maintainer' | 'annotator';
  last_sync_at: string | null;
  last_error: string | null;
  last_report: string | null;
}

export function getTeamSync(db: ReadableDB): TeamSyncRow | undefined {
  return get<TeamSyncRow>(db, sql`SELECT store, device, annotator, role, last_sync_at, last_error, last_report FROM team_sync WHERE id = 1`);
}

export function saveTeamSync(db: WritableDB, row: Pick<TeamSyncRow, 'store' | 'device' | 'annotator' | 'role'>): void {
  run(
    db,
    sql`INSERT INTO team_sync (id, store, device, annotator, role) VALUES (1, ${row.store}, ${row.device}, ${row.annotator}, ${row.role})
        ON CONFLICT (id) DO UPDATE SET store = excluded.store, annotator = excluded.annotator, role = excluded.role`,
  );
}

export function recordSyncOutcome(db: WritableDB, outcome: { at: string; error: string | null; report: string | null }): void {
  if (outcome.error === null) run(db, sql`UPDATE team_sync SET last_sync_at = ${outcome.at}, last_error = NULL, last_report = ${outcome.report} WHERE id = 1`);
  else run(db, sql`UPDATE team_sync SET last_error = ${outcome.error} WHERE id = 1`);
}
