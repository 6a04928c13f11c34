import { disambigF1, strEm } from '../../../shared/eval/answer-metrics';
import { scoreItem, type MetricName } from '../../../shared/eval/metrics';
import { goldForJudge } from '../../../shared/eval/methods/format';
import type { MethodOutput } from '../../../shared/eval/types';
import { committedInterpretations, isCollapsed } from '../../../shared/failures';
import type { ModelRef } from '../../../shared/pipeline';
import type { ItemRun } from './context';
import { gradeConditional } from './geval';
import { punktParams } from './punkt-params';
import { DEFAULT_READER_TIMEOUT_MS, readerErrorNote, readGoldQuestions, type ReaderChoice } from './reader';

/**
 * The metrics of one finished item: the non-LLM metrics (shared/eval/metrics.ts), Disambig-F1
 * through the chosen reader (reader.ts), the LLM judge, and the two flags a failure table filters
 * on. docs/evaluation-metrics.md gives every convention.
 */

export type { ReaderChoice } from './reader';

const RUN_METRICS: MetricName[] = ['str_em', 'rouge_l', 'token_em', 'token_f1', 'd_f1', 'dr_f1', 'token_em_short', 'token_f1_short', 'd_f1_short', 'answer_count', 'answer_count_difference'];

export interface ItemScores {
  metrics: Record<string, unknown>;
  strEm: number | null;
  disambigF1: number | null;
  rougeL: number | null;
  judgeMean: number | null;
  collapsed: boolean | null;
  retrievalMiss: boolean | null;
}

export interface ScoreOptions {
  reader: ReaderChoice | undefined;
  judge: ModelRef | undefined;
  retrieves: boolean;
  /** CondAmbigQA's settings: G-Eval's answer score, and its condition score where the model states conditions. */
  conditional?: { condition: boolean } | undefined;
  readerTimeoutMs?: number | undefined;
}

export async function scoreOutput(run: ItemRun, out: MethodOutput, options: ScoreOptions): Promise<ItemScores> {
  const gold = run.gold;
  const goldAnswers = gold.interpretations.map((i) => i.answers);
  const citedFragments = [...new Set(gold.interpretations.flatMap((i) => i.cited))].map((k) => [k]);
  const wanted: MetricName[] = [...RUN_METRICS];
  // Citation precision only for methods that cite (a method that cannot cite would score 0, not "not applicable").
  if (citedFragments.length && options.retrieves) wanted.push('citation_precision');
  const shortAnswers = (out.shortAnswers as readonly string[] | null | undefined) ?? null;
  const base = scoreItem(
    { answer: out.longAnswer, shortAnswers, citations: options.retrieves ? out.citations : null },
    { interpretations: goldAnswers, longAnswers: gold.longAnswers, citedFragments },
    { metrics: wanted, punkt: punktParams() },
  );
  const metrics: Record<string, unknown> = { ...base };
  if (gold.longAnswers.length === 0) metrics.rouge_l = null;
  // A cited number the question does not have reaches here as `invalid:N` (the method notes it):
  // it matches no gold fragment, so it counts against citation precision.

  // Disambig-F1: the reader answers each gold clarified question from the long answer alone. A
  // reader error leaves the item's Disambig-F1 out (never 0) and says why.
  let dF1: number | null = null;
  let readerAnswers: (string | null)[] | null = null;
  if (options.reader) {
    const read = await readGoldQuestions(run, options.reader, out.longAnswer, options.readerTimeoutMs ?? DEFAULT_READER_TIMEOUT_MS);
    readerAnswers = read.answers;
    metrics.reader_answers = read.answers;
    if (read.errors.length) {
      metrics.reader_errors = read.errors.length;
      metrics.reader_error = read.errors[0];
      metrics.disambig_f1 = null;
      run.note(readerErrorNote(read));
    } else {
      dF1 = disambigF1(read.answers as string[], goldAnswers);
      metrics.disambig_f1 = dF1;
    }
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

  // Collapsed (MARCH appendix G.1): of several gold interpretations, the prediction commits to at most one.
  const committed = committedInterpretations({ shortAnswers, interpretations: out.interpretations }, readerAnswers);
  const collapsed = isCollapsed(gold.interpretations.length, committed);
  metrics.committed_interpretations = committed;
  const withAnswers = gold.interpretations.filter((i) => i.answers.length);
  metrics.interpretations_covered = withAnswers.length ? withAnswers.filter((i) => strEm(out.longAnswer, [i.answers]) === 1).length : null;

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
