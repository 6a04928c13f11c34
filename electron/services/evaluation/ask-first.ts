import { askFirstItems, insertAskFirstItem, saveAskFirstItem } from '../../../db/queries/ask-first-items';
import { finishAskFirstRun, getAskFirstRun, insertAskFirstRun, listAskFirstRuns, type AskFirstRunRow } from '../../../db/queries/ask-first-runs';
import { askFirstCandidates, baseQuestionPassageTexts } from '../../../db/queries/base-questions';
import { clarificationTurns } from '../../../db/queries/clarification-turns';
import { findDatasetByName } from '../../../db/queries/datasets';
import { listInterpretations } from '../../../db/queries/interpretations';
import { finishRun, insertRun } from '../../../db/queries/runs';
import { settleGroup, transaction, type ReadableDB, type WritableDB } from '../../../db/sql';
import { AppError, isCancelled, type AskFirstItemView, type AskFirstRun } from '../../../shared/api';
import type { z } from 'zod';
import type { AskFirstStartRequest } from '../../../shared/api/ask-first';
import type { ConstructionConfig } from '../../../shared/construction';
import type { Answerability } from '../../../shared/domain';
import { askTable, scoreAsk, type AskGold, type AskOutput } from '../../../shared/eval/methods/ask-first';
import { askPrompt, eachItem, promptContext, type PromptContext } from '../pipeline/prompt-call';
import type { Retriever } from '../retrieval/search';

/**
 * The ask-before-answer setting (URASys §3.2, Table 2), a method of one item: find evidence (the
 * question's own paragraphs, or a search of a corpus and, if asked, its QA layer), then answer,
 * ask a clarifying question, or say there is no answer. When it asks, the evaluator plays the
 * user with the gold reply (else the clarified question) and the method answers again. Items are
 * the dataset's base questions that carry an answerability label (the first kept instance's label
 * wins over the question's); unlabelled ones are left out and counted in the notes.
 */

type Request = Omit<z.output<typeof AskFirstStartRequest>, 'config' | 'configPath'> & { config: ConstructionConfig };

const parseList = (text: string | null): string[] => {
  try {
    const v: unknown = JSON.parse(text ?? '[]');
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
};

function goldOf(db: ReadableDB, c: ReturnType<typeof askFirstCandidates>[number], label: Answerability): AskGold {
  const answers = [c.answer ?? '', ...parseList(c.aliases)].filter((a) => a.trim() !== '');
  const turn = c.instance_id === null ? undefined : clarificationTurns(db, c.instance_id)[0];
  if (!turn || c.instance_id === null) return { label, answers, clarification: null };
  const chosen = listInterpretations(db, c.instance_id).find((i) => i.id === turn.interpretation_id);
  const selected = chosen ? [chosen.short_answer ?? '', ...parseList(chosen.answer_aliases)].filter((a) => a.trim() !== '') : [];
  return { label, answers, clarification: { reply: turn.user_reply ?? turn.clarified_question, clarifiedQuestion: turn.clarified_question, answers: selected } };
}

/** Freezes the run's items (one transaction), so a run's gold never moves under it. */
function createRun(db: WritableDB, request: Request): { runId: number; skipped: number } {
  const dataset = findDatasetByName(db, request.dataset);
  if (!dataset) throw new AppError('not_found', `No dataset named "${request.dataset}"`);
  const candidates = askFirstCandidates(db, dataset.id);
  const labelled = candidates.filter((c) => (c.instance_answerability ?? c.answerability) !== null).slice(0, request.limit ?? Number.MAX_SAFE_INTEGER);
  if (!labelled.length) throw new AppError('invalid_input', `Dataset "${request.dataset}" has no base question with an answerability label: label them first (awb label start --kind answerability)`);
  return transaction(db, () => {
    const { config, ...options } = request;
    const runId = insertRun(db, 'evaluation', { kind: 'ask-first', ...options, generator: config.generator });
    insertAskFirstRun(db, { id: runId, datasetId: dataset.id, dataset: dataset.name, model: config.generator.model, corpus: request.corpus ?? null, options });
    labelled.forEach((c, position) => {
      const label = (c.instance_answerability ?? c.answerability)!;
      insertAskFirstItem(db, { runId, position, key: `${dataset.name}/${c.source_id}`, baseQuestionId: c.id, instanceId: c.instance_id, label, gold: goldOf(db, c, label) });
    });
    return { runId, skipped: candidates.filter((c) => (c.instance_answerability ?? c.answerability) === null).length };
  });
}

async function evidence(db: ReadableDB, retriever: Retriever, request: Request, item: { base_question_id: number | null; question: string }): Promise<string> {
  const passages = request.corpus
    ? (await retriever.search({ query: item.question, corpus: request.corpus, mode: request.mode, k: request.k, layers: request.layers })).hits.map((h) =>
        h.qa ? { title: `Q: ${h.qa.question}`, text: `A: ${h.qa.answer} (from "${h.qa.source.title}")` } : { title: h.passage.title, text: h.passage.text },
      )
    : item.base_question_id === null ? [] : baseQuestionPassageTexts(db, item.base_question_id);
  return passages.length ? passages.map((p, i) => `[${i + 1}] ${p.title ? `${p.title}: ` : ''}${p.text.replace(/\s+/g, ' ')}`).join('\n') : '(no passages found)';
}

async function askItem(ctx: PromptContext, request: Request, key: string, question: string, passages: string, gold: AskGold): Promise<AskOutput | { error: string }> {
  const first = await askPrompt(ctx, 'ask_first', 'ask_first', key, request.config.generator, { question, passages });
  if (!first.ok) return { error: `ask_first: ${first.reason}` };
  const out: AskOutput = { action: first.value.action, answer: first.value.answer, clarifyingQuestion: first.value.clarifying_question, afterReply: null };
  if (out.action !== 'clarify' || !gold.clarification) return out;
  const values = { question, clarifying_question: out.clarifyingQuestion, reply: gold.clarification.reply, passages };
  const second = await askPrompt(ctx, 'ask_first_answer', 'ask_first', key, request.config.generator, values);
  if (!second.ok) return { error: `ask_first_answer: ${second.reason}` };
  return { ...out, afterReply: second.value.answer };
}

export async function runAskFirst(
  db: WritableDB,
  retriever: Retriever,
  request: Request,
  options: { signal?: AbortSignal | undefined; keys?: Readonly<Record<string, string>> | undefined; onProgress?: (done: number, total: number, detail: string) => void },
): Promise<AskFirstRun> {
  const { runId, skipped } = createRun(db, request);
  const items = askFirstItems(db, runId);
  const ctx = promptContext(db, request.config, { runId, signal: options.signal, keys: options.keys, ...(request.noCache ? { noCache: new Set(['ask_first']) } : {}) });
  let done = 0;
  let failure: unknown = null;
  await eachItem(items, request.config.concurrency, options.signal, async (item) => {
    const gold = JSON.parse(item.gold) as AskGold;
    const before = ctx.llm.stats.costUsd;
    const out = await askItem(ctx, request, item.key, item.question, await evidence(db, retriever, request, item), gold);
    if ('error' in out) saveAskFirstItem(db, runId, item.position, out);
    else saveAskFirstItem(db, runId, item.position, { action: out.action, output: out, ...scoreAsk(gold, out), costUsd: ctx.llm.stats.costUsd - before });
    options.onProgress?.(++done, items.length, `${done}/${items.length} items · $${ctx.llm.stats.costUsd.toFixed(4)}`);
  }).catch((e: unknown) => {
    failure = e;
  });
  // A call stopped (the user's cancel, a cost ceiling) ends the run cancelled, not failed; its reason is kept below.
  const stopped = isCancelled(failure);
  let status: 'cancelled' | 'done' | 'failed' = failure ? (stopped ? 'cancelled' : 'failed') : options.signal?.aborted ? 'cancelled' : 'done';
  const notes = skipped ? [`${skipped} base questions without an answerability label were left out`] : [];
  if (failure) notes.push((failure as Error).message);
  // The last answers' group commit; a failed one ends the run failed, saying why (its answers were written again).
  const lost = settleGroup(db);
  if (lost) {
    status = 'failed';
    notes.push(lost);
  }
  transaction(db, () => {
    finishAskFirstRun(db, runId, status, { notes });
    finishRun(db, runId, status, { kind: 'ask-first', items: items.length });
  });
  // As the prompt-call jobs do (promptRun): a failure first; then a lost last commit, which fails
  // the job even after a stop; then the stop.
  if (failure && !stopped) throw failure;
  if (lost) throw new AppError('internal', `Ask-first run ${runId} failed: ${stopped ? `${(failure as Error).message}; ` : ''}${lost}`);
  if (failure) throw failure;
  return askFirstRun(db, runId);
}

function view(db: ReadableDB, row: AskFirstRunRow): AskFirstRun & { items: AskFirstItemView[] } {
  const rows = askFirstItems(db, row.id);
  const items: AskFirstItemView[] = rows.map((r) => {
    const out = JSON.parse(r.output) as Partial<AskOutput>;
    return {
      position: r.position,
      key: r.key,
      question: r.question,
      label: r.answerability,
      action: r.action,
      answer: out.answer ?? '',
      clarifyingQuestion: out.clarifyingQuestion ?? '',
      afterReply: out.afterReply ?? null,
      correct: r.correct === null ? null : r.correct === 1,
      strict: r.strict_correct === null ? null : r.strict_correct === 1,
      gold: JSON.parse(r.gold) as AskGold,
      error: r.error,
    };
  });
  const summary = JSON.parse(row.summary) as { notes?: string[] };
  return {
    id: row.id,
    dataset: row.dataset,
    model: row.model,
    corpus: row.corpus,
    status: row.status,
    total: rows.length,
    done: rows.filter((r) => r.status === 'done').length,
    failed: rows.filter((r) => r.status === 'failed').length,
    costUsd: rows.reduce((s, r) => s + r.cost_usd, 0),
    createdAt: row.created_at,
    finishedAt: row.finished_at,
    table: askTable(items.map((i) => ({ label: i.label, action: i.action, correct: i.correct, strict: i.strict }))),
    notes: summary.notes ?? [],
    items,
  };
}

export function askFirstRun(db: ReadableDB, id: number): AskFirstRun & { items: AskFirstItemView[] } {
  const row = getAskFirstRun(db, id);
  if (!row) throw new AppError('not_found', `No ask-first run ${id}`);
  return view(db, row);
}

export function askFirstRuns(db: ReadableDB): AskFirstRun[] {
  return listAskFirstRuns(db).map((row) => {
    const { items: _items, ...run } = view(db, row);
    return run;
  });
}
