import { doneItems } from '../../../db/queries/eval-items';
import { formatsOfInstances } from '../../../db/queries/datasets';
import type { ReadableDB, WritableDB } from '../../../db/sql';
import { AppError, type EvalStartRequest } from '../../../shared/api';
import { METHOD_INFO } from '../../../shared/eval/methods';
import { resolveAdf, resolveSettings, type EvalSettings } from '../../../shared/eval/methods/settings';
import type { loadSource } from './sources';

/**
 * A run's settings: every default resolved when the run is created (what `eval_runs.options`
 * stores and the summary shows), the checks a method's needs call for, and the notes a finished
 * run gets about how its methods and scores went.
 */

/** The request as a run keeps it (no config: endpoints are stored apart, keys never), every setting resolved. */
export type StoredOptions = Omit<EvalStartRequest, 'config' | 'configPath' | 'maxIterations'>;

/** Methods that are given the gold conditions: a source without any cannot be run with them. */
const GOLD_CONDITION_METHODS: readonly string[] = ['condqa-oracle', 'condqa-closed-book-oracle'];

/** The settings every method of a run uses, from what was stored (older runs lack newer keys: defaults fill them). */
export function runSettings(stored: StoredOptions & { maxIterations?: number }): EvalSettings {
  return resolveSettings(stored, METHOD_INFO[stored.method]?.retrieves ?? false);
}

/** Every default resolved before the run is stored, so the run records what it used; and what the resolution had to decide. */
export function resolveOptions(db: WritableDB, request: Omit<EvalStartRequest, 'config' | 'configPath'>, source: ReturnType<typeof loadSource>): { options: StoredOptions; notes: string[] } {
  const { maxIterations: _alias, ...rest } = request;
  const formats = formatsOfInstances(db, source.items.map((i) => i.instanceId).filter((id): id is number => id !== null));
  const adf = resolveAdf(request.adf, formats.length === 1 ? formats[0]! : null);
  const settings = resolveSettings({ ...request, adf: adf.adf }, METHOD_INFO[request.method].retrieves);
  const options: StoredOptions = { ...rest, ...settings, k: settings.k ?? undefined };
  return { options, notes: request.method === 'adf' && adf.note ? [adf.note] : [] };
}

/** A setting that gives the gold conditions needs items that have some: none → refused; some → those items fail, counted. */
export function checkGoldConditions(method: string, source: ReturnType<typeof loadSource>): void {
  if (!GOLD_CONDITION_METHODS.includes(method)) return;
  if (source.items.some((item) => item.gold.interpretations.some((i) => i.condition?.trim()))) return;
  throw new AppError('invalid_input', `${METHOD_INFO[method as StoredOptions['method']].label} gives the model the gold conditions, but ${source.label} has none: use a source with conditions (CondAmbigQA) or another method.`);
}


const MODE_WORDS: Record<string, string> = { logprobs: 'token probabilities', sampled: 'sampled scores', raw: 'a single score', mixed: 'a mix' };

/** What the run summary says about its items' method steps and G-Eval scores: counts over the done items. */
export function methodNotes(db: ReadableDB, runId: number): string[] {
  const modes = { condition_score: new Map<string, number>(), answer_score: new Map<string, number>() };
  let hydeFailed = 0;
  let verifyUnusable = 0;
  for (const row of doneItems(db, runId)) {
    const m = JSON.parse(row.metrics) as Record<string, unknown>;
    for (const [name, counts] of Object.entries(modes)) {
      const mode = m[`${name}_mode`];
      if (typeof mode === 'string') counts.set(mode, (counts.get(mode) ?? 0) + 1);
    }
    if (typeof m.hyde_failures === 'number' && m.hyde_failures > 0) hydeFailed++;
    if (typeof m.diva_verify_unusable === 'number' && m.diva_verify_unusable > 0) verifyUnusable++;
  }
  const notes = Object.entries(modes)
    .filter(([, counts]) => counts.size > 0)
    .map(([name, counts]) => `${name.replace('_', ' ')}: ${[...counts].map(([mode, n]) => `${MODE_WORDS[mode] ?? mode} on ${n} item${n === 1 ? '' : 's'}`).join(', ')}`);
  if (hydeFailed) notes.push(`HyDE failed on ${hydeFailed} item${hydeFailed === 1 ? '' : 's'} (their latent pathway was empty)`);
  if (verifyUnusable) notes.push(`DIVA's verification was unusable on ${verifyUnusable} item${verifyUnusable === 1 ? '' : 's'} (treated as partially useful)`);
  return notes;
}
