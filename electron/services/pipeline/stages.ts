import { listEvidence, insertEvidence } from '../../../db/queries/evidence';
import { findInstanceId, insertInstance } from '../../../db/queries/instances';
import { insertInterpretation, insertSubQuestion, listInterpretations, listSubQuestions, type InterpretationDbRow } from '../../../db/queries/interpretations';
import { insertLongAnswer, insertLongAnswerCitation, listLongAnswers } from '../../../db/queries/long-answers';
import { getPassages } from '../../../db/queries/passages';
import {
  cachedRetrieval,
  corpusStateKey,
  detectionVotes,
  storeRetrieval,
  type RetrievalKind,
  dropInterpretation,
  markItem,
  readyInstance,
  refreshInstanceText,
  removeInstance,
  saveDetectionVote,
  setInstanceStage,
  setShortAnswer,
  upsertFilterVote,
} from '../../../db/queries/pipeline';
import { getOrCreateProvenance } from '../../../db/queries/provenance';
import { transaction, type WritableDB } from '../../../db/sql';
import { AppError } from '../../../shared/api';
import type { AmbiguityType, PipelineStage } from '../../../shared/domain';
import { locateAnswer, locateInPassages } from '../../../shared/checks';
import { schemaOfPrompt, type DetectableType, type ModelRef, type PipelineConfig, type PromptName, type PromptTemplate, type SchemaName, type SchemaOutput, type VoteRule } from '../../../shared/pipeline';
import { fillBridges, planCollisions, shorteningProblem } from '../../../shared/pipeline-rules';
import { countTokens, foldForMatching } from '../../../shared/text';
import type { Retriever } from '../retrieval/search';
import { sha256 } from '../hash';
import type { LlmClient, LlmResult, Message } from './llm';
import type { EvidenceRow, RetrievalWork } from './retrieval-work';
import { promptVersion, render } from './prompts';

/**
 * The nine stages of MARCH's construction (paper 000, section 3.1), one item at a time. Each
 * stage reads what the previous ones stored, makes its calls, and writes its output, the item's
 * new stage and its checkpoint in one transaction; so a stage can be re-run or resumed alone,
 * and a killed run loses only the items in flight (their calls are cached). A call that fails
 * after its repair attempt fails the item, with the reason and raw output kept, and the item is
 * taken up again by the next run.
 */

export interface StageContext {
  db: WritableDB;
  config: PipelineConfig;
  llm: LlmClient;
  prompts: Map<PromptName, PromptTemplate>;
  runId: number;
  retriever: Retriever;
  /** Cues and evidence, computed off this thread where possible. */
  work: Pick<RetrievalWork, 'cues' | 'evidence'>;
  corpusId: number | null;
  /**
   * Readies retrieval once per run (vectors embedded on first use where a corpus has none) and
   * gives the embedding model evidence is searched and re-ranked with (null: the corpus's own).
   */
  prepareRetrieval(): Promise<string | null>;
}

export type Outcome = 'done' | 'failed' | 'removed';

export interface QuestionItem {
  id: number;
  dataset_id: number;
  question: string;
  hops: number | null;
}

export interface InstanceItem {
  id: number;
  base_question_id: number;
  ambiguity_type: AmbiguityType;
  question: string;
}

/** Retrieval's answer to a request, from the cache while the corpus (and its vectors) are unchanged. */
async function cachedCompute<T>(ctx: StageContext, kind: RetrievalKind, request: unknown, compute: () => T | Promise<T>): Promise<T> {
  const corpusKey = corpusStateKey(ctx.db, ctx.corpusId);
  const hash = sha256(JSON.stringify(request));
  const cached = cachedRetrieval(ctx.db, kind, hash, corpusKey);
  if (cached) return JSON.parse(cached) as T;
  const value = await compute();
  storeRetrieval(ctx.db, kind, hash, corpusKey, value);
  return value;
}

export function passes(rule: VoteRule, yes: number, total: number): boolean {
  if (total === 0) return false;
  if (rule === 'all') return yes === total;
  if (rule === 'majority') return yes * 2 > total;
  return yes >= rule.atLeast;
}

const modelName = (ref: ModelRef) => `${ref.endpoint}/${ref.model}`;

async function ask<P extends PromptName>(
  ctx: StageContext,
  name: P,
  stage: PipelineStage,
  item: string,
  ref: ModelRef,
  values: Record<string, string | number>,
  followUp: Message[] = [],
): Promise<LlmResult<SchemaOutput<SchemaOfPrompt<P>>> & { prompt: string; messages: Message[] }> {
  const prompt = ctx.prompts.get(name)!;
  // Templates edited before "readings" became "interpretations" still fill their old placeholders.
  const filled = 'interpretations' in values ? { ...values, readings: values.interpretations! } : 'min_interpretations' in values ? { ...values, min_readings: values.min_interpretations! } : values;
  const messages: Message[] = [
    { role: 'system', content: render(prompt.system, filled) },
    { role: 'user', content: render(prompt.user, filled) },
    ...followUp,
  ];
  const result = await ctx.llm.ask({ schema: schemaOfPrompt(name) as SchemaOfPrompt<P>, stage, item, ref, messages });
  return { ...result, prompt: promptVersion(prompt), messages };
}

type SchemaOfPrompt<P extends PromptName> = P extends `clarify_${string}` ? 'clarify' : P & SchemaName;

function provenance(ctx: StageContext, stage: string, ref: ModelRef, prompt: string, callId: number): number {
  return getOrCreateProvenance(ctx.db, { source: 'llm', detail: stage, model: modelName(ref), promptVersion: prompt, callId });
}

function failed(ctx: StageContext, stage: PipelineStage, item: string, results: { ok: boolean; reason?: string; raw?: string | null }[]): Outcome {
  const bad = results.filter((r) => !r.ok);
  // Several calls of one item often fail alike (an endpoint down): say each reason once.
  const reasons = new Map<string, number>();
  for (const r of bad) reasons.set(r.reason ?? 'unknown', (reasons.get(r.reason ?? 'unknown') ?? 0) + 1);
  markItem(
    ctx.db,
    stage,
    item,
    'failed',
    ctx.runId,
    [...reasons].map(([reason, n]) => (n > 1 ? `${n} calls: ${reason}` : reason)).join(' | '),
    bad.map((r) => r.raw).filter(Boolean).join('\n---\n') || null,
  );
  return 'failed';
}

function finish(ctx: StageContext, stage: PipelineStage, instanceId: number): void {
  setInstanceStage(ctx.db, instanceId, stage);
  markItem(ctx.db, stage, `inst:${instanceId}`, 'done', ctx.runId);
}

function remove(ctx: StageContext, stage: PipelineStage, instanceId: number, reason: string): Outcome {
  removeInstance(ctx.db, instanceId, stage, reason);
  markItem(ctx.db, stage, `inst:${instanceId}`, 'done', ctx.runId, reason);
  return 'removed';
}

const active = (rows: InterpretationDbRow[]) => rows.filter((r) => r.status === 'active');

// ---- detect ------------------------------------------------------------------------------------

export async function detect(ctx: StageContext, q: QuestionItem): Promise<Outcome> {
  const item = `bq:${q.id}`;
  const types = ctx.config.detection.types;
  const k = ctx.config.retrieval.k;
  const cues = types.includes('constraint') ? await cachedCompute(ctx, 'cues', { question: q.question, k }, () => ctx.work.cues(q.question, ctx.corpusId, k)) : null;
  const jobs = types.flatMap((type) =>
    ctx.config.detectors.map(async (ref) => {
      const values: Record<string, string | number> = { question: q.question };
      if (type === 'constraint' && cues) {
        values.total_hits = cues.totalHits;
        values.kl_divergence = cues.klDivergence === null ? 'undefined (no passages)' : cues.klDivergence.toFixed(3);
        values.relax_delta_ratio = cues.relaxDeltaRatio.toFixed(2);
      }
      const result = await ask(ctx, `detect_${type}` as const, 'detect', item, ref, values);
      return { type, ref, result };
    }),
  );
  const answers = await Promise.all(jobs);
  if (answers.some((a) => !a.result.ok)) return failed(ctx, 'detect', item, answers.map((a) => a.result));
  transaction(ctx.db, () => {
    for (const { type, ref, result } of answers) {
      if (!result.ok) continue;
      const value = result.value as { ambiguous: boolean; reason: string; phenomena?: number[] };
      saveDetectionVote(ctx.db, {
        baseQuestionId: q.id,
        type,
        model: modelName(ref),
        verdict: value.ambiguous ? 'yes' : 'no',
        phenomena: value.phenomena ?? [],
        reason: value.reason,
        provenanceId: provenance(ctx, 'detect', ref, result.prompt, result.callId),
      });
    }
    for (const type of types) {
      const votes = answers.filter((a) => a.type === type);
      const yes = votes.filter((a) => a.result.ok && (a.result.value as { ambiguous: boolean }).ambiguous).length;
      if (!passes(ctx.config.detection.rule, yes, votes.length) || findInstanceId(ctx.db, q.id, type) !== undefined) continue;
      const id = insertInstance(ctx.db, {
        baseQuestionId: q.id,
        datasetId: q.dataset_id,
        ambiguityType: type,
        status: 'building',
        stage: 'detect',
        removedStage: null,
        removedReason: null,
        hops: q.hops,
        interpretationCount: 0,
        extra: { detection: { yes, voters: votes.length, rule: ctx.config.detection.rule } },
      });
      refreshInstanceText(ctx.db, id);
    }
    markItem(ctx.db, 'detect', item, 'done', ctx.runId);
  });
  return 'done';
}

// ---- clarify -----------------------------------------------------------------------------------

export async function clarify(ctx: StageContext, inst: InstanceItem): Promise<Outcome> {
  const item = `inst:${inst.id}`;
  const notes = detectionVotes(ctx.db, inst.base_question_id)
    .filter((v) => v.ambiguity_type === inst.ambiguity_type && v.verdict === 'yes')
    .map((v) => `- ${v.reason}${v.phenomena !== '[]' ? ` (phenomena ${JSON.parse(v.phenomena as string).join(', ')})` : ''}`);
  const minimum = ctx.config.clarify.minInterpretations;
  // Each type has its own instructions: interpret a name, resolve a parse, generalise a condition.
  const prompt = `clarify_${inst.ambiguity_type as DetectableType}` as const;
  const result = await ask(ctx, prompt, 'clarify', item, ctx.config.generator, {
    question: inst.question,
    detector_notes: notes.length ? `What the detectors noticed:\n${notes.join('\n')}` : '',
    min_interpretations: minimum,
  });
  if (!result.ok) return failed(ctx, 'clarify', item, [result]);
  const seen = new Set<string>();
  const questions = result.value.clarified_questions.map((q) => q.trim()).filter((q) => {
    const key = foldForMatching(q);
    if (seen.has(key) || key === foldForMatching(inst.question)) return false;
    seen.add(key);
    return true;
  });
  return transaction(ctx.db, () => {
    if (questions.length < minimum) {
      const given = result.value.clarified_questions.length;
      return remove(
        ctx,
        'clarify',
        inst.id,
        `clarify: ${questions.length} distinct clarified question${questions.length === 1 ? '' : 's'} (of ${given} given; repeats and the original question do not count), fewer than ${minimum}`,
      );
    }
    const provenanceId = provenance(ctx, 'clarify', ctx.config.generator, result.prompt, result.callId);
    questions.forEach((question, position) =>
      insertInterpretation(ctx.db, {
        instanceId: inst.id, position, clarifiedQuestion: question, condition: null, shortAnswer: null, answerAliases: [],
        answerPassageId: null, answerStart: null, answerEnd: null, status: 'active', droppedReason: null,
        questionProvenanceId: provenanceId, conditionProvenanceId: null, answerProvenanceId: null, extra: {},
      }),
    );
    refreshInstanceText(ctx.db, inst.id);
    finish(ctx, 'clarify', inst.id);
    return 'done' as const;
  });
}

// ---- decompose ---------------------------------------------------------------------------------

export async function decompose(ctx: StageContext, inst: InstanceItem): Promise<Outcome> {
  const item = `inst:${inst.id}`;
  const interpretations = active(listInterpretations(ctx.db, inst.id));
  const results = await Promise.all(interpretations.map((r) => ask(ctx, 'decompose', 'decompose', item, ctx.config.generator, { question: r.clarified_question ?? r.condition ?? '' })));
  if (results.some((r) => !r.ok)) return failed(ctx, 'decompose', item, results);
  transaction(ctx.db, () => {
    interpretations.forEach((interpretation, i) => {
      const result = results[i]!;
      if (!result.ok) return;
      const provenanceId = provenance(ctx, 'decompose', ctx.config.generator, result.prompt, result.callId);
      // Sub-questions are stored self-contained: a "#1" the model left is filled in (see fillBridges).
      fillBridges(result.value.sub_questions.map((q) => q.trim())).forEach((question, position) =>
        insertSubQuestion(ctx.db, { interpretation_id: interpretation.id, position, question, answer: null, provenance_id: provenanceId }),
      );
    });
    finish(ctx, 'decompose', inst.id);
  });
  return 'done';
}

// ---- retrieve ----------------------------------------------------------------------------------

const cosine = (a: Float32Array, b: Float32Array) => {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
};

/** Re-ranks pooled evidence by an embeddings endpoint's similarity to the clarified question. */
async function rerankByEndpoint(ctx: StageContext, question: string, rows: EvidenceRow[]): Promise<EvidenceRow[]> {
  const rerank = ctx.config.rerank;
  if (rerank.provider !== 'openai' || rows.length === 0) return rows;
  const passages = getPassages(ctx.db, rows.map((r) => r.passageId));
  const embedder = ctx.llm.embedder(rerank.endpoint, rerank.model, rerank.dimensions);
  const [query, ...vectors] = await embedder.embed([question, ...rows.map((r) => {
    const p = passages.get(r.passageId)!;
    return p.title ? `${p.title}\n${p.text}` : p.text;
  })]);
  return rows
    .map((row, i) => ({ ...row, score: cosine(query!, vectors[i]!) }))
    .sort((a, b) => b.score - a.score || a.rank - b.rank)
    .map((row, i) => ({ ...row, rank: i + 1 }));
}

export async function retrieve(ctx: StageContext, inst: InstanceItem): Promise<Outcome> {
  const item = `inst:${inst.id}`;
  const interpretations = active(listInterpretations(ctx.db, inst.id));
  const subs = listSubQuestions(ctx.db, inst.id);
  const { corpus, mode, k } = ctx.config.retrieval;
  const rerank = ctx.config.rerank;
  const evidenceModel = await ctx.prepareRetrieval();
  const collected: EvidenceRow[][] = [];
  for (const interpretation of interpretations) {
    const request = {
      clarifiedQuestion: interpretation.clarified_question ?? interpretation.condition ?? '',
      // No placeholder reaches a query, even in sub-questions stored before they were filled in.
      subQuestions: fillBridges(subs.filter((s) => s.interpretation_id === interpretation.id).map((s) => s.question)),
      k,
      mode,
      ...(corpus ? { corpus } : {}),
      ...(evidenceModel ? { model: evidenceModel } : {}),
    };
    // Only what the evidence rows need is kept: the ranked passage ids, scores and origins.
    const pooled = await cachedCompute(ctx, 'evidence', request, () => ctx.work.evidence(request));
    if (rerank.provider === 'openai') {
      try {
        collected.push(await cachedCompute(ctx, 'evidence', { ...request, rerank }, () => rerankByEndpoint(ctx, request.clarifiedQuestion, pooled)));
      } catch (error) {
        if (error instanceof AppError && error.code === 'cancelled') throw error;
        return failed(ctx, 'retrieve', item, [{ ok: false, reason: `re-ranking with ${rerank.model} (endpoint ${rerank.endpoint}) failed: ${(error as Error).message}` }]);
      }
    } else {
      collected.push(pooled);
    }
  }
  transaction(ctx.db, () => {
    const reranker = rerank.provider === 'openai' ? `${rerank.endpoint}/${rerank.model}` : (evidenceModel ?? 'the corpus vectors');
    const provenanceId = getOrCreateProvenance(ctx.db, {
      source: 'rule',
      detail: `retrieve: ${mode}, k=${k}, pooled over sub-questions, re-ranked by the clarified question with ${reranker}`,
      model: null,
      promptVersion: null,
      callId: null,
    });
    interpretations.forEach((interpretation, i) => {
      for (const passage of collected[i]!) {
        insertEvidence(ctx.db, { instanceId: inst.id, interpretationId: interpretation.id, rank: passage.rank, passageId: passage.passageId, score: passage.score, origin: passage.origins.join(', '), provenanceId });
      }
    });
    finish(ctx, 'retrieve', inst.id);
  });
  return 'done';
}

// ---- answer ------------------------------------------------------------------------------------

function numbered(passages: { title: string; text: string }[]): string {
  return passages.map((p, i) => `[${i + 1}] ${p.title ? `${p.title}: ` : ''}${p.text}`).join('\n\n');
}

export async function answer(ctx: StageContext, inst: InstanceItem): Promise<Outcome> {
  const item = `inst:${inst.id}`;
  const interpretations = active(listInterpretations(ctx.db, inst.id));
  const evidence = listEvidence(ctx.db, inst.id);
  const passages = getPassages(ctx.db, evidence.map((e) => e.passage_id));
  const subs = listSubQuestions(ctx.db, inst.id);
  const perInterpretation = interpretations.map((r) =>
    evidence
      .filter((e) => e.interpretation_id === r.id)
      .sort((a, b) => a.rank - b.rank)
      .map((e) => passages.get(e.passage_id)!)
      .filter(Boolean),
  );
  const results = await Promise.all(
    interpretations.map((r, i) =>
      ask(ctx, 'short_answer', 'answer', item, ctx.config.generator, {
        question: r.clarified_question ?? r.condition ?? '',
        sub_questions: subs.filter((s) => s.interpretation_id === r.id).map((s, n) => `${n + 1}. ${s.question}`).join('\n') || '(none)',
        passages: numbered(perInterpretation[i]!) || '(no passage was retrieved)',
      }),
    ),
  );
  if (results.some((r) => !r.ok)) return failed(ctx, 'answer', item, results);
  return transaction(ctx.db, () => {
    interpretations.forEach((interpretation, i) => {
      const result = results[i]!;
      if (!result.ok) return;
      const text = result.value.answer.trim();
      if (!text) {
        dropInterpretation(ctx.db, interpretation.id, 'answer: no retrieved passage supports an answer');
        return;
      }
      const list = perInterpretation[i]!;
      const named = result.value.passage;
      // The same check as the instance view's "answer found": word boundaries, NFKC, white space.
      const found = locateInPassages(list, text, named);
      if (!found) {
        const question = interpretation.clarified_question ?? interpretation.condition ?? '';
        const inPrompt = locateAnswer(`${question}\n${inst.question}`, text) ? ' (its words come from the question, not from a passage)' : '';
        dropInterpretation(ctx.db, interpretation.id, `answer: "${text.slice(0, 80)}" is not a span of any retrieved passage${inPrompt}`);
        return;
      }
      const passage = list[found.index]!;
      const fallback = found.inNamed
        ? {}
        : {
            answer_check: {
              named_passage: named,
              found_in_passage: found.index + 1,
              note: named >= 1 && named <= list.length ? `not in passage ${named}, the one the model named; found in passage ${found.index + 1}` : `the model named no retrieved passage (${named}); found in passage ${found.index + 1}`,
            },
          };
      setShortAnswer(ctx.db, interpretation.id, {
        text: passage.text.slice(found.start, found.end),
        passageId: passage.id,
        start: found.start,
        end: found.end,
        provenanceId: provenance(ctx, 'answer', ctx.config.generator, result.prompt, result.callId),
        extra: fallback,
      });
    });
    refreshInstanceText(ctx.db, inst.id);
    const left = active(listInterpretations(ctx.db, inst.id)).length;
    if (left < 2) return remove(ctx, 'answer', inst.id, `answer: ${left} interpretation${left === 1 ? ' has' : 's have'} a supported short answer, fewer than 2`);
    finish(ctx, 'answer', inst.id);
    return 'done' as const;
  });
}

// ---- merge -------------------------------------------------------------------------------------

export async function merge(ctx: StageContext, inst: InstanceItem): Promise<Outcome> {
  const item = `inst:${inst.id}`;
  const interpretations = active(listInterpretations(ctx.db, inst.id));
  const passageIds = [...new Set(interpretations.map((r) => r.answer_passage_id!).filter(Boolean))];
  const passages = getPassages(ctx.db, passageIds);
  const list = passageIds.map((id) => passages.get(id)!);
  const result = await ask(ctx, 'long_answer', 'merge', item, ctx.config.generator, {
    question: inst.question,
    interpretations: interpretations.map((r, i) => `${i + 1}. ${r.clarified_question ?? r.condition} Answer: ${r.short_answer} (passage ${passageIds.indexOf(r.answer_passage_id!) + 1})`).join('\n'),
    passages: numbered(list),
  });
  if (!result.ok) return failed(ctx, 'merge', item, [result]);
  transaction(ctx.db, () => {
    const position = listLongAnswers(ctx.db, inst.id).length;
    const id = insertLongAnswer(ctx.db, inst.id, position, result.value.long_answer.trim(), provenance(ctx, 'merge', ctx.config.generator, result.prompt, result.callId));
    let n = 0;
    const seen = new Set<string>();
    for (const c of result.value.citations) {
      const passageId = passageIds[c.passage - 1];
      const interpretation = interpretations[c.interpretation - 1];
      if (passageId === undefined || seen.has(`${c.interpretation}:${c.passage}`)) continue;
      seen.add(`${c.interpretation}:${c.passage}`);
      insertLongAnswerCitation(ctx.db, { long_answer_id: id, position: n++, passage_id: passageId, interpretation_id: interpretation?.id ?? null, start: null, end: null });
    }
    // The long answer is searchable from now on, not only after a later stage refreshes the row.
    refreshInstanceText(ctx.db, inst.id);
    finish(ctx, 'merge', inst.id);
  });
  return 'done';
}

// ---- shorten -----------------------------------------------------------------------------------

/**
 * Short answers over the limit are shortened by the generator; a shortening that is not a span
 * of the answer's passage, still too long, or no shorter is shown to the model with what is
 * wrong, once. If the second try fails too, the interpretation is removed with the reason (and
 * the instance, when fewer than two remain): no answer over the limit is kept silently.
 */
export async function shorten(ctx: StageContext, inst: InstanceItem): Promise<Outcome> {
  const item = `inst:${inst.id}`;
  const limit = ctx.config.shortenOver;
  const long = active(listInterpretations(ctx.db, inst.id)).filter((r) => r.short_answer && countTokens(r.short_answer) > limit);
  if (long.length === 0) {
    transaction(ctx.db, () => finish(ctx, 'shorten', inst.id));
    return 'done';
  }
  const passages = getPassages(ctx.db, long.map((r) => r.answer_passage_id!));
  type Attempt = { ok: true; text: string; span: { start: number; end: number }; prompt: string; callId: number } | { ok: false; problem: string };
  const attempts = await Promise.all(
    long.map(async (r): Promise<{ attempt: Attempt } | { failure: { ok: false; reason: string; raw: string | null } }> => {
      const passage = passages.get(r.answer_passage_id!);
      const values = { question: r.clarified_question ?? r.condition ?? '', answer: r.short_answer!, passage: passage?.text ?? '', max_tokens: limit };
      // The shortened span, inside the current answer's span where it is there, else anywhere in the passage.
      const find = (candidate: string): { start: number; end: number } | null => {
        if (!passage) return null;
        if (r.answer_start !== null && r.answer_end !== null) {
          const inner = locateAnswer(passage.text.slice(r.answer_start, r.answer_end), candidate);
          if (inner) return { start: r.answer_start + inner.start, end: r.answer_start + inner.end };
        }
        return locateAnswer(passage.text, candidate);
      };
      const check = (candidate: string): { problem: string | null; span: { start: number; end: number } | null } => {
        const span = find(candidate);
        return { problem: shorteningProblem(candidate, r.short_answer!, limit, span !== null), span };
      };
      let result = await ask(ctx, 'shorten', 'shorten', item, ctx.config.generator, values);
      if (!result.ok) return { failure: result };
      let { problem, span } = check(result.value.answer.trim());
      if (problem) {
        // One more try, with the failure shown.
        const first = result;
        result = await ask(ctx, 'shorten', 'shorten', item, ctx.config.generator, values, [
          { role: 'assistant', content: JSON.stringify(first.value) },
          { role: 'user', content: `That cannot be used: ${problem}. Give a span of the passage, copied exactly, of at most ${limit} words.` },
        ]);
        if (!result.ok) return { failure: result };
        const second = check(result.value.answer.trim());
        if (second.problem) return { attempt: { ok: false, problem: `shortened twice without success: first ${problem}; then ${second.problem}` } };
        ({ problem, span } = second);
      }
      return { attempt: { ok: true, text: result.value.answer.trim(), span: span!, prompt: result.prompt, callId: result.callId } };
    }),
  );
  const failures = attempts.flatMap((a) => ('failure' in a ? [a.failure] : []));
  if (failures.length) return failed(ctx, 'shorten', item, failures);
  return transaction(ctx.db, () => {
    long.forEach((interpretation, i) => {
      const outcome = attempts[i]!;
      if (!('attempt' in outcome)) return;
      const attempt = outcome.attempt;
      if (!attempt.ok) {
        dropInterpretation(ctx.db, interpretation.id, `shorten: the answer has ${countTokens(interpretation.short_answer!)} tokens, more than ${limit}, and was ${attempt.problem}`);
        return;
      }
      const passage = passages.get(interpretation.answer_passage_id!)!;
      setShortAnswer(ctx.db, interpretation.id, {
        text: passage.text.slice(attempt.span.start, attempt.span.end),
        passageId: passage.id,
        start: attempt.span.start,
        end: attempt.span.end,
        provenanceId: provenance(ctx, 'shorten', ctx.config.generator, attempt.prompt, attempt.callId),
        extra: { shortened_from: interpretation.short_answer },
      });
    });
    refreshInstanceText(ctx.db, inst.id);
    const left = active(listInterpretations(ctx.db, inst.id)).length;
    if (left < 2) return remove(ctx, 'shorten', inst.id, `shorten: ${left} interpretation${left === 1 ? ' has' : 's have'} a short answer of at most ${limit} tokens, fewer than 2`);
    finish(ctx, 'shorten', inst.id);
    return 'done' as const;
  });
}

// ---- collide -----------------------------------------------------------------------------------

/**
 * Interpretations whose short answers are the same after normalisation: the later one of each
 * pair is removed, with the reason; the instance is removed only when fewer than two distinct
 * answers remain (with two interpretations, any collision removes it).
 */
export function collide(ctx: StageContext, inst: InstanceItem): Outcome {
  const interpretations = active(listInterpretations(ctx.db, inst.id));
  const { collisions, distinct } = planCollisions(interpretations.map((r) => ({ position: r.position, answer: r.short_answer })));
  return transaction(ctx.db, () => {
    if (distinct < 2) {
      const pairs = collisions.map((c) => `interpretations ${c.sameAs + 1} and ${c.position + 1} have the same short answer after normalisation ("${c.answer}")`);
      return remove(ctx, 'collide', inst.id, `collide: ${pairs.join('; ')}; fewer than 2 distinct answers remain`);
    }
    for (const c of collisions) {
      const interpretation = interpretations.find((r) => r.position === c.position)!;
      dropInterpretation(ctx.db, interpretation.id, `collide: the same short answer as interpretation ${c.sameAs + 1} after normalisation ("${c.answer}")`);
    }
    if (collisions.length) refreshInstanceText(ctx.db, inst.id);
    finish(ctx, 'collide', inst.id);
    return 'done' as const;
  });
}

// ---- filter ------------------------------------------------------------------------------------

export async function filter(ctx: StageContext, inst: InstanceItem): Promise<Outcome> {
  const item = `inst:${inst.id}`;
  const interpretations = active(listInterpretations(ctx.db, inst.id));
  const passages = getPassages(ctx.db, interpretations.map((r) => r.answer_passage_id!));
  const long = listLongAnswers(ctx.db, inst.id).at(-1)?.text ?? '(none)';
  const values = {
    question: inst.question,
    type: inst.ambiguity_type,
    interpretations: interpretations
      .map((r, i) => `Interpretation ${i + 1}: ${r.clarified_question ?? r.condition}\nShort answer: ${r.short_answer}\nSupporting passage: ${passages.get(r.answer_passage_id!)?.text ?? '(missing)'}`)
      .join('\n\n'),
    long_answer: long,
  };
  const results = await Promise.all(ctx.config.filters.map((ref) => ask(ctx, 'filter', 'filter', item, ref, values).then((result) => ({ ref, result }))));
  if (results.some((r) => !r.result.ok)) return failed(ctx, 'filter', item, results.map((r) => r.result));
  return transaction(ctx.db, () => {
    const against: string[] = [];
    for (const { ref, result } of results) {
      if (!result.ok) continue;
      upsertFilterVote(ctx.db, inst.id, { model: modelName(ref), verdict: result.value.aligned ? 'aligned' : 'misaligned', reason: result.value.reason, provenanceId: provenance(ctx, 'filter', ref, result.prompt, result.callId) });
      if (!result.value.aligned) against.push(`${modelName(ref)}: ${result.value.reason}`);
    }
    const aligned = results.length - against.length;
    if (!passes(ctx.config.filter.rule, aligned, results.length)) return remove(ctx, 'filter', inst.id, `filter: ${against.length} of ${results.length} filter models judged it misaligned (${against.join(' | ').slice(0, 400)})`);
    readyInstance(ctx.db, inst.id);
    markItem(ctx.db, 'filter', item, 'done', ctx.runId);
    return 'done' as const;
  });
}
