import path from 'node:path';
import { findAnnotatorId } from '../../../db/queries/annotators';
import { annotatorQueue } from '../../../db/queries/assignments';
import { getCampaign, listCampaigns } from '../../../db/queries/campaigns';
import { instancesOfBaseQuestion } from '../../../db/queries/instances';
import { getRelease } from '../../../db/queries/releases';
import type { ReadableDB } from '../../../db/sql';
import { AppError, type BaseQuestionDetail, type CallContext, type InstanceRow, type Page, type CampaignSummary, type CampaignView, type EventMessage, type InstanceDetail, type Job, type TeamStatus } from '../../../shared/api';
import { blindView } from '../annotation/judging';

/**
 * What each caller over the network sees, beyond the role table: an annotator judges only as
 * themself and sees of a campaign only their own share; and a blind campaign stays blind in every
 * operation. Its agreement in any form (the agreement report, the disagreements, a release's
 * card, preview and files, a judge validation against it) is for maintainers only, and an
 * annotator sees nothing of the pipeline's verdict on an instance they judge in it (its status,
 * filter votes, removal, trace). Jobs are maintainers' work: others see their progress, not their
 * results (a release's gate holds agreement figures).
 */

type Caller = NonNullable<CallContext['account']>;

function blind(db: ReadableDB, campaignId: number | null | undefined): boolean {
  if (campaignId === null || campaignId === undefined) return false;
  return getCampaign(db, campaignId)?.blind === 1;
}

function refuseBlind(what: string): never {
  throw new AppError('forbidden', `${what} comes from a blind campaign: its agreement and judgments are for maintainers only.`);
}

/** The release's validation campaign, from its stored selection. */
function releaseCampaign(db: ReadableDB, releaseId: number): number | null {
  const row = getRelease(db, releaseId);
  if (!row) return null;
  try {
    return (JSON.parse(row.selection) as { campaignId?: number | null }).campaignId ?? null;
  } catch {
    return null;
  }
}

/** Instances an annotator judges in blind campaigns. */
function blindInstancesOf(db: ReadableDB, caller: Caller): Set<number> {
  const annotatorId = findAnnotatorId(db, caller.name);
  const out = new Set<number>();
  if (annotatorId === undefined) return out;
  for (const campaign of listCampaigns(db)) {
    if (campaign.blind !== 1) continue;
    for (const assignment of annotatorQueue(db, campaign.id, annotatorId)) out.add(assignment.instance_id);
  }
  return out;
}

function sessionOf(input: unknown): { campaignId: number; annotator: string } | { pack: string } | undefined {
  return (input as { session?: { campaignId: number; annotator: string } | { pack: string } }).session;
}

function checkJudging(caller: Caller, input: unknown): void {
  const session = sessionOf(input);
  if (!session || 'pack' in session) throw new AppError('forbidden', 'Over the network, judging happens in a campaign of the server.');
  if (session.annotator !== caller.name) throw new AppError('forbidden', `${caller.name} may judge only as ${caller.name}, not as ${session.annotator}.`);
}

/** Refuses a pipeline trace of an instance (or its base question) an annotator judges blind. */
function checkTrace(db: ReadableDB, caller: Caller, item: string): void {
  const [kind, id] = [item.split(':')[0], Number(item.split(':')[1])];
  const hidden = blindInstancesOf(db, caller);
  const instances = kind === 'inst' ? [id] : instancesOfBaseQuestion(db, id).map((i) => i.id);
  if (instances.some((i) => hidden.has(i))) throw new AppError('forbidden', `${item} is in a blind campaign you judge: the pipeline's verdicts on it are hidden.`);
}

/** Checks that depend on the input: whose judging session, which campaign, which release. */
export function checkInput(db: ReadableDB, caller: Caller, name: string, input: unknown): void {
  if (caller.role === 'maintainer') return;
  const fields = (typeof input === 'object' && input !== null ? input : {}) as Record<string, unknown>;
  if (name.startsWith('judging:')) checkJudging(caller, input);
  if (name === 'agreement:get' || name === 'agreement:disagreements') {
    if (blind(db, Number(fields.campaignId))) refuseBlind(`Campaign ${String(fields.campaignId)}`);
  }
  if (name === 'release:preview') {
    const campaignId = (fields.selection as { campaignId?: number | null } | undefined)?.campaignId;
    if (blind(db, campaignId)) refuseBlind('A preview validated by this campaign');
  }
  if ((name === 'release:get' || name === 'release:card' || name === 'release:zip') && blind(db, releaseCampaign(db, Number(fields.id)))) refuseBlind(`Release ${String(fields.id)}`);
  if (name === 'judge-validation:get' && blind(db, Number(fields.campaign))) refuseBlind(`Campaign ${String(fields.campaign)}`);
  if (name === 'pipeline:trace' && caller.role === 'annotator' && typeof fields.item === 'string') checkTrace(db, caller, fields.item);
}

function withoutResult(job: Job): Job {
  return { ...job, result: null };
}

/** What a network caller sees of an operation's answer (see above). */
export function filterOutput(db: ReadableDB, caller: Caller, name: string, value: unknown): unknown {
  // Where the server keeps its files is none of the network's business.
  if (name === 'app:info') return { ...(value as Record<string, unknown>), databasePath: path.basename(String((value as { databasePath: string }).databasePath)), pack: null };
  if (caller.role === 'maintainer') return value;
  if (name === 'team:status') {
    const status = value as TeamStatus;
    return { ...status, sync: { ...status.sync, store: null, device: null } };
  }
  if (name === 'job:get') return withoutResult(value as Job);
  if (name === 'job:list') return (value as Job[]).map(withoutResult);
  if (caller.role !== 'annotator') return value;
  if (name === 'instance:get') {
    const detail = value as InstanceDetail;
    return blindInstancesOf(db, caller).has(detail.id) ? blindView(detail, true) : detail;
  }
  // In lists, an instance they judge blind shows as blindView shows it: no status, no removal.
  if (name === 'instance:list') {
    const hidden = blindInstancesOf(db, caller);
    const page = value as Page<InstanceRow>;
    return { ...page, rows: page.rows.map((row) => (hidden.has(row.id) ? { ...row, status: 'ready', removedReason: null } : row)) };
  }
  if (name === 'base-question:get') {
    const hidden = blindInstancesOf(db, caller);
    const detail = value as BaseQuestionDetail;
    return { ...detail, instances: detail.instances.map((i) => (hidden.has(i.id) ? { ...i, status: 'ready' } : i)) };
  }
  const annotatorId = findAnnotatorId(db, caller.name);
  const mine = (campaignId: number) => annotatorId !== undefined && annotatorQueue(db, campaignId, annotatorId).length > 0;
  if (name === 'campaign:list') return (value as CampaignSummary[]).filter((c) => mine(c.id));
  if (name === 'campaign:get') {
    const view = value as CampaignView;
    if (!mine(view.id)) throw new AppError('forbidden', `${caller.name} has no items in campaign ${view.id}.`);
    return {
      ...view,
      annotators: view.annotators.filter((a) => a === caller.name),
      assignments: view.assignments.filter((a) => a.annotator === caller.name),
      progress: view.progress.filter((p) => p.annotator === caller.name),
    };
  }
  return value;
}

/** A server-sent event as a network caller may see it: job results for maintainers only. */
export function filterEvent(caller: Caller | null, message: EventMessage): EventMessage {
  if (caller === null || caller.role === 'maintainer' || (message.name !== 'job:done' && message.name !== 'job:progress')) return message;
  return { ...message, payload: withoutResult(message.payload as Job) };
}
