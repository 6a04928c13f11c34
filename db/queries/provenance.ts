import type { ProvenanceSource } from '../../shared/domain';
import { all, get, sql, type ReadableDB, type WritableDB } from '../sql';
import { callForItemsOf } from './llm-calls';

export interface ProvenanceRow {
  id: number;
  source: ProvenanceSource;
  detail: string;
  model: string | null;
  prompt_version: string | null;
  call_id: number | null;
  call_hash: string | null;
}

export interface NewProvenance {
  source: ProvenanceSource;
  detail: string;
  model: string | null;
  promptVersion: string | null;
  callId: number | null;
}

/** Provenance rows are shared: the same (source, detail, model, prompt, call) is stored once. */
export function getOrCreateProvenance(db: WritableDB, p: NewProvenance): number {
  const found = get<{ id: number }>(
    db,
    sql`SELECT id FROM provenance
        WHERE source = ${p.source} AND detail = ${p.detail}
          AND coalesce(model, '') = ${p.model ?? ''} AND coalesce(prompt_version, '') = ${p.promptVersion ?? ''}
          AND coalesce(call_id, 0) = ${p.callId ?? 0}`,
  );
  if (found) return found.id;
  const row = get<{ id: number }>(
    db,
    sql`INSERT INTO provenance (source, detail, model, prompt_version, call_id)
        VALUES (${p.source}, ${p.detail}, ${p.model}, ${p.promptVersion}, ${p.callId}) RETURNING id`,
  );
  return row!.id;
}

export function getProvenance(db: ReadableDB, ids: readonly (number | null)[]): Map<number, ProvenanceRow> {
  const wanted = [...new Set(ids.filter((id): id is number => id !== null))];
  if (wanted.length === 0) return new Map();
  const rows = all<ProvenanceRow>(
    db,
    sql`SELECT p.*, c.request_hash AS call_hash FROM provenance p LEFT JOIN llm_calls c ON c.id = p.call_id
        WHERE p.id IN ${sql.list(wanted)}`,
  );
  return new Map(rows.map((row) => [row.id, row]));
}

/** Prompt versions named by the provenance of the calls made for the given datasets' items (all datasets when none), per stage. */
export function promptVersionsPerStage(db: ReadableDB, datasetIds: readonly number[]): { stage: string; prompt_version: string }[] {
  return all(
    db,
    sql`SELECT DISTINCT coalesce(c.stage, '') AS stage, p.prompt_version
        FROM provenance p JOIN llm_calls c ON c.id = p.call_id
        WHERE p.prompt_version IS NOT NULL AND ${callForItemsOf(datasetIds)}
        ORDER BY 1, 2`,
  );
}
