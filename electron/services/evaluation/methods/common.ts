import { cleanAnswers } from '../../../../shared/eval/methods/format';
import type { MethodOutput, RetrievedPassage } from '../../../../shared/eval/types';

/** Small pieces the methods share. */

/** A method's output with the empty parts filled in; short answers cleaned (or null: the method gave none of its own). */
export function output(o: Partial<MethodOutput> & Pick<MethodOutput, 'longAnswer' | 'shortAnswers'>): MethodOutput {
  return { citations: [], interpretations: [], retrieved: [], ...o, shortAnswers: o.shortAnswers === null ? null : cleanAnswers(o.shortAnswers) };
}

/** Passages pooled over several searches, each once, in first-seen order. */
export function pool(lists: readonly RetrievedPassage[][]): RetrievedPassage[] {
  const seen = new Map<string, RetrievedPassage>();
  for (const list of lists) for (const p of list) if (!seen.has(p.key)) seen.set(p.key, p);
  return [...seen.values()].map((p, i) => ({ ...p, rank: i + 1 }));
}

/** One turn of an agent's loop as its prompt shows it. */
export interface Turn {
  thought: string;
  action: string;
  observation: string;
}

/** A loop's history as the prompt shows it: thoughts, actions and observations, newest last. */
export function describeTurns(turns: readonly Turn[]): string {
  if (turns.length === 0) return '(nothing yet)';
  return turns.map((t, i) => `Step ${i + 1}\nThought: ${t.thought}\nAction: ${t.action}\nObservation: ${t.observation}`).join('\n\n');
}

/** Queries an agent has used, so that a repeated one is refused (case and spacing ignored). */
export class QueryLog {
  private readonly used = new Set<string>();

  /** Null when the query may run (and records it); else why not. */
  refuse(query: string): string | null {
    const q = query.trim();
    if (!q) return 'A search needs a query.';
    const key = q.toLowerCase().replace(/\s+/g, ' ');
    if (this.used.has(key)) return `You already searched for "${q}"; use a different query or answer.`;
    this.used.add(key);
    return null;
  }
}
