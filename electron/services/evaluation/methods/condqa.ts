import { conditionalLongAnswer, fragmentsAsPassages, numberedPassages } from '../../../../shared/eval/methods/format';
import type { MethodOutput, RetrievedPassage } from '../../../../shared/eval/types';
import { ItemFailure, type ItemRun } from '../context';
import { output } from './common';

/**
 * CondAmbigQA (paper 003): with the instance's frozen fragment list (shown whole, numbered from
 * 1) the model finds conditions and answers each (§4.2), answers the gold conditions, or answers
 * as plain RAG (§5.5); without fragments (Table 3) it answers directly, under conditions it
 * hypothesises, or under the gold ones.
 */

export const CONDQA_SETTINGS = ['conditions', 'no-condition', 'oracle', 'closed-book', 'closed-book-conditions', 'closed-book-oracle'] as const;
export type CondSetting = (typeof CONDQA_SETTINGS)[number];

/** The gold conditions of the item, numbered; the item fails when it has none (a setting that gives them cannot run without). */
function goldConditions(run: ItemRun): string {
  const conditions = run.gold.interpretations.map((i) => i.condition?.trim()).filter((c): c is string => !!c);
  if (conditions.length === 0) throw new ItemFailure('no gold conditions for this item (the oracle settings give the gold conditions to the model)');
  return conditions.map((c, i) => `Condition ${i + 1}: ${c}`).join('\n');
}

async function fragmentList(run: ItemRun): Promise<RetrievedPassage[]> {
  const fragments = fragmentsAsPassages(run.gold.fragments);
  if (fragments.length) return fragments;
  run.note('the instance has no frozen fragment list: the top-k passages were retrieved and used as one');
  return run.search(run.question, { label: 'fragments' });
}

type Pair = { condition: string; answer: string; citations: number[] };

function fromPairs(run: ItemRun, pairs: Pair[], fragments: RetrievedPassage[], cap: number | null): MethodOutput {
  let kept = pairs.filter((p) => p.answer.trim());
  if (cap !== null && kept.length > cap) {
    run.note(`the model gave ${kept.length} conditions; the first ${cap} were kept (the prompt asks for at most ${cap})`);
    kept = kept.slice(0, cap);
  }
  const interpretations = kept.map((p) => ({ question: run.question, condition: p.condition.trim() || null, answer: p.answer.trim(), citations: run.cite(p.citations, fragments), retrieved: [] }));
  return output({
    longAnswer: conditionalLongAnswer(kept) || '(no answer)',
    shortAnswers: interpretations.map((i) => i.answer),
    citations: [...new Set(interpretations.flatMap((i) => i.citations))],
    interpretations,
    retrieved: fragments,
  });
}

/** One answer without conditions: a single pair with no condition stated. */
function single(run: ItemRun, answer: string, citations: string[], fragments: RetrievedPassage[]): MethodOutput {
  const text = answer.trim();
  return output({
    longAnswer: text || '(no answer)',
    shortAnswers: text ? [text] : [],
    citations,
    interpretations: text ? [{ question: run.question, condition: null, answer: text, citations, retrieved: [] }] : [],
    retrieved: fragments,
  });
}

export async function condAmbigQA(run: ItemRun, setting: CondSetting): Promise<MethodOutput> {
  const { maxConditions, maxCitations } = run.env.settings.condqa;
  const question = run.question;
  switch (setting) {
    case 'closed-book':
      return single(run, (await run.mustAsk('eval_condqa_closed', { question })).answer, [], []);
    case 'closed-book-conditions': {
      const a = await run.mustAsk('eval_condqa_closed_conditions', { question, max_conditions: maxConditions });
      return fromPairs(run, a.pairs.map((p) => ({ ...p, citations: [] })), [], maxConditions);
    }
    case 'closed-book-oracle': {
      const a = await run.mustAsk('eval_condqa_closed_oracle', { question, conditions: goldConditions(run) });
      return fromPairs(run, a.pairs.map((p) => ({ ...p, citations: [] })), [], null);
    }
    default:
      break;
  }
  const conditions = setting === 'oracle' ? goldConditions(run) : '';
  const fragments = await fragmentList(run);
  const passages = numberedPassages(fragments, { full: true });
  if (setting === 'no-condition') {
    const a = await run.mustAsk('eval_condqa_plain', { question, passages, max_citations: maxCitations });
    if (a.citations.length > maxCitations) run.note(`the model cited ${a.citations.length} fragments (the prompt asks for at most ${maxCitations}); all are scored`);
    return single(run, a.answer, run.cite(a.citations, fragments), fragments);
  }
  if (setting === 'oracle') return fromPairs(run, (await run.mustAsk('eval_condqa_oracle', { question, passages, conditions })).pairs, fragments, null);
  return fromPairs(run, (await run.mustAsk('eval_condqa', { question, passages, max_conditions: maxConditions })).pairs, fragments, maxConditions);
}
