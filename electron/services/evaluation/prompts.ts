import { insertPrompt, latestPrompts, promptVersions } from '../../../db/queries/prompt-templates';
import { transaction, type WritableDB } from '../../../db/sql';
import { AppError, type EvalPromptTemplate } from '../../../shared/api';
import { EVAL_PROMPT_NAMES, EVAL_PROMPTS, evalPlaceholders, isEvalPromptName, type EvalPromptName } from '../../../shared/eval/methods/prompts';
import type { PromptTemplate } from '../../../shared/pipeline';

/**
 * The evaluation's prompts live in the pipeline's template store (`prompt_templates`), under
 * names starting with `eval_`: versioned the same way, a built-in version stored first and again
 * when the built-in text changes, unless the latest version is someone's own edit.
 */

const view = (p: PromptTemplate): EvalPromptTemplate => ({
  id: p.id,
  name: p.stage,
  version: p.version,
  system: p.system,
  user: p.user,
  builtIn: p.builtIn,
  createdAt: p.createdAt,
  placeholders: isEvalPromptName(p.stage) ? evalPlaceholders(p.stage) : [],
});

export function ensureEvalPrompts(db: WritableDB): void {
  const latest = new Map(latestPrompts(db).map((p) => [p.stage as string, p]));
  const stale = EVAL_PROMPT_NAMES.filter((name) => {
    const current = latest.get(name);
    if (!current) return true;
    const builtIn = EVAL_PROMPTS[name];
    return current.builtIn && (current.system !== builtIn.system || current.user !== builtIn.user);
  });
  if (stale.length === 0) return;
  transaction(db, () => {
    for (const name of stale) insertPrompt(db, { stage: name, system: EVAL_PROMPTS[name].system, user: EVAL_PROMPTS[name].user, builtIn: true });
  });
}

/** The current version of every evaluation prompt, by name. */
export function currentEvalPrompts(db: WritableDB): Map<EvalPromptName, PromptTemplate> {
  ensureEvalPrompts(db);
  return new Map(
    latestPrompts(db)
      .filter((p) => isEvalPromptName(p.stage))
      .map((p) => [p.stage as EvalPromptName, p]),
  );
}

export function listEvalPrompts(db: WritableDB): EvalPromptTemplate[] {
  return [...currentEvalPrompts(db).values()].map(view);
}

export function evalPromptHistory(db: WritableDB, name: string): EvalPromptTemplate[] {
  if (!isEvalPromptName(name)) throw new AppError('not_found', `No evaluation prompt "${name}" (one of ${EVAL_PROMPT_NAMES.join(', ')})`);
  ensureEvalPrompts(db);
  return promptVersions(db, name).map(view);
}

export function saveEvalPrompt(db: WritableDB, name: string, system: string, user: string): EvalPromptTemplate {
  if (!isEvalPromptName(name)) throw new AppError('invalid_input', `No evaluation prompt "${name}" (one of ${EVAL_PROMPT_NAMES.join(', ')})`);
  if (!system.trim() || !user.trim()) throw new AppError('invalid_input', 'A prompt needs a system and a user message.');
  ensureEvalPrompts(db);
  const allowed = evalPlaceholders(name);
  const unknown = [...`${system}\n${user}`.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]!).filter((p) => !allowed.includes(p));
  if (unknown.length) throw new AppError('invalid_input', `Unknown placeholder {{${unknown[0]}}}; this prompt can use ${allowed.map((p) => `{{${p}}}`).join(', ')}.`);
  return view(transaction(db, () => insertPrompt(db, { stage: name, system, user, builtIn: false })));
}
