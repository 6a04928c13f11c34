import { createHash } from 'node:crypto';
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
import { AMBIGUITY_TYPE_DEFINITIONS, type AmbiguityType, type PipelineStage } from '../../../shared/domain';
import type { DetectableType, ModelRef, PipelineConfig, PromptTemplate, SchemaName, SchemaOutput, VoteRule } from '../../../shared/pipeline';
import { countTokens, findSpan, normalizeAnswer } from '../../../shared/text';
import type { Retriever } from '../retrieval/search';
import type { LlmClient, LlmResult } from './llm';
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
  prompts: Map<SchemaName, PromptTemplate>;
  runId: number;
  retriever: Retriever;
  /** Cues and evidence, computed off this thread where possible. */
  work: Pick<RetrievalWork, 'cues' | 'evidence'>;
  corpusId: number | null;
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
  const hash = createHash('sha256').update(JSON.stringify(request)).digest('hex');
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

async function ask<K extends SchemaName>(ctx: StageContext, schema: K, stage: PipelineStage, item: string, ref: ModelRef, values: Record<string, string | number>): Promise<LlmResult<SchemaOutput<K>> & { prompt: string }> {
  const prompt = ctx.prompts.get(schema)!;
  const result = await ctx.llm.ask({
    schema,
    stage,
    item,
    ref,
    messages: [
      { role: 'system', content: render(prompt.system, values) },
      { role: 'user', content: render(prompt.user, values) },
    ],
  });
  return { ...result, prompt: promptVersion(prompt) };
}

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
        values.total_hits = cues.total_hits;
        values.kl_divergence = cues.kl_divergence === null ? 'undefined (no passages)' : cues.kl_divergence.toFixed(3);
        values.relax_delta_ratio = cues.relax_delta_ratio.toFixed(2);
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

const TYPE_HINTS: Record<DetectableType, string> = {
  semantic: 'an expression with several referents or senses',
  syntactic: 'a structure that parses in more than one way',
  constraint: 'constraints so specific that the intent is unclear; broaden them into faithful variants',
};

export async function clarify(ctx: StageContext, inst: InstanceItem): Promise<Outcome> {
  const item = `inst:${inst.id}`;
  const notes = detectionVotes(ctx.db, inst.base_question_id)
    .filter((v) => v.ambiguity_type === inst.ambiguity_type && v.verdict === 'yes')
    .map((v) => `- ${v.reason}${v.phenomena !== '[]' ? ` (phenomena ${JSON.parse(v.phenomena as string).join(', ')})` : ''}`);
  const result = await ask(ctx, 'clarify', 'clarify', item, ctx.config.generator, {
    question: inst.question,
    type: inst.ambiguity_type,
    type_hint: TYPE_HINTS[inst.ambiguity_type as DetectableType] ?? AMBIGUITY_TYPE_DEFINITIONS[inst.ambiguity_type],
    detector_notes: notes.length ? `What the detectors noticed:\n${notes.join('\n')}` : '',
    min_readings: ctx.config.clarify.minReadings,
  });
  if (!result.ok) return failed(ctx, 'clarify', item, [result]);
  const seen = new Set<string>();
  const questions = result.value.clarified_questions.map((q) => q.trim()).filter((q) => {
    const key = normalizeAnswer(q);
    if (seen.has(key) || key === normalizeAnswer(inst.question)) return false;
    seen.add(key);
    return true;
  });
  return transaction(ctx.db, () => {
    if (questions.length < ctx.config.clarify.minReadings) {
      return remove(ctx, 'clarify', inst.id, `clarify: ${questions.length} distinct clarified question${questions.length === 1 ? '' : 's'}, fewer than ${ctx.config.clarify.minReadings}`);
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
  const readings = active(listInterpretations(ctx.db, inst.id));
  const results = await Promise.all(readings.map((r) => ask(ctx, 'decompose', 'decompose', item, ctx.config.generator, { question: r.clarified_question ?? r.condition ?? '' })));
  if (results.some((r) => !r.ok)) return failed(ctx, 'decompose', item, results);
  transaction(ctx.db, () => {
    readings.forEach((reading, i) => {
      const result = results[i]!;
      if (!result.ok) return;
      const provenanceId = provenance(ctx, 'decompose', ctx.config.generator, result.prompt, result.callId);
      result.value.sub_questions.forEach((question, position) => insertSubQuestion(ctx.db, { interpretation_id: reading.id, position, question: question.trim(), answer: null, provenance_id: provenanceId }));
    });
    finish(ctx, 'decompose', inst.id);
  });
  return 'done';
}

// ---- retrieve ----------------------------------------------------------------------------------

export async function retrieve(ctx: StageContext, inst: InstanceItem): Promise<Outcome> {
  const readings = active(listInterpretations(ctx.db, inst.id));
  const subs = listSubQuestions(ctx.db, inst.id);
  const { corpus, mode, k } = ctx.config.retrieval;
  const collected: EvidenceRow[][] = [];
  for (const reading of readings) {
    const request = {
      clarifiedQuestion: reading.clarified_question ?? reading.condition ?? '',
      subQuestions: subs.filter((s) => s.interpretation_id === reading.id).map((s) => s.question),
      k,
      mode,
      ...(corpus ? { corpus } : {}),
    };
    // Only what the evidence rows need is kept: the ranked passage ids, scores and origins.
    collected.push(await cachedCompute(ctx, 'evidence', request, () => ctx.work.evidence(request)));
  }
  transaction(ctx.db, () => {
    const provenanceId = getOrCreateProvenance(ctx.db, { source: 'rule', detail: `retrieve: ${mode}, k=${k}, pooled over sub-questions, re-ranked by the clarified question`, model: null, promptVersion: null, callId: null });
    readings.forEach((reading, i) => {
      for (const passage of collected[i]!) {
        insertEvidence(ctx.db, { instanceId: inst.id, interpretationId: reading.id, rank: passage.rank, passageId: passage.passageId, score: passage.score, origin: passage.origins.join(', '), provenanceId });
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

/** The answer as a span of a passage: the one the model named first, then any other. */
export function locateAnswer(answer: string, passages: readonly { id: number; text: string }[], named: number): { passageId: number; start: number; end: number } | null {
  const order = named >= 1 && named <= passages.length ? [passages[named - 1]!, ...passages.filter((_, i) => i !== named - 1)] : passages;
  for (const passage of order) {
    const span = findSpan(passage.text, answer);
    if (span) return { passageId: passage.id, ...span };
  }
  return null;
}

export async function answer(ctx: StageContext, inst: InstanceItem): Promise<Outcome> {
  const item = `inst:${inst.id}`;
  const readings = active(listInterpretations(ctx.db, inst.id));
  const evidence = listEvidence(ctx.db, inst.id);
  const passages = getPassages(ctx.db, evidence.map((e) => e.passage_id));
  const subs = listSubQuestions(ctx.db, inst.id);
  const perReading = readings.map((r) =>
    evidence
      .filter((e) => e.interpretation_id === r.id)
      .sort((a, b) => a.rank - b.rank)
      .map((e) => passages.get(e.passage_id)!)
      .filter(Boolean),
  );
  const results = await Promise.all(
    readings.map((r, i) =>
      ask(ctx, 'short_answer', 'answer', item, ctx.config.generator, {
        question: r.clarified_question ?? r.condition ?? '',
        sub_questions: subs.filter((s) => s.interpretation_id === r.id).map((s, n) => `${n + 1}. ${s.question}`).join('\n') || '(none)',
        passages: numbered(perReading[i]!) || '(no passage was retrieved)',
      }),
    ),
  );
  if (results.some((r) => !r.ok)) return failed(ctx, 'answer', item, results);
  return transaction(ctx.db, () => {
    readings.forEach((reading, i) => {
      const result = results[i]!;
      if (!result.ok) return;
      const text = result.value.answer.trim();
      if (!text || result.value.passage === 0) {
        dropInterpretation(ctx.db, reading.id, 'answer: no retrieved passage supports an answer');
        return;
      }
      const span = locateAnswer(text, perReading[i]!, result.value.passage);
      if (!span) {
        dropInterpretation(ctx.db, reading.id, `answer: "${text.slice(0, 80)}" is not a span of any retrieved passage`);
        return;
      }
      const passage = passages.get(span.passageId)!;
      setShortAnswer(ctx.db, reading.id, { text: passage.text.slice(span.start, span.end), passageId: span.passageId, start: span.start, end: span.end, provenanceId: provenance(ctx, 'answer', ctx.config.generator, result.prompt, result.callId) });
    });
    refreshInstanceText(ctx.db, inst.id);
    const left = active(listInterpretations(ctx.db, inst.id)).length;
    if (left < 2) return remove(ctx, 'answer', inst.id, `answer: ${left} reading${left === 1 ? ' has' : 's have'} a supported short answer, fewer than 2`);
    finish(ctx, 'answer', inst.id);
    return 'done' as const;
  });
}

// ---- merge -------------------------------------------------------------------------------------

export async function merge(ctx: StageContext, inst: InstanceItem): Promise<Outcome> {
  const item = `inst:${inst.id}`;
  const readings = active(listInterpretations(ctx.db, inst.id));
  const passageIds = [...new Set(readings.map((r) => r.answer_passage_id!).filter(Boolean))];
  const passages = getPassages(ctx.db, passageIds);
  const list = passageIds.map((id) => passages.get(id)!);
  const result = await ask(ctx, 'long_answer', 'merge', item, ctx.config.generator, {
    question: inst.question,
    readings: readings.map((r, i) => `${i + 1}. ${r.clarified_question ?? r.condition} Answer: ${r.short_answer} (passage ${passageIds.indexOf(r.answer_passage_id!) + 1})`).join('\n'),
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
      const reading = readings[c.reading - 1];
      if (passageId === undefined || seen.has(`${c.reading}:${c.passage}`)) continue;
      seen.add(`${c.reading}:${c.passage}`);
      insertLongAnswerCitation(ctx.db, { long_answer_id: id, position: n++, passage_id: passageId, interpretation_id: reading?.id ?? null, start: null, end: null });
    }
    finish(ctx, 'merge', inst.id);
  });
  return 'done';
}

// ---- shorten -----------------------------------------------------------------------------------

export async function shorten(ctx: StageContext, inst: InstanceItem): Promise<Outcome> {
  const item = `inst:${inst.id}`;
  const long = active(listInterpretations(ctx.db, inst.id)).filter((r) => r.short_answer && countTokens(r.short_answer) > ctx.config.shortenOver);
  const passages = getPassages(ctx.db, long.map((r) => r.answer_passage_id!));
  const results = await Promise.all(
    long.map((r) =>
      ask(ctx, 'shorten', 'shorten', item, ctx.config.generator, {
        question: r.clarified_question ?? r.condition ?? '',
        answer: r.short_answer!,
        passage: passages.get(r.answer_passage_id!)?.text ?? '',
        max_tokens: ctx.config.shortenOver,
      }),
    ),
  );
  if (results.some((r) => !r.ok)) return failed(ctx, 'shorten', item, results);
  transaction(ctx.db, () => {
    long.forEach((reading, i) => {
      const result = results[i]!;
      if (!result.ok) return;
      const passage = passages.get(reading.answer_passage_id!);
      const span = passage ? findSpan(passage.text, result.value.answer) : null;
      // A shortening that is not a span of the passage is not used: the checked long answer stays.
      if (!passage || !span || countTokens(result.value.answer) >= countTokens(reading.short_answer!)) return;
      setShortAnswer(ctx.db, reading.id, { text: passage.text.slice(span.start, span.end), passageId: passage.id, start: span.start, end: span.end, provenanceId: provenance(ctx, 'shorten', ctx.config.generator, result.prompt, result.callId) });
    });
    refreshInstanceText(ctx.db, inst.id);
    finish(ctx, 'shorten', inst.id);
  });
  return 'done';
}

// ---- collide -----------------------------------------------------------------------------------

export function collide(ctx: StageContext, inst: InstanceItem): Outcome {
  const readings = active(listInterpretations(ctx.db, inst.id));
  const byAnswer = new Map<string, number>();
  for (const reading of readings) {
    const key = normalizeAnswer(reading.short_answer ?? '');
    const earlier = byAnswer.get(key);
    if (earlier !== undefined) {
      return transaction(ctx.db, () => remove(ctx, 'collide', inst.id, `collide: readings ${earlier + 1} and ${reading.position + 1} have the same short answer after normalisation ("${key}")`));
    }
    byAnswer.set(key, reading.position);
  }
  transaction(ctx.db, () => finish(ctx, 'collide', inst.id));
  return 'done';
}

// ---- filter ------------------------------------------------------------------------------------

export async function filter(ctx: StageContext, inst: InstanceItem): Promise<Outcome> {
  const item = `inst:${inst.id}`;
  const readings = active(listInterpretations(ctx.db, inst.id));
  const passages = getPassages(ctx.db, readings.map((r) => r.answer_passage_id!));
  const long = listLongAnswers(ctx.db, inst.id).at(-1)?.text ?? '(none)';
  const values = {
    question: inst.question,
    type: inst.ambiguity_type,
    readings: readings
      .map((r, i) => `Reading ${i + 1}: ${r.clarified_question ?? r.condition}\nShort answer: ${r.short_answer}\nSupporting passage: ${passages.get(r.answer_passage_id!)?.text ?? '(missing)'}`)
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
