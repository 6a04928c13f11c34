import { all, get, run, sql, type ReadableDB, type WritableDB } from '../sql';

/** The `ask_first_runs` table: one ask-before-answer evaluation run (its id is its row in `runs`). Its only writer. */

export interface AskFirstRunRow {
  id: number;
  dataset_id: number | null;
  dataset: string;
  model: string;
  corpus: string | null;
  options: string;
  status: 'running' | 'done' | 'failed' | 'cancelled';
  summary: string;
  created_at: string;
  finished_at: string | null;
}

export function insertAskFirstRun(db: WritableDB, r: { id: number; datasetId: number; dataset: string; model: string; corpus: string | null; options: unknown }): void {
  run(
    db,
    sql`INSERT INTO ask_first_runs (id, dataset_id, dataset, model, corpus, options, status)
        VALUES (${r.id}, ${r.datasetId}, ${r.dataset}, ${r.model}, ${r.corpus}, ${JSON.stringify(r.options)}, 'running')`,
  );
}

export function finishAskFirstRun(db: WritableDB, id: number, status: AskFirstRunRow['status'], summary: unknown): void {
  run(db, sql`UPDATE ask_first_runs SET status = ${status}, summary = ${JSON.stringify(summary)}, finished_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ${id}`);
}

export function getAskFirstRun(db: ReadableDB, id: number): AskFirstRunRow | undefined {
  return get(db, sql`SELECT * FROM ask_first_runs WHERE id = ${id}`);
}

export function listAskFirstRuns(db: ReadableDB): AskFirstRunRow[] {
  return all(db, sql`SELECT * FROM ask_first_runs ORDER BY id DESC LIMIT 200`);
}
