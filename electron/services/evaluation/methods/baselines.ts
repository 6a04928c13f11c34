import { numberedPassages } from '../../../../shared/eval/methods/format';
import type { MethodOutput, RetrievedPassage } from '../../../../shared/eval/types';
import { ItemFailure, type ItemRun } from '../context';
import { describeTurns, output, pool, QueryLog, type Turn } from './common';

/**
 * The standard methods of MARCH §5: No Retrieval, CoT, NaiveRAG, CoT with RAG, and ReAct. Each
 * answers in prose and commits to no short answers of its own (`shortAnswers` null).
 */

export async function noRetrieval(run: ItemRun): Promise<MethodOutput> {
  const a = await run.mustAsk('eval_direct', { question: run.question });
  return output({ longAnswer: a.answer, shortAnswers: null });
}

export async function cot(run: ItemRun): Promise<MethodOutput> {
  const a = await run.mustAsk('eval_cot', { question: run.question }, { kind: 'thought' });
  return output({ longAnswer: a.answer, shortAnswers: null });
}

/** NaiveRAG and CoT with RAG: top-k passages for the question as asked, then one answering call. */
export async function rag(run: ItemRun, reasoning: boolean): Promise<MethodOutput> {
  const passages = await run.search(run.question);
  const values = { question: run.question, passages: numberedPassages(passages) };
  const a = reasoning ? await run.mustAsk('eval_cot_rag', values, { kind: 'thought' }) : await run.mustAsk('eval_rag', values);
  return output({ longAnswer: a.answer, shortAnswers: null, citations: run.cite(a.citations, passages), retrieved: passages });
}

/**
 * ReAct: thought → action (search | answer) → observation. At most `searchBudget` steps, so at
 * most that many searches; when they are spent without an answer, one more call must answer.
 * A step that repeats a query, or searches without one, costs its step and is told why.
 */
export async function react(run: ItemRun): Promise<MethodOutput> {
  const budget = run.env.settings.searchBudget;
  const turns: Turn[] = [];
  const queries = new QueryLog();
  const found: RetrievedPassage[][] = [];
  let searches = 0;
  const finish = (answer: string, forced: boolean) => {
    run.metric('searches_used', searches);
    run.metric('forced_answer', forced);
    return output({ longAnswer: answer, shortAnswers: null, retrieved: pool(found) });
  };
  for (let step = 1; step <= budget; step++) {
    const a = await run.ask('eval_react', { question: run.question, context: describeTurns(turns), used: step - 1, budget }, { kind: 'thought', label: `step ${step}` });
    if (!a) {
      turns.push({ thought: '', action: '(unusable)', observation: 'That reply could not be used; reply with the JSON object asked for.' });
      continue;
    }
    if (a.action === 'answer' && a.answer.trim()) {
      run.step('action', `step ${step}: answer`, { answer: a.answer });
      return finish(a.answer, false);
    }
    const refused = a.action === 'search' ? queries.refuse(a.query) : 'An answer needs its text.';
    let observation = refused ?? '';
    if (!refused) {
      searches++;
      const hits = await run.search(a.query.trim(), { label: `step ${step}: search` });
      found.push(hits);
      observation = numberedPassages(hits);
    }
    run.step('observation', `step ${step}`, { text: observation.slice(0, 4000) });
    turns.push({ thought: a.thought, action: a.action === 'search' ? `search "${a.query.trim()}"` : a.action, observation });
  }
  // The budget is spent without an answer: one last call that must answer from what was gathered.
  run.note(`no answer within ${budget} steps: a final answer was forced`);
  const forced = await run.mustAsk(
    'eval_react',
    { question: run.question, context: `${describeTurns(turns)}\n\nNo searches remain: answer now.`, used: budget, budget },
    { kind: 'action', label: 'forced answer' },
  );
  if (!forced.answer.trim()) throw new ItemFailure(`no answer after ${budget} steps and a forced final call (the model kept choosing "${forced.action}")`);
  return finish(forced.answer, true);
}
