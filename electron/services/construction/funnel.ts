import { listRounds, roundTotals } from '../../../db/queries/construction-rounds';
import { findDatasetByName } from '../../../db/queries/datasets';
import { constructionStatusCounts } from '../../../db/queries/instances';
import type { ReadableDB } from '../../../db/sql';
import { AppError, type RoundListRow } from '../../../shared/api';
import { roundFunnel, type Draft, type RoundFunnel } from '../../../shared/construction';
import type { RoundStatus } from '../../../shared/domain';

/** Reads of the rounds: the funnel per round (acceptance, cost and time per item) and the rounds listed. */

function datasetIdOf(db: ReadableDB, name: string): number {
  const row = findDatasetByName(db, name);
  if (!row) throw new AppError('not_found', `No dataset named "${name}"`);
  return row.id;
}

export function roundFunnelOf(db: ReadableDB, dataset: string): RoundFunnel {
  const id = datasetIdOf(db, dataset);
  const counts = constructionStatusCounts(db, id);
  return roundFunnel(dataset, { total: counts.building + counts.ready + counts.removed, accepted: counts.ready, removed: counts.removed, building: counts.building }, roundTotals(db, id));
}

export function roundRows(db: ReadableDB, filter: { dataset?: string | undefined; instanceId?: number | undefined; round?: number | undefined; status?: RoundStatus | undefined; limit: number }): RoundListRow[] {
  const rows = listRounds(
    db,
    { datasetId: filter.dataset ? datasetIdOf(db, filter.dataset) : null, instanceId: filter.instanceId ?? null, round: filter.round ?? null, status: filter.status ?? null },
    filter.limit,
  );
  return rows.map((r) => ({
    instanceId: r.instance_id,
    question: r.question,
    round: r.round,
    status: r.status,
    campaignId: r.campaign_id,
    feedback: r.feedback,
    decidedBy: r.decided_by,
    flags: (JSON.parse(r.draft) as Partial<Draft>).flags ?? [],
    costUsd: r.cost_usd,
    llmMs: r.llm_ms,
    reviewMs: r.review_ms,
    createdAt: r.created_at,
    decidedAt: r.decided_at,
  }));
}
