import { cleanAnswers, numberedPassages } from '../../../../shared/eval/methods/format';
import type { MethodInterpretation, MethodOutput, RetrievedPassage } from '../../../../shared/eval/types';
import type { ItemRun } from '../context';
import { output } from './common';

/**
 * DIVA (MARCH §5; ADF §5.3.4 for its settings; DIVA's own paper where MARCH is silent):
 * retrieve for the question, infer interpretations from what came back, retrieve for each and
 * merge into one diversified set, label every passage for every interpretation (useful /
 * partially useful / useless), then answer in the mode the evidence allows: from the passages,
 * from the passages where they suffice and own knowledge elsewhere, or from own knowledge alone.
 */

type Label = 'useful' | 'partially_useful' | 'useless';
type Quality = 'useful' | 'partially_useful' | 'useless';

/** Round-robin over the rankings (the question's first), each list's next unseen passage, until k. */
export function diversify(rankings: readonly RetrievedPassage[][], k: number): RetrievedPassage[] {
  const out = new Map<string, RetrievedPassage>();
  const cursors = rankings.map(() => 0);
  while (out.size < k && cursors.some((c, i) => c < rankings[i]!.length)) {
    rankings.forEach((list, i) => {
      while (cursors[i]! < list.length && out.has(list[cursors[i]!]!.key)) cursors[i]!++;
      const next = list[cursors[i]!];
      if (next && out.size < k) {
        out.set(next.key, next);
        cursors[i]!++;
      }
    });
  }
  return [...out.values()].map((p, i) => ({ ...p, rank: i + 1 }));
}

/** An interpretation's evidence from its labels: useful if any passage is, partially if only partially useful ones, else useless. */
function sufficiency(labels: readonly Label[]): Label {
  return labels.includes('useful') ? 'useful' : labels.includes('partially_useful') ? 'partially_useful' : 'useless';
}

/** The item's retrieval quality: useful when every interpretation's evidence is, useless when none has any, else partial. */
function quality(per: readonly Label[]): Quality {
  if (per.every((l) => l === 'useful')) return 'useful';
  if (per.every((l) => l === 'useless')) return 'useless';
  return 'partially_useful';
}

const STRATEGY: Record<Quality, string> = {
  useful: 'The passages cover every interpretation: answer each from them and cite the numbers of the passages you used.',
  partially_useful:
    'The passages cover some interpretations only (each is marked): answer the covered ones from the passages, citing them; answer the others from your own knowledge and cite nothing for them.',
  useless: 'No passage helps with any interpretation, so none are shown: answer each from your own knowledge and cite nothing.',
};

/** Labels every passage of the set for one interpretation; an unusable reply counts as partially useful, said on the item. */
async function labelFor(run: ItemRun, question: string, n: number, set: readonly RetrievedPassage[]): Promise<Label[]> {
  const verdict = await run.ask(
    'eval_diva_verify',
    { interpretation: question, passages: numberedPassages(set) },
    { kind: 'observation', label: `verify interpretation ${n}`, sampling: { temperature: run.env.settings.diva.verifyTemperature } },
  );
  if (!verdict) {
    run.note(`verification of interpretation ${n} unusable: its passages were treated as partially useful`);
    run.metric('diva_verify_unusable', ((run.methodMetrics.diva_verify_unusable as number | undefined) ?? 0) + 1);
    return set.map(() => 'partially_useful');
  }
  const labels = new Map(verdict.labels.map((l) => [l.passage, l.label]));
  return set.map((_, i) => labels.get(i + 1) ?? 'useless');
}

export async function diva(run: ItemRun): Promise<MethodOutput> {
  const { diva: settings } = run.env.settings;
  const first = await run.search(run.question, { label: 'search for the question' });
  const interpreted = await run.mustAsk(
    'eval_diva_interpret',
    { question: run.question, passages: numberedPassages(first), count: settings.interpretations },
    { kind: 'plan', label: 'diversify', sampling: { temperature: settings.diversifyTemperature } },
  );
  const questions = cleanAnswers(interpreted.interpretations).slice(0, settings.interpretations);
  const rankings = [first];
  for (const [n, q] of questions.entries()) rankings.push(await run.search(q, { label: `search for interpretation ${n + 1}` }));
  const set = diversify(rankings, run.env.k);
  run.step('retrieve', 'diversified set', { passages: set.map((p) => ({ key: p.key, title: p.title })) });
  const labels: Label[][] = [];
  for (const [n, q] of questions.entries()) labels.push(await labelFor(run, q, n + 1, set));
  const evidence = labels.map(sufficiency);
  const mode = quality(evidence);
  run.metric('diva_quality', mode);
  // The passages shown: none when nothing helps; else those some interpretation found of use.
  const shown = mode === 'useless' ? [] : set.filter((_, i) => labels.some((l) => l[i] !== 'useless'));
  const a = await run.mustAsk(
    'eval_diva_answer',
    {
      question: run.question,
      strategy: STRATEGY[mode],
      interpretations: questions.map((q, i) => `${i + 1}. ${q} (evidence: ${evidence[i]!.replace('_', ' ')})`).join('\n'),
      passages: mode === 'useless' ? '(none)' : numberedPassages(shown),
    },
    { label: `adapt and answer (${mode.replace('_', ' ')})` },
  );
  const interpretations: MethodInterpretation[] = questions.map((question, i) => {
    const answered = a.interpretations[i];
    return { question, condition: null, answer: answered?.answer.trim() || null, citations: answered ? run.cite(answered.citations, shown) : [], retrieved: rankings[i + 1]!, evidence: evidence[i]! };
  });
  return output({
    longAnswer: a.long_answer,
    shortAnswers: interpretations.map((i) => i.answer ?? ''),
    citations: [...new Set(interpretations.flatMap((i) => i.citations))],
    interpretations,
    retrieved: set,
  });
}
