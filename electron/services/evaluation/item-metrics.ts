import { disambigF1, strEm } from '../../../shared/eval/answer-metrics';
import { scoreItem, type MetricName } from '../../../shared/eval/metrics';
import { goldForJudge } from '../../../shared/eval/methods/format';
import type { MethodOutput } from '../../../shared/eval/types';
import type { ModelRef } from '../../../shared/pipeline';
import type { ItemRun } from './context';
import { gradeConditional } from './geval';

/**
 * The metrics of one finished item: the non-LLM metrics (shared/eval/metrics.ts), Disambig-F1
 * through the chosen reader, the LLM judge, and the two flags a failure table filters on.
 */

export type ReaderChoice = { kind: 'llm'; model: ModelRef } | { kind: 'http'; url: string };

async function httpReader(url: string, question: string, context: string, signal: AbortSignal | undefined): Promise<string> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ question, context }), ...(signal ? { signal } : {}) });
  if (!response.ok) throw new Error(`the reader at ${url} answered ${response.status}`);
  const body = (await response.json()) as { answer?: unknown };
  if (typeof body.answer !== 'string') throw new Error(`the reader at ${url} answered without a string "answer"`);
  return body.answer;
}

export interface ItemScores {
  metrics: Record<string, unknown>;
  strEm: number | null;
  disambigF1: number | null;
  rougeL: number | null;
  judgeMean: number | null;
  collapsed: boolean | null;
  retrievalMiss: boolean | null;
}

export async function scoreOutput(run: ItemRun, out: MethodOutput, options: { reader: ReaderChoice | undefined; judge: ModelRef | undefined; retrieves: boolean; conditional?: { condition: boolean } | undefined }): Promise<ItemScores> {
  const gold = run.gold;
  const goldAnswers = gold.interpretations.map((i) => i.answers);
  const citedFragments = [...new Set(gold.interpretations.flatMap((i) => i.cited))].map((k) => [k]);
  const wanted: MetricName[] = ['str_em', 'rouge_l', 'token_em', 'token_f1', 'd_f1', 'answer_count', 'answer_count_difference'];
  // Citation precision only for methods that cite (a method that cannot cite would score 0, not "not applicable").
  if (citedFragments.length && options.retrieves) wanted.push('citation_precision');
  const base = scoreItem(
    { answer: out.longAnswer, shortAnswers: out.shortAnswers, citations: options.retrieves ? out.citations : null },
    { interpretations: goldAnswers, longAnswers: gold.longAnswers, citedFragments },
    { metrics: wanted },
  );
  const metrics: Record<string, unknown> = { ...base };
  if (gold.longAnswers.length === 0) metrics.rouge_l = null;

  // Disambig-F1: the reader answers each gold clarified question from the long answer alone.
  let dF1: number | null = null;
  if (options.reader) {
    const readerAnswers: string[] = [];
    for (const [n, interpretation] of gold.interpretations.entries()) {
      const question = interpretation.question ?? interpretation.condition ?? gold.question;
      if (options.reader.kind === 'llm') {
        const read = await run.ask('eval_reader', { context: out.longAnswer, question }, { kind: 'reader', label: `reader ${n + 1}`, ref: options.reader.model });
        readerAnswers.push(read?.answer ?? '');
      } else {
        try {
          const answer = await httpReader(options.reader.url, question, out.longAnswer, run.env.signal);
          run.step('reader', `reader ${n + 1}`, { question, answer, reader: options.reader.url });
          readerAnswers.push(answer);
        } catch (error) {
          run.step('reader', `reader ${n + 1}`, { question, error: (error as Error).message });
          readerAnswers.push('');
        }
      }
    }
    dF1 = disambigF1(readerAnswers, goldAnswers);
    metrics.disambig_f1 = dF1;
    metrics.reader_answers = readerAnswers;
  }

  let judgeMean: number | null = null;
  if (options.judge) {
    const judged = await run.ask('eval_judge', { question: gold.question, gold: goldForJudge(gold.interpretations), answer: out.longAnswer }, { kind: 'judge', label: 'judge', ref: options.judge });
    if (judged) {
      judgeMean = (judged.relevance + judged.faithfulness + judged.informativeness + judged.correctness) / 4;
      Object.assign(metrics, {
        judge_relevance: judged.relevance,
        judge_faithfulness: judged.faithfulness,
        judge_informativeness: judged.informativeness,
        judge_correctness: judged.correctness,
        judge_mean: judgeMean,
        judge_rationale: judged.rationale,
      });
    } else {
      metrics.judge_error = 'the judge gave no usable grades (see the trace)';
    }
  }

  // CondAmbigQA's condition and answer scores, for its settings: G-Eval per criterion (geval.ts).
  if (options.judge && options.conditional) Object.assign(metrics, await gradeConditional(run, out, options.judge, options.conditional));

  // Collapsed: of several gold interpretations, the answer covers at most one.
  const withAnswers = gold.interpretations.filter((i) => i.answers.length);
  const covered = withAnswers.filter((i) => strEm(out.longAnswer, [i.answers]) === 1).length;
  const collapsed = withAnswers.length >= 2 ? covered <= 1 : null;
  metrics.interpretations_covered = withAnswers.length ? covered : null;

  // Retrieval miss: the method searched, the gold names evidence, and none of it came back.
  const goldEvidence = new Set(gold.interpretations.flatMap((i) => i.evidence));
  const retrieved = new Set([...out.retrieved, ...out.interpretations.flatMap((i) => i.retrieved)].map((p) => p.key));
  const retrievalMiss = options.retrieves && goldEvidence.size > 0 ? ![...goldEvidence].some((k) => retrieved.has(k)) : null;

  return {
    metrics,
    strEm: typeof base.str_em === 'number' ? base.str_em : null,
    disambigF1: dF1,
    rougeL: typeof metrics.rouge_l === 'number' ? (metrics.rouge_l as number) : null,
    judgeMean,
    collapsed,
    retrievalMiss,
  };
}
