import { all, run, sql, type ReadableDB, type WritableDB } from '../sql';

/**
 * The `clarification_turns` table (URASys): per instance, the question a system should ask before
 * answering, the user's reply when known, and the clarified question that is the gold, with the
 * interpretation it selects. Its only writer.
 */

export interface ClarificationTurnRow {
  instance_id: number;
  position: number;
  system_question: string;
  user_reply: string | null;
  clarified_question: string;
  interpretation_id: number | null;
  provenance_id: number | null;
}

export type NewClarificationTurn = Omit<ClarificationTurnRow, 'instance_id' | 'position'>;

/** An instance's turns, all replaced (in order). */
export function replaceClarificationTurns(db: WritableDB, instanceId: number, turns: readonly NewClarificationTurn[]): void {
  run(db, sql`DELETE FROM clarification_turns WHERE instance_id = ${instanceId}`);
  turns.forEach((t, position) =>
    run(
      db,
      sql`INSERT INTO clarification_turns (instance_id, position, system_question, user_reply, clarified_question, interpretation_id, provenance_id)
          VALUES (${instanceId}, ${position}, ${t.system_question}, ${t.user_reply}, ${t.clarified_question}, ${t.interpretation_id}, ${t.provenance_id})`,
    ),
  );
}

export function clarificationTurns(db: ReadableDB, instanceId: number): ClarificationTurnRow[] {
  return all(db, sql`SELECT * FROM clarification_turns WHERE instance_id = ${instanceId} ORDER BY position`);
}
