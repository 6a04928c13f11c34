import type { PromptName, PromptTemplate } from '../../shared/pipeline';
import { all, get, sql, type ReadableDB, type WritableDB } from '../sql';

/** The `prompt_templates` table: every stage's prompt, versioned (a saved version never changes). Its only writer. */

interface PromptRow {
  id: number;
  stage: PromptName;
  version: number;
  system: string;
  user: string;
  built_in: number;
  created_at: string;
}

function rowToPromptTemplate(r: PromptRow): PromptTemplate {
  return { id: r.id, stage: r.stage, version: r.version, system: r.system, user: r.user, builtIn: r.built_in === 1, createdAt: r.created_at };
}

/** The latest version of every stage's template. */
export function latestPrompts(db: ReadableDB): PromptTemplate[] {
  return all<PromptRow>(db, sql`SELECT * FROM prompt_templates p WHERE version = (SELECT max(version) FROM prompt_templates q WHERE q.stage = p.stage) ORDER BY stage`).map(
    rowToPromptTemplate,
  );
}

export function promptVersions(db: ReadableDB, stage: string): PromptTemplate[] {
  return all<PromptRow>(db, sql`SELECT * FROM prompt_templates WHERE stage = ${stage} ORDER BY version DESC`).map(rowToPromptTemplate);
}

export function insertPrompt(db: WritableDB, p: { stage: string; system: string; user: string; builtIn: boolean }): PromptTemplate {
  const version = (get<{ v: number | null }>(db, sql`SELECT max(version) AS v FROM prompt_templates WHERE stage = ${p.stage}`)?.v ?? 0) + 1;
  return rowToPromptTemplate(
    get<PromptRow>(db, sql`INSERT INTO prompt_templates (stage, version, system, user, built_in) VALUES (${p.stage}, ${version}, ${p.system}, ${p.user}, ${p.builtIn}) RETURNING *`)!,
  );
}
