import { randomUUID } from 'node:crypto';
import { findAnnotatorId } from '../../../db/queries/annotators';
import { addItemTime, annotatorQueue, annotatorQueueRows, findAssignment, setSkipped } from '../../../db/queries/assignments';
import { getCampaign } from '../../../db/queries/campaigns';
import { annotatorCurrentJudgments, currentJudgments, insertJudgment, judgmentBefore, lastDecision } from '../../../db/queries/judgments';
import { getProtocol } from '../../../db/queries/protocols';
import { transaction, type WritableDB } from '../../../db/sql';
import { AppError, type InstanceDetail, type JudgingItem, type JudgingQueue } from '../../../shared/api';
import type { AmbiguityType } from '../../../shared/domain';
import { isValidValue, type Protocol } from '../../../shared/protocols';
import { instanceDetail } from '../browse';
import { judgedEvalAnswer } from './judged-answer';

/**
 * Judging against the database (an annotator working in the maintainer's app, or on a shared
 * database). Every decision is committed before the call returns, so the UI shows the next item
 * only once the previous decision is on disk. Judgments are append-only; undo writes the value the
 * criterion had before the last decision not yet undone, so undos walk back one decision at a time.
 */

export interface Decision {
  instanceId: number;
  criterion: string;
  value: string | null;
  comment: string;
  itemMs: number;
}

export interface JudgingStore {
  queue(): JudgingQueue;
  item(position: number): JudgingItem;
  decide(decision: Decision): JudgingItem;
  /** Takes back the last decision; returns where it was, or null when there is none. */
  undo(): { instanceId: number; criterion: string; position: number } | null;
  skip(instanceId: number, itemMs: number): void;
}

/**
 * What an annotator may see. In a blind campaign nothing of the pipeline's verdict on the
 * instance reaches the screen or the pack: no filter votes, no status or reason for a removal,
 * no detector tallies (and never anyone else's judgments).
 */
export function blindView(instance: InstanceDetail, blind: boolean): InstanceDetail {
  if (!blind) return instance;
  const { detection: _detection, ...extra } = instance.extra;
  return { ...instance, status: 'ready', removedStage: null, removedReason: null, filterVotes: [], extra, blind: true };
}

export function checkDecision(protocol: Protocol, decision: Pick<Decision, 'criterion' | 'value'>): void {
  const criterion = protocol.criteria.find((c) => c.id === decision.criterion);
  if (!criterion) throw new AppError('invalid_input', `The protocol has no criterion "${decision.criterion}".`);
  if (decision.value !== null && !isValidValue(criterion.scale, decision.value)) {
    throw new AppError('invalid_input', `"${decision.value}" is not on the scale of "${criterion.id}".`);
  }
}

/** The queue as the judging screen shows it: per item what is decided (and `commented`: the instances with a comment), and the totals. */
export function buildQueue(
  protocol: Protocol,
  rows: readonly { position: number; instanceId: number; question: string; ambiguityType: AmbiguityType; skipped: boolean }[],
  decided: ReadonlyMap<number, readonly string[]>,
  commented: ReadonlySet<number>,
  about: Pick<JudgingQueue, 'campaign' | 'annotator' | 'offline' | 'resultsFile'>,
): JudgingQueue {
  const required = protocol.criteria.filter((c) => c.required && c.scale.kind !== 'text').map((c) => c.id);
  const perCriterion: Record<string, number> = Object.fromEntries(protocol.criteria.map((c) => [c.id, 0]));
  const items = rows.map((row) => {
    const criteria = decided.get(row.instanceId) ?? [];
    for (const c of criteria) perCriterion[c] = (perCriterion[c] ?? 0) + 1;
    const done = required.every((id) => criteria.includes(id));
    return { ...row, decided: criteria.length, done, skipped: row.skipped && !done, commented: commented.has(row.instanceId) };
  });
  return { ...about, protocol, items, total: items.length, done: items.filter((i) => i.done).length, perCriterion };
}

export class DatabaseJudging implements JudgingStore {
  private readonly campaign;
  private readonly protocol: Protocol;
  private readonly annotatorId: number;

  constructor(
    private readonly db: WritableDB,
    private readonly campaignId: number,
    private readonly annotator: string,
  ) {
    const campaign = getCampaign(db, campaignId);
    if (!campaign) throw new AppError('not_found', `No campaign ${campaignId}`);
    this.campaign = campaign;
    this.protocol = getProtocol(db, campaign.protocol_id)!;
    const annotatorId = findAnnotatorId(db, annotator);
    if (annotatorId === undefined || annotatorQueue(db, campaignId, annotatorId).length === 0) {
      throw new AppError('not_found', `"${annotator}" has no items in campaign ${campaignId}.`);
    }
    this.annotatorId = annotatorId;
  }

  private assignment(instanceId: number) {
    const assignment = findAssignment(this.db, this.campaignId, this.annotatorId, instanceId);
    if (!assignment) throw new AppError('invalid_input', `Instance ${instanceId} is not assigned to ${this.annotator} in this campaign.`);
    return assignment;
  }

  queue(): JudgingQueue {
    const decided = new Map<number, string[]>();
    const commented = new Set<number>();
    for (const j of annotatorCurrentJudgments(this.db, this.campaignId, this.annotatorId)) {
      if (j.value !== null) decided.set(j.instance_id, [...(decided.get(j.instance_id) ?? []), j.criterion]);
      if (j.comment.trim()) commented.add(j.instance_id);
    }
    const rows = annotatorQueueRows(this.db, this.campaignId, this.annotatorId).map((a) => ({
      position: a.position,
      instanceId: a.instance_id,
      question: a.question,
      ambiguityType: a.ambiguity_type,
      skipped: a.skipped === 1,
    }));
    return buildQueue(this.protocol, rows, decided, commented, {
      campaign: { id: this.campaignId, uid: this.campaign.uid, name: this.campaign.name, blind: this.campaign.blind === 1 },
      annotator: this.annotator,
      offline: false,
      resultsFile: null,
    });
  }

  item(position: number): JudgingItem {
    const assignment = annotatorQueue(this.db, this.campaignId, this.annotatorId).find((a) => a.position === position);
    if (!assignment) throw new AppError('not_found', `No item ${position + 1} in ${this.annotator}'s queue.`);
    const values = Object.fromEntries(currentJudgments(this.db, assignment.id).map((j) => [j.criterion, { value: j.value, comment: j.comment }]));
    const evalAnswer = judgedEvalAnswer(this.db, this.campaign.selection, assignment.instance_id);
    return {
      position,
      instance: blindView(instanceDetail(this.db, assignment.instance_id), this.campaign.blind === 1),
      values,
      timeMs: assignment.time_ms,
      skipped: assignment.skipped === 1,
      ...(evalAnswer ? { evalAnswer } : {}),
    };
  }

  decide(decision: Decision): JudgingItem {
    checkDecision(this.protocol, decision);
    const assignment = this.assignment(decision.instanceId);
    transaction(this.db, () => {
      insertJudgment(this.db, {
        uid: randomUUID(),
        assignmentId: assignment.id,
        criterion: decision.criterion,
        value: decision.value,
        comment: decision.comment,
        source: 'app',
        itemMs: Math.round(decision.itemMs),
        createdAt: new Date().toISOString(),
      });
      addItemTime(this.db, assignment.id, decision.itemMs);
      if (assignment.skipped) setSkipped(this.db, assignment.id, false);
    });
    return this.item(assignment.position);
  }

  undo(): { instanceId: number; criterion: string; position: number } | null {
    const last = lastDecision(this.db, this.campaignId, this.annotatorId);
    if (!last) return null;
    const before = judgmentBefore(this.db, last.assignment_id, last.criterion, last.id);
    const assignment = this.assignment(last.instance_id);
    transaction(this.db, () =>
      insertJudgment(this.db, {
        uid: randomUUID(),
        assignmentId: last.assignment_id,
        criterion: last.criterion,
        value: before?.value ?? null,
        comment: before?.comment ?? '',
        // Recorded as a resolution: the next undo skips it and the decision it took back.
        source: 'resolution',
        itemMs: null,
        createdAt: new Date().toISOString(),
      }),
    );
    return { instanceId: last.instance_id, criterion: last.criterion, position: assignment.position };
  }

  skip(instanceId: number, itemMs: number): void {
    const assignment = this.assignment(instanceId);
    transaction(this.db, () => {
      setSkipped(this.db, assignment.id, true);
      addItemTime(this.db, assignment.id, itemMs);
    });
  }
}
