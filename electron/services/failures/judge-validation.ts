import { campaignItems, getCampaign } from '../../../db/queries/campaigns';
import { getEvalRun, rowToFailureRunInfo, type EvalRunRow } from '../../../db/queries/eval-runs';
import { runItemsWithInstances } from '../../../db/queries/eval-items';
import { campaignCurrentJudgments } from '../../../db/queries/judgments';
import { getProtocol } from '../../../db/queries/protocols';
import type { WritableDB } from '../../../db/sql';
import { seededRandom } from '../../../shared/statistics';
import { AppError, JUDGE_CRITERIA, type CampaignView, type JudgeValidationReport, type JudgeValidationRow } from '../../../shared/api';
import { mean } from '../../../shared/statistics';
import { judgeAgreement } from '../../../shared/eval/paired';
import { createCampaign } from '../annotation/campaigns';

/**
 * Judge validation (MARCH appendix F): people rate a sample of a run's long answers on the same
 * four 0-5 criteria the LLM judge used, then the two are compared per criterion. Everything is
 * checked before anything is computed: a run still going, a run whose items are gone, a campaign
 * over other instances or another run's answers, a rating off the 0-5 scale each stop with a
 * message saying what is wrong.
 */

export const JUDGE_PROTOCOL = 'long-answer-quality';
const SCALE = { min: 0, max: 5 };

export function finishedRun(db: WritableDB, runId: number): EvalRunRow {
  const run = getEvalRun(db, runId);
  if (!run) throw new AppError('not_found', `No evaluation run ${runId}`);
  if (run.status === 'running') {
    throw new AppError('conflict', `Evaluation run ${runId} is still in progress (${run.done + run.failed} of ${run.total} items): validate its judge once it has finished.`);
  }
  return run;
}

function shuffle<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** The campaign: a seeded sample of the run's answered items, judged with the long-answer quality protocol. */
export function startJudgeCampaign(db: WritableDB, request: { run: number; name: string; annotators: string[]; size: number; perInstance?: number | undefined; seed: number }): CampaignView {
  finishedRun(db, request.run);
  const items = runItemsWithInstances(db, request.run).filter((i) => i.status === 'done' && i.long_answer);
  if (items.length === 0) throw new AppError('invalid_input', `Evaluation run ${request.run} has no answered items that point at an instance in this database, so there is nothing for people to rate.`);
  const instanceIds = [...new Set(shuffle(items, seededRandom(request.seed)).map((i) => i.instance_id))].slice(0, request.size);
  return createCampaign(db, {
    name: request.name,
    protocol: JUDGE_PROTOCOL,
    annotators: request.annotators,
    ...(request.perInstance !== undefined ? { perInstance: request.perInstance } : {}),
    seed: request.seed,
    blind: true,
    selection: { instanceIds, evalRun: request.run },
  });
}

export function judgeValidation(db: WritableDB, runId: number, campaignId: number, options: { resamples: number; seed: number }): JudgeValidationReport {
  const run = finishedRun(db, runId);
  const campaign = getCampaign(db, campaignId);
  if (!campaign) throw new AppError('not_found', `No campaign ${campaignId}`);
  const protocol = getProtocol(db, campaign.protocol_id)!;
  const missingCriteria = JUDGE_CRITERIA.filter((c) => !protocol.criteria.some((p) => p.id === c));
  if (missingCriteria.length) {
    throw new AppError('invalid_input', `Campaign ${campaignId} uses the protocol "${protocol.name}", which has no ${missingCriteria.join(', ')} criteria; judge validation needs the ${JUDGE_PROTOCOL} protocol's four 0-5 criteria.`);
  }
  const selection = JSON.parse(campaign.selection) as { evalRun?: unknown };
  if (typeof selection.evalRun === 'number' && selection.evalRun !== runId) {
    throw new AppError('invalid_input', `Campaign ${campaignId} rated the answers of evaluation run ${selection.evalRun}, not of run ${runId}: its ratings say nothing about this run's judge.`);
  }
  const runItems = runItemsWithInstances(db, runId);
  if (run.total === 0 || runItems.length === 0) {
    throw new AppError('not_found', `Evaluation run ${runId} has no items left (they were deleted, or none points at an instance of this database); nothing to compare.`);
  }
  const byInstance = new Map(runItems.map((i) => [i.instance_id, i]));
  const instances = campaignItems(db, campaignId).map((i) => i.instance_id);
  const outside = instances.filter((i) => !byInstance.has(i));
  if (outside.length) {
    throw new AppError(
      'invalid_input',
      `Campaign ${campaignId} is on other instances: ${outside.length} of its ${instances.length} instances (${outside.slice(0, 5).join(', ')}${outside.length > 5 ? ', …' : ''}) are not items of evaluation run ${runId}.`,
    );
  }
  const notAnswered = instances.filter((i) => byInstance.get(i)!.status !== 'done');
  if (notAnswered.length) {
    throw new AppError('invalid_input', `${notAnswered.length} of campaign ${campaignId}'s instances have no answer in run ${runId} (failed or pending items: instances ${notAnswered.slice(0, 5).join(', ')}).`);
  }

  // Human ratings: every current value must be a whole number on the scale.
  const ratings = new Map<string, number[]>();
  const annotators = new Set<string>();
  const bad: string[] = [];
  for (const j of campaignCurrentJudgments(db, campaignId)) {
    if (j.value === null || !(JUDGE_CRITERIA as readonly string[]).includes(j.criterion)) continue;
    const value = Number(j.value);
    if (j.value.trim() === '' || !Number.isInteger(value) || value < SCALE.min || value > SCALE.max) {
      bad.push(`${j.annotator} on instance ${j.instance_id}, ${j.criterion}: "${j.value}"`);
      continue;
    }
    annotators.add(j.annotator);
    const key = `${j.instance_id}:${j.criterion}`;
    ratings.set(key, [...(ratings.get(key) ?? []), value]);
  }
  if (bad.length) {
    throw new AppError('invalid_input', `${bad.length} human rating(s) are not whole numbers from ${SCALE.min} to ${SCALE.max}: ${bad.slice(0, 5).join('; ')}${bad.length > 5 ? '; …' : ''}. Correct them before validating the judge.`);
  }

  // Judge scores: from each item's metrics, on the same scale.
  const judgeScores = new Map<string, number>();
  let judged = 0;
  for (const instance of instances) {
    const metrics = JSON.parse(byInstance.get(instance)!.metrics) as Record<string, unknown>;
    let any = false;
    for (const c of JUDGE_CRITERIA) {
      const v = metrics[`judge_${c}`];
      if (v === undefined || v === null) continue;
      if (typeof v !== 'number' || v < SCALE.min || v > SCALE.max) {
        throw new AppError('invalid_input', `The judge's ${c} score of instance ${instance} in run ${runId} (${String(v)}) is off the ${SCALE.min}-${SCALE.max} scale.`);
      }
      judgeScores.set(`${instance}:${c}`, v);
      any = true;
    }
    if (any) judged++;
  }
  if (judged === 0) throw new AppError('invalid_input', `Evaluation run ${runId} has no judge scores on the campaign's items (was it run without a judge?).`);

  const rated = new Set([...ratings.keys()].map((k) => Number(k.split(':')[0]))).size;
  const notes: string[] = [];
  const rows: JudgeValidationRow[] = JUDGE_CRITERIA.map((criterion) => {
    const judge: number[] = [];
    const human: number[] = [];
    for (const instance of instances) {
      const j = judgeScores.get(`${instance}:${criterion}`);
      const h = ratings.get(`${instance}:${criterion}`);
      if (j === undefined || !h?.length) continue;
      judge.push(j);
      human.push(mean(h));
    }
    const agreement = judgeAgreement(judge, human, SCALE, { resamples: options.resamples, seed: options.seed });
    if (judge.length < 4) notes.push(`${criterion}: only ${judge.length} item(s) with both a judge score and a human rating; the intervals need more.`);
    return {
      criterion,
      n: agreement.n,
      pearson: agreement.pearson,
      spearman: agreement.spearman,
      kendallTauB: agreement.kendallTauB,
      quadraticWeightedKappa: agreement.quadraticWeightedKappa,
      meanJudge: judge.length ? mean(judge) : null,
      meanHuman: human.length ? mean(human) : null,
    };
  });
  return {
    run: rowToFailureRunInfo(run),
    campaign: { id: campaignId, name: campaign.name, protocol: `${protocol.name} v${protocol.version}` },
    items: instances.length,
    rated,
    judged,
    annotators: annotators.size,
    rows,
    bootstrap: { resamples: options.resamples, seed: options.seed },
    notes,
  };
}
