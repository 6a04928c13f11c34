import { all, get, sql, type ReadableDB, type WritableDB } from '../sql';

export interface NewEvidence {
  instanceId: number;
  interpretationId: number | null;
  rank: number;
  passageId: number;
  score: number | null;
  origin: string;
  provenanceId: number | null;
}

export function insertEvidence(db: WritableDB, e: NewEvidence): number {
  return get<{ id: number }>(
    db,
    sql`INSERT INTO evidence (instance_id, interpretation_id, rank, passage_id, score, origin, provenance_id)
        VALUES (${e.instanceId}, ${e.interpretationId}, ${e.rank}, ${e.passageId}, ${e.score}, ${e.origin}, ${e.provenanceId})
        RETURNING id`,
  )!.id;
}

export interface EvidenceDbRow {
  id: number;
  instance_id: number;
  interpretation_id: number | null;
  rank: number;
  passage_id: number;
  score: number | null;
  origin: string;
  provenance_id: number | null;
}

/** All evidence of an instance: its frozen list (interpretation_id NULL) and each interpretation's. */
export function listEvidence(db: ReadableDB, instanceId: number): EvidenceDbRow[] {
  return all<EvidenceDbRow>(
    db,
    sql`SELECT * FROM evidence WHERE instance_id = ${instanceId} ORDER BY coalesce(interpretation_id, 0), rank`,
  );
}
