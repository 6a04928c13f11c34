import { currentAdjudications, insertAdjudication } from '../../../db/queries/adjudications';
import { campaignAnnotators } from '../../../db/queries/annotators';
import { campaignInstances, campaignItems, getCampaign, isCampaignItem } from '../../../db/queries/campaigns';
import { campaignCurrentJudgments, clearItemConflicts, openConflicts } from '../../../db/queries/judgments';
import { getProtocol } from '../../../db/queries/protocols';
import { transaction, type ReadableDB, type WritableDB } from '../../../db/sql';
import type { Rating } from '../../../shared/agreement';
import { agreementReport, type AgreementInput } from '../../../shared/agreement-report';
import { AppError, type AgreementReport, type Disagreement } from '../../../shared/api';
import { isValidValue } from '../../../shared/protocols';

/** Gathers a campaign's current judgments into one ratings matrix per criterion. */
export function agreementInput(db: ReadableDB, campaignId: number): { input: AgreementInput; protocolName: string; campaignName: string } {
  const campaign = getCampaign(db, campaignId);
  if (!campaign) throw new AppError('not_found', `No campaign ${campaignId}`);
  const protocol = getProtocol(db, campaign.protocol_id)!;
  const raters = campaignAnnotators(db, campaignId).map((a) => a.name);
  const itemIds = campaignItems(db, campaignId).map((i) => i.instance_id);
  const meta = new Map(campaignInstances(db, campaignId).map((r) => [r.id, r]));
  const items = itemIds.map((id) => ({ id, type: meta.get(id)!.ambiguity_type, status: meta.get(id)!.status }));
  const row = new Map(itemIds.map((id, i) => [id, i]));
  const column = new Map(raters.map((r, i) => [r, i]));
  const ratings = new Map<string, Rating[][]>(protocol.criteria.map((c) => [c.id, itemIds.map(() => raters.map(() => null as Rating))]));
  for (const j of campaignCurrentJudgments(db, campaignId)) {
    const matrix = ratings.get(j.criterion);
    if (!matrix || j.value === null) continue;
    matrix[row.get(j.instance_id)!]![column.get(j.annotator)!] = j.value;
  }
  const adjudications = new Map<string, Map<number, string>>();
  for (const a of currentAdjudications(db, campaignId)) {
    if (!adjudications.has(a.criterion)) adjudications.set(a.criterion, new Map());
    adjudications.get(a.criterion)!.set(a.instance_id, a.value);
  }
  return {
    input: { criteria: protocol.criteria.map((c) => ({ id: c.id, label: c.label, scale: c.scale })), items, raters, ratings, adjudications },
    protocolName: `${protocol.name} v${protocol.version}`,
    campaignName: campaign.name,
  };
}

type AgreementOptions = { resamples?: number; seed?: number };

export function campaignAgreement(db: ReadableDB, campaignId: number, options: AgreementOptions = {}): AgreementReport {
  const started = performance.now();
  return agreementOfInput(db, campaignId, agreementInput(db, campaignId), options, started);
}

/** The report on judgments gathered already (a release plan gathers them once for the report and its verdicts). */
export function agreementOfInput(
  db: ReadableDB,
  campaignId: number,
  { input, protocolName, campaignName }: ReturnType<typeof agreementInput>,
  options: AgreementOptions = {},
  started = performance.now(),
): AgreementReport {
  const report = agreementReport(input, { resamples: options.resamples ?? 1000, seed: options.seed ?? 1 }, { id: campaignId, name: campaignName, protocol: protocolName });
  return {
    ...report,
    adjudicated: [...input.adjudications.values()].reduce((n, m) => n + m.size, 0),
    conflicts: openConflicts(db, campaignId).length,
    milliseconds: Number((performance.now() - started).toFixed(1)),
  };
}

/** Items where the annotators do not all agree on a criterion: who said what, and any adjudication. */
export function disagreements(db: ReadableDB, campaignId: number): Disagreement[] {
  const { input } = agreementInput(db, campaignId);
  const conflicts = new Set(openConflicts(db, campaignId).map((c) => `${c.instance_id}\u0000${c.annotator}\u0000${c.criterion}`));
  const comments = new Map(campaignCurrentJudgments(db, campaignId).map((j) => [`${j.instance_id}\u0000${j.annotator}\u0000${j.criterion}`, j.comment]));
  const questions = new Map(campaignInstances(db, campaignId).map((r) => [r.id, r.question]));
  const adjudicated = new Map(currentAdjudications(db, campaignId).map((a) => [`${a.instance_id}\u0000${a.criterion}`, a]));
  const out: Disagreement[] = [];
  for (const criterion of input.criteria) {
    if (criterion.scale.kind === 'text') continue;
    const matrix = input.ratings.get(criterion.id)!;
    input.items.forEach((item, i) => {
      const values = matrix[i]!.filter((v): v is string => v !== null);
      const conflicted = input.raters.some((r) => conflicts.has(`${item.id}\u0000${r}\u0000${criterion.id}`));
      if (new Set(values).size <= 1 && !conflicted) return;
      const adjudication = adjudicated.get(`${item.id}\u0000${criterion.id}`);
      out.push({
        instanceId: item.id,
        question: questions.get(item.id) ?? '',
        ambiguityType: item.type,
        criterion: criterion.id,
        votes: input.raters.map((r, c) => ({
          annotator: r,
          value: matrix[i]![c] ?? null,
          comment: comments.get(`${item.id}\u0000${r}\u0000${criterion.id}`) ?? '',
          conflict: conflicts.has(`${item.id}\u0000${r}\u0000${criterion.id}`),
        })),
        adjudication: adjudication ? { value: adjudication.value, reason: adjudication.reason, adjudicator: adjudication.adjudicator } : null,
      });
    });
  }
  return out;
}

export function adjudicate(
  db: WritableDB,
  request: { campaignId: number; instanceId: number; criterion: string; value: string; reason: string; adjudicator: string },
): void {
  const campaign = getCampaign(db, request.campaignId);
  if (!campaign) throw new AppError('not_found', `No campaign ${request.campaignId}`);
  const criterion = getProtocol(db, campaign.protocol_id)!.criteria.find((c) => c.id === request.criterion);
  if (!criterion) throw new AppError('invalid_input', `No criterion "${request.criterion}" in this campaign's protocol.`);
  if (!isValidValue(criterion.scale, request.value)) throw new AppError('invalid_input', `"${request.value}" is not on the scale of "${criterion.id}".`);
  if (!isCampaignItem(db, request.campaignId, request.instanceId)) throw new AppError('invalid_input', `Instance ${request.instanceId} is not in this campaign.`);
  if (!request.reason.trim()) throw new AppError('invalid_input', 'An adjudication needs a reason.');
  transaction(db, () => {
    insertAdjudication(db, request);
    clearItemConflicts(db, request.campaignId, request.instanceId, request.criterion);
  });
}
