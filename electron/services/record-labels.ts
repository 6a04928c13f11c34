import { clarificationTurns, type ClarificationTurnRow } from '../../db/queries/clarification-turns';
import { roundsOf, roundsOfInstance, type RoundRow } from '../../db/queries/construction-rounds';
import { labelVotes, type LabelVoteRow } from '../../db/queries/label-votes';
import { baseQuestionLabelsOf, clarificationTurnsOf, instanceLabelsOf, labelVotesOf, type BaseQuestionLabelRow, type InstanceLabelRow } from '../../db/queries/records';
import type { ProvenanceRow } from '../../db/queries/provenance';
import type { ReadableDB } from '../../db/sql';
import type { AwbBaseQuestion, AwbInstance, AwbProvenance } from '../../shared/awb-format';
import type { z } from 'zod';

/**
 * The parts of a record that issue 25 added (URASys answerability and clarification turns, MARCH
 * domains, CondAmbigQA rounds), read from their rows and assembled as record-reader.ts does the
 * rest. Each is present in a record only when set, so records without them read as before.
 */

export interface BaseQuestionLabels {
  row: BaseQuestionLabelRow;
  votes: LabelVoteRow[];
}

export interface InstanceLabels {
  row: InstanceLabelRow;
  turns: ClarificationTurnRow[];
  rounds: RoundRow[];
}

type ProvenanceOf = (map: Map<number, ProvenanceRow>, id: number | null) => AwbProvenance | null;
const none: never[] = [];

function groupBy<Row>(rows: readonly Row[], owner: (row: Row) => number): Map<number, Row[]> {
  const groups = new Map<number, Row[]>();
  for (const row of rows) groups.set(owner(row), [...(groups.get(owner(row)) ?? []), row]);
  return groups;
}

export function baseQuestionLabels(db: ReadableDB, baseQuestionId: number): BaseQuestionLabels {
  return { row: baseQuestionLabelsOf(db, [baseQuestionId])[0]!, votes: labelVotes(db, baseQuestionId) };
}

export function baseQuestionLabelsBatch(db: ReadableDB, ids: readonly number[]): Map<number, BaseQuestionLabels> {
  const votes = groupBy(labelVotesOf(db, ids), (v) => v.base_question_id);
  return new Map(baseQuestionLabelsOf(db, ids).map((row) => [row.base_question_id, { row, votes: votes.get(row.base_question_id) ?? none }]));
}

export function instanceLabels(db: ReadableDB, instanceId: number): InstanceLabels {
  return { row: instanceLabelsOf(db, [instanceId])[0]!, turns: clarificationTurns(db, instanceId), rounds: roundsOfInstance(db, instanceId) };
}

export function instanceLabelsBatch(db: ReadableDB, ids: readonly number[]): Map<number, InstanceLabels> {
  const turns = groupBy(clarificationTurnsOf(db, ids), (t) => t.instance_id);
  const rounds = groupBy(roundsOf(db, ids), (r) => r.instance_id);
  return new Map(instanceLabelsOf(db, ids).map((row) => [row.id, { row, turns: turns.get(row.id) ?? none, rounds: rounds.get(row.id) ?? none }]));
}

export function baseQuestionLabelProvenance(labels: BaseQuestionLabels): (number | null)[] {
  return [labels.row.answerability_provenance_id, ...labels.votes.map((v) => v.provenance_id)];
}

export function instanceLabelProvenance(labels: InstanceLabels): (number | null)[] {
  return [labels.row.answerability_provenance_id, labels.row.domain_provenance_id, ...labels.turns.map((t) => t.provenance_id)];
}

/** The base question's fields: answerability and the labelling votes, when there are any. */
export function assembleBaseQuestionLabels(labels: BaseQuestionLabels, provenance: Map<number, ProvenanceRow>, toAwb: ProvenanceOf): Partial<z.output<typeof AwbBaseQuestion>> {
  const { row, votes } = labels;
  return {
    ...(row.answerability ? { answerability: row.answerability, answerability_provenance: toAwb(provenance, row.answerability_provenance_id) } : {}),
    ...(votes.length
      ? { label_votes: votes.map((v) => ({ kind: v.kind, model: v.model, verdict: v.verdict, label: v.label, reason: v.reason, provenance: toAwb(provenance, v.provenance_id) })) }
      : {}),
  };
}

/** The instance's fields: its labels, construction mode, clarification turns and rounds, when set. */
export function assembleInstanceLabels(
  labels: InstanceLabels,
  interpretationPosition: Map<number, number>,
  provenance: Map<number, ProvenanceRow>,
  toAwb: ProvenanceOf,
): Partial<AwbInstance> {
  const { row, turns, rounds } = labels;
  return {
    ...(row.answerability ? { answerability: row.answerability, answerability_provenance: toAwb(provenance, row.answerability_provenance_id) } : {}),
    ...(row.domain ? { domain: row.domain, domain_provenance: toAwb(provenance, row.domain_provenance_id) } : {}),
    ...(row.construction ? { construction: row.construction } : {}),
    ...(turns.length
      ? {
          clarification_turns: turns.map((t) => ({
            system_question: t.system_question,
            user_reply: t.user_reply,
            clarified_question: t.clarified_question,
            interpretation: t.interpretation_id === null ? null : (interpretationPosition.get(t.interpretation_id) ?? null),
            provenance: toAwb(provenance, t.provenance_id),
          })),
        }
      : {}),
    ...(rounds.length ? { rounds: rounds.map(roundRecord) } : {}),
  };
}

function roundRecord(r: RoundRow): NonNullable<AwbInstance['rounds']>[number] {
  return {
    round: r.round,
    status: r.status,
    draft: JSON.parse(r.draft) as Record<string, unknown>,
    check: JSON.parse(r.check_result) as Record<string, unknown>,
    feedback: r.feedback,
    decided_by: r.decided_by,
    prompt_versions: JSON.parse(r.prompt_versions) as Record<string, string>,
    calls: r.calls,
    prompt_tokens: r.prompt_tokens,
    completion_tokens: r.completion_tokens,
    cost_usd: r.cost_usd,
    llm_ms: r.llm_ms,
    review_ms: r.review_ms,
    created_at: r.created_at,
    decided_at: r.decided_at,
  };
}
