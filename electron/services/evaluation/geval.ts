import { gevalFromLogprobs, gevalFromSamples, type GevalMode, type GevalScore } from '../../../shared/eval/geval';
import type { GoldInterpretation, MethodOutput } from '../../../shared/eval/types';
import type { ModelRef } from '../../../shared/pipeline';
import type { ItemRun } from './context';

/**
 * CondAmbigQA's condition and answer scores, graded G-Eval style: one judge call per criterion
 * and generated pair, the score taken from the judge's token probabilities where the endpoint
 * gives them, else the mean of sampled scores (temperature 1, top_p 1). The item's score is the
 * mean over its pairs. Which scores a setting gets follows the paper: conditions only where the
 * model stated them against gold ones (`condqa`), answers everywhere.
 */

type Criterion = 'eval_geval_condition' | 'eval_geval_answer';

/** One criterion for one pair: probabilities first (unless sampling is asked for), then samples. */
async function grade(run: ItemRun, prompt: Criterion, values: Record<string, string>, judge: ModelRef, label: string): Promise<GevalScore | { error: string }> {
  const { mode, samples, topLogprobs } = run.env.settings.geval;
  if (mode !== 'sampled') {
    const reply = await run.call(prompt, values, { ref: judge, kind: 'judge', label, sampling: { temperature: 0, logprobs: topLogprobs } });
    const weighted = reply?.logprobs ? gevalFromLogprobs(reply.value.score, reply.logprobs) : null;
    if (weighted !== null) return { value: weighted / 10, mode: 'logprobs', n: 1 };
    if (mode === 'logprobs') return { error: reply ? 'the judge returned no token probabilities for its score' : 'the judge gave no usable score (see the trace)' };
  }
  const scores: number[] = [];
  for (let sample = 0; sample < samples; sample++) {
    const reply = await run.ask(prompt, values, { ref: judge, kind: 'judge', label: `${label}, sample ${sample + 1}`, sampling: { temperature: 1, topP: 1, sample } });
    if (reply) scores.push(reply.score);
  }
  const mean = gevalFromSamples(scores);
  if (mean === null) return { error: `the judge gave no usable score in ${samples} samples (see the trace)` };
  return { value: mean / 10, mode: scores.length === 1 ? 'raw' : 'sampled', n: scores.length };
}

const goldConditions = (gold: readonly GoldInterpretation[]) =>
  gold
    .map((g) => g.condition?.trim())
    .filter((c): c is string => !!c)
    .map((c, i) => `${i + 1}. ${c}`)
    .join('\n');

const goldAnswers = (gold: readonly GoldInterpretation[]) =>
  gold.map((g, i) => `${i + 1}. ${g.condition ? `Under "${g.condition}": ` : ''}${g.answers[0] ?? '(no answer)'}${g.answers.length > 1 ? ` (also: ${g.answers.slice(1).join('; ')})` : ''}`).join('\n');

/** The item's score for one criterion over its pairs, with how it was obtained; or why there is none. */
async function criterion(run: ItemRun, prompt: Criterion, actuals: string[], expected: string, judge: ModelRef, name: string): Promise<Record<string, unknown>> {
  const scores: GevalScore[] = [];
  for (const [i, actual] of actuals.entries()) {
    const s = await grade(run, prompt, { question: run.question, actual, expected }, judge, `${name} ${i + 1}`);
    if ('error' in s) return { [name]: null, [`${name}_error`]: s.error };
    scores.push(s);
  }
  const modes = new Set<GevalMode>(scores.map((s) => s.mode));
  return {
    [name]: scores.reduce((sum, s) => sum + s.value, 0) / scores.length,
    [`${name}_mode`]: modes.size === 1 ? [...modes][0] : 'mixed',
    [`${name}_calls`]: scores.reduce((sum, s) => sum + s.n, 0),
  };
}

/** Condition and answer scores of a CondAmbigQA output, as its setting calls for. */
export async function gradeConditional(run: ItemRun, out: MethodOutput, judge: ModelRef, options: { condition: boolean }): Promise<Record<string, unknown>> {
  const gold = run.gold.interpretations;
  const pairs = out.interpretations.filter((p) => p.answer?.trim());
  const metrics: Record<string, unknown> = {};
  if (options.condition) {
    const conditions = goldConditions(gold);
    const stated = pairs.map((p) => p.condition?.trim() ?? '').filter(Boolean);
    if (!conditions) Object.assign(metrics, { condition_score: null, condition_score_note: 'no gold conditions for this item' });
    else if (stated.length === 0) Object.assign(metrics, { condition_score: 0, condition_score_note: 'the model stated no condition: scored 0' });
    else Object.assign(metrics, await criterion(run, 'eval_geval_condition', stated, conditions, judge, 'condition_score'));
  }
  if (pairs.length === 0) Object.assign(metrics, { answer_score: 0, answer_score_note: 'the model gave no answer: scored 0' });
  else {
    const actual = pairs.map((p) => (p.condition ? `Under "${p.condition}": ${p.answer!}` : p.answer!));
    Object.assign(metrics, await criterion(run, 'eval_geval_answer', actual, goldAnswers(gold), judge, 'answer_score'));
  }
  return metrics;
}
