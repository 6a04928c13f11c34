import { AppError } from '../../../shared/api';
import type { ModelRef } from '../../../shared/pipeline';
import type { ItemRun } from './context';

/**
 * The reader behind Disambig-F1: for each gold clarified question, an answer read from the long
 * answer alone, by an HTTP extractive reader (POST {question, context} → {answer}) or an LLM. A
 * reader that times out, answers with an error or without a usable answer is a reader error,
 * never an empty answer: the caller leaves the item's Disambig-F1 out and says why.
 */

export type ReaderChoice = { kind: 'llm'; model: ModelRef } | { kind: 'http'; url: string };

export const DEFAULT_READER_TIMEOUT_MS = 30_000;

export interface ReaderResult {
  /** Per gold interpretation: the answer read (possibly ""), or null where the reader failed. */
  answers: (string | null)[];
  /** One message per failed question. */
  errors: string[];
}

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}

async function httpReadOnce(url: string, question: string, context: string, signal: AbortSignal, timeoutMs: number): Promise<string> {
  let response: Response;
  try {
    response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ question, context }), signal });
  } catch (error) {
    if ((error as Error).name === 'TimeoutError') throw new Error(`the reader at ${url} did not answer within ${seconds(timeoutMs)}`);
    if ((error as Error).name === 'AbortError') throw error;
    throw new Error(`the reader at ${url} could not be reached: ${(error as Error).message}`);
  }
  if (!response.ok) throw new Error(`the reader at ${url} answered HTTP ${response.status}`);
  let body: { answer?: unknown };
  try {
    body = (await response.json()) as { answer?: unknown };
  } catch {
    throw new Error(`the reader at ${url} answered with something other than JSON`);
  }
  if (typeof body.answer !== 'string') throw new Error(`the reader at ${url} answered without a string "answer"`);
  return body.answer;
}

/** One question through the HTTP reader, within the timeout, tried twice before it counts as an error. */
async function httpRead(url: string, question: string, context: string, runSignal: AbortSignal | undefined, timeoutMs: number): Promise<string> {
  let last: Error = new Error(`the reader at ${url} gave no answer`);
  for (let attempt = 0; attempt < 2; attempt++) {
    const signal = runSignal ? AbortSignal.any([runSignal, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs);
    try {
      return await httpReadOnce(url, question, context, signal, timeoutMs);
    } catch (error) {
      if (runSignal?.aborted) throw new AppError('cancelled', 'Cancelled');
      last = error as Error;
    }
  }
  return Promise.reject(last);
}

/** The reader's answer to each gold clarified question, read from `longAnswer`. */
export async function readGoldQuestions(run: ItemRun, reader: ReaderChoice, longAnswer: string, timeoutMs: number): Promise<ReaderResult> {
  const answers: (string | null)[] = [];
  const errors: string[] = [];
  for (const [n, interpretation] of run.gold.interpretations.entries()) {
    const question = interpretation.question ?? interpretation.condition ?? run.gold.question;
    if (reader.kind === 'llm') {
      const read = await run.ask('eval_reader', { context: longAnswer, question }, { kind: 'reader', label: `reader ${n + 1}`, ref: reader.model });
      if (read) answers.push(read.answer);
      else {
        const last = run.steps[run.steps.length - 1]?.content as { error?: string } | undefined;
        errors.push(`the LLM reader gave no usable answer (${last?.error ?? 'see the trace'})`);
        answers.push(null);
      }
      continue;
    }
    try {
      const answer = await httpRead(reader.url, question, longAnswer, run.env.signal, timeoutMs);
      run.step('reader', `reader ${n + 1}`, { question, answer, reader: reader.url });
      answers.push(answer);
    } catch (error) {
      if (error instanceof AppError && error.code === 'cancelled') throw error;
      run.step('reader', `reader ${n + 1}`, { question, error: (error as Error).message });
      errors.push((error as Error).message);
      answers.push(null);
    }
  }
  return { answers, errors };
}

/** "reader failed on 2 of 3 clarified questions: …": the item's note. */
export function readerErrorNote(result: ReaderResult): string {
  return `reader failed on ${result.errors.length} of ${result.answers.length} clarified question${result.answers.length === 1 ? '' : 's'}: ${result.errors[0]}; Disambig-F1 left out for this item`;
}
