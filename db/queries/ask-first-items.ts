import type { Answerability } from '../../shared/domain';
import { all, run, sql, type ReadableDB, type WritableDB } from '../sql';

/** The `ask_first_items` table: each item of an ask-first run, its gold, what the method did and how it scored. Its only writer. */

export interface AskFirstItemRow {
  run_id: number;
  position: number;
  key: string;
  base_question_id: number | null;
  instance_id: number | null;
  answerability: Answerability;
  gold: string;
  status: 'pending' | 'done' | 'failed';
  action: 'answer' | 'clarify' | 'no_answer' | null;
  output: string;
  correct: number | null;
  strict_correct: number | null;
  cost_usd: number;
  error: string | null;
}

export function insertAskFirstItem(db: WritableDB, i: { runId: number; position: number; key: string; baseQuestionId: number; instanceId: number | null; label: Answerability; gold: unknown }): void {
  run(
    db,
    sql`INSERT INTO ask_first_items (run_id, position, key, base_question_id, instance_id, answerability, gold, status)
        VALUES (${i.runId}, ${i.position}, ${i.key}, ${i.baseQuestionId}, ${i.instanceId}, ${i.label}, ${JSON.stringify(i.gold)}, 'pending')`,
  );
}

export function saveAskFirstItem(
  db: WritableDB,
  runId: number,
  position: number,
  r: { action: string; output: unknown; correct: boolean; strict: boolean | null; costUsd: number } | { error: string },
): void {
  if ('error' in r) {
    run(db, sql`UPDATE ask_first_items SET status = 'failed', error = ${r.error} WHERE run_id = ${runId} AND position = ${position}`);
    return;
  }
  run(
    db,
    sql`UPDATE ask_first_items SET status = 'done', action = ${r.action}, output = ${JSON.stringify(r.output)}, correct = ${r.correct},
          strict_correct = ${r.strict}, cost_usd = ${r.costUsd}, error = NULL
        WHERE run_id = ${runId} AND position = ${position}`,
  );
}

export function askFirstItems(db: ReadableDB, runId: number): (AskFirstItemRow & { question: string })[] {
  return all(
    db,
    sql`SELECT a.*, coalesce(b.question, '') AS question FROM ask_first_items a LEFT JOIN base_questions b ON b.id = a.base_question_id
        WHERE a.run_id = ${runId} ORDER BY a.position`,
  );
}
