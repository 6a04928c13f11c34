import type { WritableDB } from '../../db/sql';
import { instanceDetail } from '../../electron/services/browse';
import { seedEvalRun, type FixtureItem } from './eval-fixture';

/**
 * Two evaluation runs over real imported instances (their questions, clarified questions and
 * short answers), for the e2e test, the screenshots and the bench: answers that cover every
 * interpretation, collapse them, miss them or fail, with one 30-step trace.
 */
export function seedFailureDemo(db: WritableDB, count = 40, options: { steps?: number } = {}): { runA: number; runB: number; itemIds: Map<string, number>; longTraceKey: string } {
  const instances = db.prepare("SELECT id FROM instances WHERE interpretation_count >= 2 ORDER BY id LIMIT ?").all(count) as { id: number }[];
  const items = (variant: number): FixtureItem[] =>
    instances.map(({ id }, i) => {
      const d = instanceDetail(db, id);
      const interpretations = d.interpretations
        .filter((r) => r.shortAnswer)
        .slice(0, 4)
        .map((r, n) => ({ question: r.clarifiedQuestion ?? d.baseQuestion.question, answers: [r.shortAnswer!.text, ...r.shortAnswer!.aliases], evidence: [`wiki/gold-${id}-${n}`] }));
      const answers = interpretations.map((r) => r.answers[0]!);
      const kind = (i + variant) % 5;
      const key = `asqa-${id}`;
      const base = { key, instanceId: id, type: d.ambiguityType, question: d.baseQuestion.question, interpretations, steps: options.steps ?? (i === 1 ? 30 : 4 + (i % 5)) };
      if (kind === 4) return { ...base, error: 'answer: the model output is not valid JSON (Unexpected end of input)' };
      const covered = kind === 0 ? answers : kind === 1 ? answers.slice(0, 1) : kind === 2 ? [] : answers.slice(0, Math.max(1, answers.length - 1));
      const answer = covered.length
        ? `The question has ${interpretations.length} interpretations. ${covered.map((a, n) => `For interpretation ${n + 1}, the answer is ${a}.`).join(' ')}`
        : 'The sources do not settle this; it is not clear which event the question means.';
      const strEm = interpretations.length ? covered.length / interpretations.length : null;
      return {
        ...base,
        answer,
        retrieved: kind === 2 ? ['wiki/unrelated-1', 'wiki/unrelated-2'] : [`wiki/gold-${id}-0`, 'wiki/unrelated-3'],
        strEm,
        rougeL: ((i * 37 + variant * 11) % 60) / 100 + 0.1,
        disambigF1: strEm === null ? null : Math.max(0, strEm - 0.1),
        judge: { relevance: Math.min(5, covered.length + 2), faithfulness: 4, informativeness: 2 + (i % 3), correctness: Math.min(5, covered.length + 1) },
        latencyMs: 800 + ((i * 131) % 900),
        rationale:
          covered.length === interpretations.length
            ? 'Answers every interpretation with its short answer and stays on topic.'
            : `Answers ${covered.length} of the ${interpretations.length} interpretations; the others are left out, so relevance and correctness suffer.`,
      };
    });
  const a = seedEvalRun(db, { method: 'clarion', model: 'gpt-4o-mini', items: items(0) });
  const b = seedEvalRun(db, { method: 'naive_rag', model: 'gpt-4o-mini', items: items(2) });
  return { runA: a.runId, runB: b.runId, itemIds: a.itemIds, longTraceKey: `asqa-${instances[1]!.id}` };
}
