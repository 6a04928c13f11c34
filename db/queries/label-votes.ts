import type { LabelKind } from '../../shared/domain';
import { all, run, sql, type ReadableDB, type WritableDB } from '../sql';

/**
 * The `label_votes` table: each labelling model's vote on a base question's answerability or
 * topic (the labelling stage), or `not_needed` when the outcome was decided before its turn. Its
 * only writer.
 */

export interface LabelVoteRow {
  kind: LabelKind;
  base_question_id: number;
  model: string;
  verdict: 'voted' | 'not_needed';
  label: string | null;
  reason: string;
  provenance_id: number | null;
}

export type NewLabelVote = Omit<LabelVoteRow, 'base_question_id'> & { baseQuestionId: number };

/** Replaces a base question's votes of one kind (a new labelling run decides afresh). */
export function replaceLabelVotes(db: WritableDB, kind: LabelKind, baseQuestionId: number, votes: readonly Omit<NewLabelVote, 'kind' | 'baseQuestionId'>[]): void {
  run(db, sql`DELETE FROM label_votes WHERE kind = ${kind} AND base_question_id = ${baseQuestionId}`);
  for (const v of votes) {
    run(
      db,
      sql`INSERT INTO label_votes (kind, base_question_id, model, verdict, label, reason, provenance_id)
          VALUES (${kind}, ${baseQuestionId}, ${v.model}, ${v.verdict}, ${v.label}, ${v.reason}, ${v.provenance_id})`,
    );
  }
}

export function labelVotes(db: ReadableDB, baseQuestionId: number): LabelVoteRow[] {
  return all(db, sql`SELECT * FROM label_votes WHERE base_question_id = ${baseQuestionId} ORDER BY kind, model`);
}
