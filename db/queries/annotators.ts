import { all, get, sql, type ReadableDB, type WritableDB } from '../sql';

export function getOrCreateAnnotator(db: WritableDB, name: string): number {
  const existing = get<{ id: number }>(db, sql`SELECT id FROM annotators WHERE name = ${name}`);
  if (existing) return existing.id;
  return get<{ id: number }>(db, sql`INSERT INTO annotators (name) VALUES (${name}) RETURNING id`)!.id;
}

export function findAnnotatorId(db: ReadableDB, name: string): number | undefined {
  return get<{ id: number }>(db, sql`SELECT id FROM annotators WHERE name = ${name}`)?.id;
}

export function campaignAnnotators(db: ReadableDB, campaignId: number): { id: number; name: string }[] {
  return all(
    db,
    sql`SELECT a.id, a.name FROM campaign_annotators ca JOIN annotators a ON a.id = ca.annotator_id
        WHERE ca.campaign_id = ${campaignId} ORDER BY a.name`,
  );
}
