import type { Fragment, GoldInterpretation, RetrievedPassage } from '../types';

/** Text blocks the prompts are filled with, and the small decisions made on model answers. */

const MAX_PASSAGE_CHARS = 1200;

export function numberedPassages(passages: readonly { title: string; text: string }[]): string {
  if (passages.length === 0) return '(none)';
  return passages.map((p, i) => `[${i + 1}] ${p.title ? `${p.title}: ` : ''}${p.text.length > MAX_PASSAGE_CHARS ? `${p.text.slice(0, MAX_PASSAGE_CHARS)}…` : p.text}`).join('\n');
}

/** Passage numbers (1-based, as shown) to keys; numbers outside the list are dropped. */
export function citedKeys(numbers: readonly number[], passages: readonly { key: string }[]): string[] {
  return [...new Set(numbers.filter((n) => n >= 1 && n <= passages.length).map((n) => passages[n - 1]!.key))];
}

/** Short answers as the method committed to them: trimmed, non-empty, each once. */
export function cleanAnswers(answers: readonly string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const a of answers.map((x) => x.trim()).filter(Boolean)) {
    const key = a.toLowerCase();
    if (!seen.has(key)) {
      seen.add(key);
      out.push(a);
    }
  }
  return out;
}

/** Conditional answers (CondAmbigQA) read as one long answer: "Under C: A." per pair. */
export function conditionalLongAnswer(pairs: readonly { condition: string; answer: string }[]): string {
  return pairs
    .filter((p) => p.answer.trim())
    .map((p) => (p.condition.trim() ? `If ${p.condition.trim().replace(/[.]$/, '')}: ${p.answer.trim()}.` : `${p.answer.trim()}.`))
    .join(' ');
}

/** Conditions and their answers, numbered, as the CondAmbigQA grader reads them. */
export function conditionsForJudge(pairs: readonly { condition: string | null; answer: string | null }[]): string {
  if (pairs.length === 0) return '(none)';
  return pairs.map((p, n) => `${n + 1}. Condition: ${p.condition ?? '(none stated)'} → Answer: ${p.answer ?? '(no answer)'}`).join('\n');
}

export function goldForJudge(interpretations: readonly GoldInterpretation[]): string {
  return interpretations.map((i, n) => `${n + 1}. ${i.question ?? i.condition ?? ''} → ${i.answers[0] ?? '(no answer)'}`).join('\n');
}

export function fragmentsAsPassages(fragments: readonly Fragment[]): RetrievedPassage[] {
  return fragments.map((f) => ({ id: 0, key: f.key, title: f.title, text: f.text, rank: f.rank, score: 0 }));
}

/** A loop's history as the prompt shows it: thoughts, actions and observations, newest last. */
export function describeHistory(entries: readonly { thought: string; action: string; observation: string }[]): string {
  if (entries.length === 0) return '(nothing yet)';
  return entries.map((e, i) => `Turn ${i + 1}\nThought: ${e.thought}\nAction: ${e.action}\nObservation: ${e.observation}`).join('\n\n');
}
