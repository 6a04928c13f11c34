import type { Fragment, GoldInterpretation, RetrievedPassage } from '../types';

/** Text blocks the prompts are filled with, and the small decisions made on model answers. */

const MAX_PASSAGE_CHARS = 1200;

/**
 * Passages as a prompt lists them: `[n] Title: text`, numbered from `from` (1). Corpus passages
 * are cut at 1,200 characters; CondAmbigQA's fragments are shown whole (`full`).
 */
export function numberedPassages(passages: readonly { title: string; text: string }[], options: { full?: boolean; from?: number } = {}): string {
  if (passages.length === 0) return '(none)';
  const from = options.from ?? 1;
  const body = (text: string) => (options.full || text.length <= MAX_PASSAGE_CHARS ? text : `${text.slice(0, MAX_PASSAGE_CHARS)}…`);
  return passages.map((p, i) => `[${i + from}] ${p.title ? `${p.title}: ` : ''}${body(p.text)}`).join('\n');
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

export function goldForJudge(interpretations: readonly GoldInterpretation[]): string {
  return interpretations.map((i, n) => `${n + 1}. ${i.question ?? i.condition ?? ''} → ${i.answers[0] ?? '(no answer)'}`).join('\n');
}

export function fragmentsAsPassages(fragments: readonly Fragment[]): RetrievedPassage[] {
  return fragments.map((f) => ({ id: 0, key: f.key, title: f.title, text: f.text, rank: f.rank, score: 0 }));
}

