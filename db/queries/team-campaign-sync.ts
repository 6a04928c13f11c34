import { get, run, sql, type ReadableDB, type WritableDB } from '../sql';

/** The `team_campaign_sync` table (migration 0009): how far each campaign was pushed to and pulled from the shared store. Its only writer. */

export function campaignSyncMarks(db: ReadableDB, uid: string): { pushed_through: number; pulled_through: number } {
  return get(db, sql`SELECT pushed_through, pulled_through FROM team_campaign_sync WHERE campaign_uid = ${uid}`) ?? { pushed_through: 0, pulled_through: 0 };
}

export function setPushedThrough(db: WritableDB, uid: string, id: number): void {
  run(
    db,
    sql`INSERT INTO team_campaign_sync (campaign_uid, pushed_through) VALUES (${uid}, ${id})
        ON CONFLICT (campaign_uid) DO UPDATE SET pushed_through = max(pushed_through, excluded.pushed_through)`,
  );
}

export function setPulledThrough(db: WritableDB, uid: string, seq: number): void {
  run(
    db,
    sql`INSERT INTO team_campaign_sync (campaign_uid, pulled_through) VALUES (${uid}, ${seq})
        ON CONFLICT (campaign_uid) DO UPDATE SET pulled_through = max(pulled_through, excluded.pulled_through)`,
  );
}
