import { cleanAnswers, numberedPassages } from '../../../../shared/eval/methods/format';
import type { EvalSchemaOutput } from '../../../../shared/eval/methods/schemas';
import type { MethodOutput, RetrievedPassage } from '../../../../shared/eval/types';
import { ItemFailure, type ItemRun } from '../context';
import { verifyAndCompose, type AnsweredReading } from './clarion-verify';
import { describeTurns, QueryLog, type Turn } from './common';

/**
 * CLARION (MARCH §4). The planning agent detects and types the ambiguity and clarifies with the
 * prompt of that type. The acting agent then runs ONE loop for the item over the whole
 * interpretation set: each step searches for one interpretation, asks the planning agent to
 * revise the set, or answers; `searchBudget` steps at most, then a forced answer. The answers'
 * hop chains are checked and recovered (clarion-verify.ts). The ablations keep the acting agent
 * and its checks: without clarification the analysis is shown but the question stays whole;
 * without clarification and detection there is no planning agent. Neither may re-plan.
 */

export type ClarionVariant = 'full' | 'no-clarification' | 'no-planning';

/** One interpretation in the acting agent's hands and the passages found for it. */
export interface Reading {
  question: string;
  found: RetrievedPassage[];
}

/** What the acting agent works with: the readings, every passage seen (numbered once, globally), the steps used. */
export class ActingState {
  readonly passages: RetrievedPassage[] = [];
  readonly turns: Turn[] = [];
  readonly queries = new QueryLog();
  steps = 0;
  searches = 0;

  constructor(
    public readings: Reading[],
    readonly analysis: string,
    readonly budget: number,
  ) {}

  get left(): number {
    return this.budget - this.steps;
  }

  /** Adds hits to the global list (a passage seen before keeps its number) and to a reading; returns their numbers. */
  gather(hits: readonly RetrievedPassage[], reading: Reading | null): number[] {
    return hits.map((hit) => {
      let n = this.passages.findIndex((p) => p.key === hit.key);
      if (n === -1) n = this.passages.push(hit) - 1;
      if (reading && !reading.found.some((p) => p.key === hit.key)) reading.found.push(hit);
      return n + 1;
    });
  }

  numberOf(p: RetrievedPassage): number {
    return this.passages.findIndex((x) => x.key === p.key) + 1;
  }

  describeReadings(): string {
    return this.readings.map((r, i) => `${i + 1}. ${r.question}\n   passages: ${r.found.length ? r.found.map((p) => `[${this.numberOf(p)}]`).join(', ') : '(none yet)'}`).join('\n');
  }
}

type Detected = EvalSchemaOutput<'detect'>;

/** The planning agent: detect and type, then clarify with the type's own prompt. */
async function plan(run: ItemRun, variant: ClarionVariant): Promise<{ analysis: string; questions: string[] }> {
  if (variant === 'no-planning') return { analysis: '', questions: [run.question] };
  const detected = await run.mustAsk('eval_clarion_detect', { question: run.question }, { kind: 'plan', label: 'detect and type' });
  const ambiguous = detected.is_ambiguous && detected.ambiguity_type !== 'none';
  run.metric('detected_ambiguous', ambiguous);
  run.metric('detected_type', ambiguous ? detected.ambiguity_type : 'none');
  const analysis = describeAnalysis(detected, ambiguous);
  if (variant === 'no-clarification' || !ambiguous) return { analysis, questions: [run.question] };
  const { clarifications, maxInterpretations } = run.env.settings;
  const type = detected.ambiguity_type as 'semantic' | 'syntactic' | 'constraint';
  const clarified = await run.mustAsk(
    `eval_clarion_clarify_${type}`,
    { question: run.question, analysis: JSON.stringify({ ambiguity_type: type, ambiguous_aspects: detected.ambiguous_aspects, clarification_needed: detected.clarification_needed }), count: clarifications },
    { kind: 'plan', label: `clarify (${type})` },
  );
  const questions = cleanAnswers(clarified.clarified_questions).slice(0, maxInterpretations);
  run.metric('clarified', questions.length);
  return { analysis, questions: questions.length ? questions : [run.question] };
}

function describeAnalysis(d: Detected, ambiguous: boolean): string {
  if (!ambiguous) return 'Planning analysis: the question reads one way.';
  return `Planning analysis: ${d.ambiguity_type} ambiguity; at issue: ${d.ambiguous_aspects.join('; ') || '(not named)'}; ${d.clarification_needed}`;
}

/** The planning agent, called by the acting agent: the revised interpretation set (readings kept keep their passages). */
async function replan(run: ItemRun, state: ActingState): Promise<string> {
  const max = run.env.settings.maxInterpretations;
  const revised = await run.ask('eval_clarion_replan', { question: run.question, analysis: state.analysis, interpretations: state.describeReadings(), max }, { kind: 'plan', label: 're-plan' });
  if (!revised) return 'The planning agent gave no usable answer; the interpretations are unchanged.';
  const questions = cleanAnswers(revised.interpretations);
  const kept = questions.slice(0, max);
  state.readings = kept.map((q) => state.readings.find((r) => r.question.toLowerCase() === q.toLowerCase()) ?? { question: q, found: [] });
  return `Interpretations now (${revised.reason}):\n${state.describeReadings()}${questions.length > max ? `\n(${questions.length - max} more left out: at most ${max})` : ''}`;
}

type Act = EvalSchemaOutput<'act_step'>;

/** One step's action carried out; returns the observation. */
async function carryOut(run: ItemRun, state: ActingState, a: Act, canPlan: boolean): Promise<string> {
  if (a.action === 'plan') return canPlan ? replan(run, state) : 'Planning is not available here: search or answer.';
  if (a.action === 'answer') return 'An answer needs the answers or the long answer filled in.';
  const refused = state.queries.refuse(a.query);
  if (refused) return refused;
  const reading = state.readings[a.interpretation - 1] ?? null;
  const hits = await run.search(a.query.trim(), { label: `step ${state.steps}: search${reading ? ` for interpretation ${a.interpretation}` : ''}` });
  state.searches++;
  const numbers = state.gather(hits, reading ?? state.readings[0] ?? null);
  return hits.length ? numberedPassages(hits).replace(/^\[(\d+)\]/gm, (_, n: string) => `[${numbers[Number(n) - 1]}]`) : '(no passages)';
}

const answered = (a: Act): boolean => a.action === 'answer' && (a.answers.some((x) => x.answer.trim()) || a.long_answer.trim() !== '');

/** The acting agent's loop: at most `budget` steps, then one forced answer. */
async function act(run: ItemRun, state: ActingState, canPlan: boolean): Promise<Act> {
  const values = (forced: boolean) => ({
    question: run.question,
    analysis: state.analysis,
    interpretations: state.describeReadings(),
    context: `${describeTurns(state.turns)}${forced ? '\n\nNo steps remain: answer now.' : ''}`,
    used: state.steps,
    budget: state.budget,
  });
  while (state.left > 0) {
    state.steps++;
    const a = await run.ask('eval_clarion_act', values(false), { kind: 'thought', label: `step ${state.steps}` });
    if (a && answered(a)) return a;
    const observation = a ? await carryOut(run, state, a, canPlan) : 'That reply could not be used; reply with the JSON object asked for.';
    run.step('observation', `step ${state.steps}`, { text: observation.slice(0, 4000) });
    state.turns.push({ thought: a?.thought ?? '', action: a ? (a.action === 'search' ? `search "${a.query.trim()}" for interpretation ${a.interpretation}` : a.action) : '(unusable)', observation });
  }
  run.note(`no answer within ${state.budget} steps: a final answer was forced`);
  const forced = await run.mustAsk('eval_clarion_act', values(true), { kind: 'action', label: 'forced answer' });
  if (!answered(forced)) throw new ItemFailure(`the acting agent gave no answer after ${state.budget} steps and a forced final call`);
  return forced;
}

/** The answer action read per interpretation: its answer and hop chain, passage numbers resolved to passages. */
function readAnswers(state: ActingState, a: Act): AnsweredReading[] {
  return state.readings.map((reading, i) => {
    const given = a.answers.find((x) => x.interpretation === i + 1);
    const hops = (given?.hops ?? []).map((h) => ({ hop: h.hop, entity: h.entity, passages: h.passages.map((n) => state.passages[n - 1]).filter((p): p is RetrievedPassage => !!p) }));
    return { index: i + 1, reading, answer: given?.answer.trim() ?? '', hops };
  });
}

export async function clarion(run: ItemRun, variant: ClarionVariant): Promise<MethodOutput> {
  const { analysis, questions } = await plan(run, variant);
  const state = new ActingState(
    questions.map((question) => ({ question, found: [] })),
    analysis,
    run.env.settings.searchBudget,
  );
  const answer = await act(run, state, variant === 'full');
  const out = await verifyAndCompose(run, state, readAnswers(state, answer), answer.long_answer);
  run.metric('searches_used', state.searches);
  run.metric('steps_used', state.steps);
  return out;
}
