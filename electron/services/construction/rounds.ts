import { campaignAssignments } from '../../../db/queries/assignments';
import { currentAdjudications } from '../../../db/queries/adjudications';
import { constructionCandidates } from '../../../db/queries/base-questions';
import { getCampaign } from '../../../db/queries/campaigns';
import { decideRound, latestRounds, markRoundsInReview, reviewedDecidedRounds, type RoundRow } from '../../../db/queries/construction-rounds';
import { findDatasetByName } from '../../../db/queries/datasets';
import { acceptInstance, removeConstructed } from '../../../db/queries/instances';
import { campaignCurrentJudgments, judgmentsAfter, judgmentUidsAfter } from '../../../db/queries/judgments';
import { failedAmong } from '../../../db/queries/pipeline-items';
import { insertRun } from '../../../db/queries/runs';
import { transaction, type WritableDB } from '../../../db/sql';
import { AppError, isCancelled, type CampaignView, type RoundReport } from '../../../shared/api';
import { decideReview, type ConstructionConfig, type Draft, type ReviewVote } from '../../../shared/construction';
import { stableSubset } from '../../../shared/pipeline-rules';
import { createCampaign } from '../annotation/campaigns';
import { eachItem, promptContext, promptRun } from '../pipeline/prompt-call';
import { draftRound, type DraftItem, type RoundContext } from './draft';

/**
 * CondAmbigQA's rounds over a dataset (paper 003, §3.3): round 1 drafts every base question not
 * yet drafted; people review the drafts (a campaign with the condambigqa-review protocol); the
 * next round applies their decisions (accepted items become ready, rejected ones go back to the
 * model with the feedback) and drafts the rejected again, until the last round, after which an
 * item still rejected is removed with its last feedback. Each item's state is its latest round.
 */

export interface RoundRequest {
  dataset: string;
  config: ConstructionConfig;
  limit?: number | undefined;
  noCache: boolean;
  review?: { annotators: string[]; perInstance?: number | undefined; blind: boolean; name?: string | undefined } | undefined;
}

export interface RoundOptions {
  signal?: AbortSignal | undefined;
  keys?: Readonly<Record<string, string>> | undefined;
  onProgress?: (done: number, total: number, detail: string) => void;
}

const REVIEW_PROTOCOL = 'condambigqa-review';

function datasetId(db: WritableDB, name: string): number {
  const row = findDatasetByName(db, name);
  if (!row) throw new AppError('not_found', `No dataset named "${name}"`);
  return row.id;
}

function emptyReport(dataset: string): RoundReport {
  return { dataset, runId: null, accepted: 0, rejected: 0, removed: 0, pending: 0, drafted: 0, failed: 0, skipped: [], failures: [], campaign: null, costUsd: 0 };
}

/** Round 1 for the base questions not yet drafted: those with fragments and no unspecified instance of another origin. */
export async function startRounds(db: WritableDB, request: RoundRequest, options: RoundOptions): Promise<RoundReport> {
  const id = datasetId(db, request.dataset);
  const report = emptyReport(request.dataset);
  const items: DraftItem[] = [];
  for (const c of constructionCandidates(db, id)) {
    if (c.instance_id !== null && c.construction === null) {
      report.skipped.push({
        item: `bq:${c.id}`,
        reason: `bq:${c.id} already has an unspecified instance (inst:${c.instance_id}, imported); drafting would overwrite it: import the questions without their interpretations, or into another dataset`,
      });
    } else if (c.instance_id === null && c.fragments === 0) {
      report.skipped.push({ item: `bq:${c.id}`, reason: `bq:${c.id} has no paragraphs: CondAmbigQA drafts from a frozen list of fragments` });
    } else if (c.instance_id === null) {
      items.push({ baseQuestionId: c.id, datasetId: id, question: c.question, hops: c.hops, instanceId: null, round: 1, previous: null });
    }
  }
  const chosen = request.limit ? stableSubset(items.map((i) => ({ ...i, dataset: request.dataset, sourceId: String(i.baseQuestionId) })), request.limit) : items;
  await draftAll(db, request, chosen, report, options);
  if (request.review && report.drafted > 0) report.campaign = campaignSummary(reviewRound(db, { dataset: request.dataset, round: 1, ...request.review }));
  return report;
}

/** Applies the reviews, re-drafts the rejected items with their feedback, removes the items out of rounds. */
export async function nextRound(db: WritableDB, request: RoundRequest, options: RoundOptions): Promise<RoundReport> {
  const id = datasetId(db, request.dataset);
  const report = emptyReport(request.dataset);
  applyReviews(db, id, report);
  const redraft: DraftItem[] = [];
  let nextNumber: number | null = null;
  for (const latest of latestRounds(db, id)) {
    if (latest.status !== 'rejected' || latest.instance_status !== 'building') continue;
    if (latest.round >= request.config.construction.maxRounds) {
      removeConstructed(db, latest.instance_id, `not accepted after ${latest.round} round${latest.round === 1 ? '' : 's'}; last feedback: ${latest.feedback}`);
      report.removed++;
      continue;
    }
    const draft = JSON.parse(latest.draft) as Draft;
    redraft.push({ baseQuestionId: 0, datasetId: id, question: latest.question, hops: null, instanceId: latest.instance_id, round: latest.round + 1, previous: { draft, feedback: latest.feedback! } });
    nextNumber = Math.max(nextNumber ?? 0, latest.round + 1);
  }
  await draftAll(db, request, redraft, report, options);
  if (request.review && report.drafted > 0 && nextNumber !== null) {
    report.campaign = campaignSummary(reviewRound(db, { dataset: request.dataset, round: nextNumber, ...request.review }));
  }
  return report;
}

/** Drafts the items, many at once, under one run (its calls and costs). */
async function draftAll(db: WritableDB, request: RoundRequest, items: DraftItem[], report: RoundReport, options: RoundOptions): Promise<void> {
  if (items.length === 0) return;
  const runId = insertRun(db, 'pipeline', { kind: 'condambigqa-rounds', dataset: request.dataset, construction: request.config.construction, rounds: [...new Set(items.map((i) => i.round))] });
  report.runId = runId;
  const ctx: RoundContext = {
    ...promptContext(db, request.config, { runId, signal: options.signal, keys: options.keys, ...(request.noCache ? { noCache: new Set(['round']) } : {}) }),
    config: request.config,
  };
  let done = 0;
  try {
    await promptRun(
      ctx,
      options.signal,
      () =>
        eachItem(items, request.config.concurrency, options.signal, async (item) => {
          const outcome = await draftRound(ctx, item);
          if (outcome === 'done') report.drafted++;
          else report.failed++;
          options.onProgress?.(++done, items.length, `round ${item.round} · ${report.drafted} drafted, ${report.failed} failed · $${ctx.llm.stats.costUsd.toFixed(4)}`);
        }),
      () => {
        report.costUsd += ctx.llm.stats.costUsd;
        return `CondAmbigQA rounds on "${request.dataset}": ${report.drafted} drafted, ${report.failed} failed`;
      },
    );
  } catch (error) {
    // A stop (the user's cancel, a cost ceiling) ends the rounds with what was drafted, the run saying cancelled and why; anything else fails them.
    if (!isCancelled(error)) throw error;
  }
  report.failures.push(...failuresOf(db, items));
}

function failuresOf(db: WritableDB, items: DraftItem[]): { item: string; reason: string }[] {
  return failedAmong(db, 'round', items.map((i) => (i.instanceId === null ? `bq:${i.baseQuestionId}` : `inst:${i.instanceId}`)));
}

// ---- review --------------------------------------------------------------------------------------

/** A review campaign over a round's drafted items (the latest round by default). */
export function reviewRound(
  db: WritableDB,
  request: { dataset: string; round?: number | undefined; annotators: string[]; perInstance?: number | undefined; blind: boolean; name?: string | undefined },
): CampaignView {
  const id = datasetId(db, request.dataset);
  const drafted = latestRounds(db, id).filter((r) => r.status === 'drafted' && (request.round === undefined || r.round === request.round));
  if (drafted.length === 0) {
    throw new AppError('invalid_input', `No item of "${request.dataset}" waits for review${request.round ? ` in round ${request.round}` : ''}: draft a round first (round:start or round:next).`);
  }
  const round = request.round ?? Math.max(...drafted.map((r) => r.round));
  const items = drafted.filter((r) => r.round === round);
  return transaction(db, () => {
    const campaign = createCampaign(db, {
      name: request.name ?? `CondAmbigQA round ${round} · ${request.dataset}`,
      protocol: REVIEW_PROTOCOL,
      annotators: request.annotators,
      ...(request.perInstance ? { perInstance: request.perInstance } : {}),
      blind: request.blind,
      selection: { instanceIds: items.map((r) => r.instance_id) },
    });
    markRoundsInReview(db, items.map((r) => ({ instanceId: r.instance_id, round: r.round })), campaign.id);
    return campaign;
  });
}

const campaignSummary = (c: CampaignView) => ({ id: c.id, name: c.name, items: c.items.length });

/** Each in-review item's decision, from its round's campaign; late judgments on decided rounds are reported, not applied. */
function applyReviews(db: WritableDB, datasetId: number, report: RoundReport): void {
  const latest = latestRounds(db, datasetId);
  const campaigns = new Set(latest.filter((r) => r.campaign_id !== null).map((r) => r.campaign_id!));
  for (const campaignId of campaigns) {
    const campaign = getCampaign(db, campaignId);
    if (!campaign) continue;
    const judgments = campaignCurrentJudgments(db, campaignId);
    const adjudications = currentAdjudications(db, campaignId).filter((a) => a.criterion === 'decision');
    const time = new Map<number, number>();
    for (const a of campaignAssignments(db, campaignId)) time.set(a.instance_id, (time.get(a.instance_id) ?? 0) + a.time_ms);
    const seen = Math.max(0, ...judgmentUidsAfter(db, campaignId, 0).map((j) => j.id));
    for (const row of latest.filter((r) => r.campaign_id === campaignId)) {
      if (row.status !== 'in_review') continue;
      const votes = votesOf(judgments.filter((j) => j.instance_id === row.instance_id));
      const adjudication = adjudications.find((a) => a.instance_id === row.instance_id) ?? null;
      applyDecision(db, row, decideReview(votes, adjudication, campaign.blind === 1), { reviewMs: time.get(row.instance_id) ?? 0, seen }, report);
    }
  }
  reportLateJudgments(db, datasetId, report);
}

function votesOf(judgments: { annotator: string; criterion: string; value: string | null; comment: string }[]): ReviewVote[] {
  const annotators = [...new Set(judgments.map((j) => j.annotator))].sort();
  return annotators.map((annotator) => {
    const of = (criterion: string) => judgments.find((j) => j.annotator === annotator && j.criterion === criterion);
    const decision = of('decision');
    return { annotator, decision: decision?.value ?? null, feedback: of('feedback')?.value?.trim() || decision?.comment || '' };
  });
}

function applyDecision(db: WritableDB, row: RoundRow, decision: ReturnType<typeof decideReview>, review: { reviewMs: number; seen: number }, report: RoundReport): void {
  const item = `inst:${row.instance_id}`;
  if (decision.outcome === 'pending') {
    report.pending++;
    return;
  }
  if (decision.outcome === 'needs_feedback') {
    report.pending++;
    report.skipped.push({ item, reason: `${item}: rejected in round ${row.round} by ${decision.by} without feedback; ask for what must change, or adjudicate` });
    return;
  }
  transaction(db, () => {
    const feedback = decision.outcome === 'rejected' ? decision.feedback : null;
    if (!decideRound(db, row.instance_id, row.round, { status: decision.outcome, feedback, decidedBy: decision.by, reviewMs: review.reviewMs, judgmentsSeen: review.seen })) return;
    if (decision.outcome === 'accepted') {
      acceptInstance(db, row.instance_id);
      report.accepted++;
    } else report.rejected++;
  });
}

/** Judgments that reached a campaign after its round was decided (a late pack, say): reported, never applied. */
function reportLateJudgments(db: WritableDB, datasetId: number, report: RoundReport): void {
  const decided = reviewedDecidedRounds(db, datasetId);
  const byCampaign = new Map<number, typeof decided>();
  for (const r of decided) byCampaign.set(r.campaign_id, [...(byCampaign.get(r.campaign_id) ?? []), r]);
  for (const [campaignId, rows] of byCampaign) {
    const after = Math.min(...rows.map((r) => r.judgments_seen));
    const late = judgmentsAfter(db, campaignId, after).filter((j) => j.criterion === 'decision');
    for (const j of late) {
      const row = rows.find((r) => r.instance_id === j.instance_id && j.id > r.judgments_seen);
      if (!row) continue;
      const now = latestRounds(db, datasetId).find((r) => r.instance_id === j.instance_id);
      const state = now && now.round !== row.round ? `; the item is in round ${now.round} (${now.status})` : '';
      report.skipped.push({
        item: `inst:${j.instance_id}`,
        reason: `inst:${j.instance_id}: ${j.annotator}'s "${j.value}" from campaign ${campaignId} (round ${row.round}) arrived after that round was ${row.status}${state}; not applied`,
      });
    }
  }
}
