import { getBaseQuestionPassages } from '../../../db/queries/base-questions';
import { insertDraftedRound } from '../../../db/queries/construction-rounds';
import { insertEvidence, listEvidence } from '../../../db/queries/evidence';
import { insertInstance, refreshInstanceText } from '../../../db/queries/instances';
import { deleteInterpretations, insertInterpretation, insertInterpretationCitation } from '../../../db/queries/interpretations';
import { itemUsage } from '../../../db/queries/llm-calls';
import { getPassages } from '../../../db/queries/passages';
import { markItem } from '../../../db/queries/pipeline-items';
import { transaction } from '../../../db/sql';
import { citationProblems, citedFragments, draftProblem, mergeTuples, type ConstructionConfig, type Draft, type Tuple } from '../../../shared/construction';
import type { SchemaOutput } from '../../../shared/pipeline';
import { askPrompt, llmProvenance, type PromptContext, type PromptResult } from '../pipeline/prompt-call';

/**
 * One round's draft of one item, CondAmbigQA's three steps (paper 003, §3.3): the generator
 * drafts the interpretations from the question's frozen fragments (with the reviewers' feedback
 * from round 2 on), checks their ambiguity and evidence, and turns each into a condition with its
 * answers and citations. Conditions that read the same are merged by rule. Every fragment number
 * is checked against the list; a step that cites outside it is asked once more, naming the
 * problem, and the item fails the round if it still does. Nothing is written until the third step
 * is through: then the instance's interpretations, citations and the round's row go in together.
 */

export interface RoundContext extends PromptContext {
  config: ConstructionConfig;
}

export interface DraftItem {
  baseQuestionId: number;
  datasetId: number;
  question: string;
  hops: number | null;
  /** null in round 1: the instance is made with the draft. */
  instanceId: number | null;
  round: number;
  previous: { draft: Draft; feedback: string } | null;
}

interface Fragment {
  passageId: number;
  title: string;
  text: string;
}

type Step = 'condition_draft' | 'condition_check' | 'condition_cite';

class StepFailure extends Error {
  constructor(
    message: string,
    readonly raw: string | null,
  ) {
    super(message);
  }
}

function fragmentsOf(ctx: RoundContext, item: DraftItem): Fragment[] {
  const rows =
    item.instanceId === null
      ? getBaseQuestionPassages(ctx.db, item.baseQuestionId).map((p) => ({ passage_id: p.passage_id }))
      : listEvidence(ctx.db, item.instanceId).filter((e) => e.interpretation_id === null);
  const passages = getPassages(ctx.db, rows.map((r) => r.passage_id));
  return rows.map((r) => ({ passageId: r.passage_id, title: passages.get(r.passage_id)!.title, text: passages.get(r.passage_id)!.text }));
}

const numbered = (fragments: readonly Fragment[]) => fragments.map((f, i) => `[${i + 1}] ${f.title ? `${f.title}: ` : ''}${f.text}`).join('\n\n');
const cites = (numbers: readonly number[]) => (numbers.length ? ` [${numbers.join(', ')}]` : '');

/** The rejected round, as the model sees it again: its tuples and what the reviewers said. */
export function revisionText(previous: DraftItem['previous'], round: number): string {
  if (!previous) return '';
  const tuples = previous.draft.tuples.map((t, i) => `${i + 1}. Condition: ${t.condition}\n   Answers: ${t.answers.join('; ') || '(none)'}\n   Citations:${cites(t.citations) || ' none'}`).join('\n');
  return `\nYour tuples from round ${round - 1}:\n${tuples}\n\nReviewer feedback:\n${previous.feedback}\n\nRevise the tuples so that the feedback is answered.\n`;
}

function interpretationText(i: SchemaOutput<'condition_draft'>['interpretations'][number], n: number): string {
  const lines = [`Interpretation ${n}:`];
  for (const p of i.preconditions) lines.push(`- precondition: ${p.text}${cites(p.fragments)}`);
  for (const a of i.answers) lines.push(`- answer: ${a.text}${cites(a.fragments)}`);
  return lines.join('\n');
}

/** A step's call, its fragment numbers checked; one more ask that names the problem, then failure. */
async function askChecked<S extends Step>(
  ctx: RoundContext,
  step: S,
  item: string,
  values: Record<string, string | number>,
  problems: (value: SchemaOutput<S>) => string[],
  calls: number[],
): Promise<{ value: SchemaOutput<S>; result: PromptResult<S>; callId: number }> {
  let result = await askPrompt(ctx, step, 'round', item, ctx.config.generator, values);
  for (let attempt = 0; ; attempt++) {
    if (result.callId !== null) calls.push(result.callId);
    if (!result.ok) throw new StepFailure(`${step}: ${result.reason}`, result.raw);
    const found = problems(result.value as SchemaOutput<S>);
    if (found.length === 0) return { value: result.value as SchemaOutput<S>, result, callId: result.callId };
    if (attempt === 1) throw new StepFailure(found.slice(0, 3).join('; '), JSON.stringify(result.value));
    result = await askPrompt(ctx, step, 'round', item, ctx.config.generator, values, [
      { role: 'assistant', content: JSON.stringify(result.value) },
      { role: 'user', content: `That answer cannot be used: ${found.slice(0, 3).join('; ')}. Cite only fragments by their numbers in the list, and reply again with the whole JSON object.` },
    ]);
  }
}

/** Drafts one item's round and writes it; 'failed' marks the item with the reason, nothing else written. */
export async function draftRound(ctx: RoundContext, item: DraftItem): Promise<'done' | 'failed'> {
  const key = item.instanceId === null ? `bq:${item.baseQuestionId}` : `inst:${item.instanceId}`;
  const fragments = fragmentsOf(ctx, item);
  const calls: number[] = [];
  let drafted: Awaited<ReturnType<typeof threeSteps>>;
  try {
    drafted = await threeSteps(ctx, item, key, fragments, calls);
  } catch (error) {
    if (!(error instanceof StepFailure)) throw error;
    markItem(ctx.db, 'round', key, 'failed', ctx.runId, `round ${item.round}: ${error.message}`, error.raw);
    return 'failed';
  }
  const problem = draftProblem(drafted.tuples, ctx.config.construction.minInterpretations);
  if (problem) {
    markItem(ctx.db, 'round', key, 'failed', ctx.runId, `round ${item.round}: ${problem}`, JSON.stringify(drafted.tuples));
    return 'failed';
  }
  writeDraft(ctx, item, fragments, drafted, calls);
  return 'done';
}

async function threeSteps(ctx: RoundContext, item: DraftItem, key: string, fragments: Fragment[], calls: number[]) {
  const n = fragments.length;
  const base = { question: item.question, fragments: numbered(fragments) };
  const revision = revisionText(item.previous, item.round);
  const step1 = await askChecked(ctx, 'condition_draft', key, { ...base, revision, min_interpretations: ctx.config.construction.minInterpretations }, (v) =>
    citationProblems('condition_draft', n, citedFragments('condition_draft', v)), calls);
  const interpretations = step1.value.interpretations;
  const step2 = await askChecked(ctx, 'condition_check', key, { ...base, interpretations: interpretations.map((i, k) => interpretationText(i, k + 1)).join('\n\n') }, (v) => [
    ...citationProblems('condition_check', n, citedFragments('condition_check', v)),
    ...[...v.assessments.map((a) => a.interpretation), ...v.ambiguity_points.flatMap((p) => p.impacts.map((x) => x.interpretation))]
      .filter((k) => k > interpretations.length)
      .map((k) => `condition_check: names interpretation ${k}; there are ${interpretations.length}`),
  ], calls);
  const settled = await Promise.allSettled(
    interpretations.map((interpretation, k) =>
      askChecked(ctx, 'condition_cite', key, { ...base, revision, interpretation: interpretationText(interpretation, k + 1) }, (v) =>
        citationProblems('condition_cite', n, [{ where: `interpretation ${k + 1}`, fragments: v.citations }]), calls),
    ),
  );
  // The first interpretation's failure is the one reported, whichever call ended first.
  const refused = settled.find((r) => r.status === 'rejected');
  if (refused) throw refused.reason;
  const step3 = settled.map((r) => (r as PromiseFulfilledResult<Awaited<ReturnType<typeof askChecked<'condition_cite'>>>>).value);
  const told = new Set(step2.value.ambiguity_points.flatMap((p) => p.impacts.map((x) => x.interpretation)));
  const low = new Set(step2.value.assessments.filter((a) => a.credibility === 'low').map((a) => a.interpretation));
  const flags = [
    ...interpretations.map((_, k) => k + 1).filter((k) => !told.has(k)).map((k) => `interpretation ${k}: no ambiguity point tells it apart`),
    ...[...low].map((k) => `interpretation ${k}: rated of low credibility`),
  ];
  let tuples = mergeTuples(
    step3.map(({ value, result, callId }, k) => ({
      condition: value.condition,
      answers: value.answers,
      citations: value.citations,
      preconditions: interpretations[k]!.preconditions.map((p) => p.text),
      statements: interpretations[k]!.answers.map((a) => a.text),
      reason: value.reason,
      lowCredibility: low.has(k + 1),
      call: { prompt: result.prompt, callId },
    })),
  ) as (Tuple & { call: { prompt: string; callId: number } })[];
  if (ctx.config.construction.dropLow) tuples = tuples.filter((t) => !t.lowCredibility);
  const versions = { condition_draft: step1.result.prompt, condition_check: step2.result.prompt, condition_cite: step3[0]?.result.prompt ?? '' };
  return { tuples, flags, check: step2.value, versions };
}

function writeDraft(ctx: RoundContext, item: DraftItem, fragments: Fragment[], drafted: Awaited<ReturnType<typeof threeSteps>>, calls: number[]): void {
  // Cost and model time of this round's calls (a cached answer counts what it cost when it was made).
  const usage = itemUsage(ctx.db, '\u0000', calls);
  transaction(ctx.db, () => {
    let instanceId = item.instanceId;
    if (instanceId === null) {
      instanceId = insertInstance(ctx.db, {
        baseQuestionId: item.baseQuestionId,
        datasetId: item.datasetId,
        ambiguityType: 'unspecified',
        status: 'building',
        stage: 'imported',
        removedStage: null,
        removedReason: null,
        hops: item.hops,
        interpretationCount: 0,
        extra: {},
        construction: 'condambigqa',
      });
      fragments.forEach((f, i) => insertEvidence(ctx.db, { instanceId: instanceId!, interpretationId: null, rank: i + 1, passageId: f.passageId, score: null, origin: 'frozen', provenanceId: null }));
    } else deleteInterpretations(ctx.db, instanceId);
    const frozen = new Map(listEvidence(ctx.db, instanceId).filter((e) => e.interpretation_id === null).map((e) => [e.rank, e.id]));
    drafted.tuples.forEach((t, position) => {
      const provenanceId = llmProvenance(ctx, 'round', ctx.config.generator, t.call.prompt, t.call.callId);
      const id = insertInterpretation(ctx.db, {
        instanceId: instanceId!, position, clarifiedQuestion: null, condition: t.condition, shortAnswer: t.answers[0]!, answerAliases: t.answers.slice(1),
        answerPassageId: null, answerStart: null, answerEnd: null, status: 'active', droppedReason: null,
        questionProvenanceId: null, conditionProvenanceId: provenanceId, answerProvenanceId: provenanceId,
        extra: { preconditions: t.preconditions, statements: t.statements, reason: t.reason, low_credibility: t.lowCredibility },
      });
      t.citations.forEach((rank, p) => insertInterpretationCitation(ctx.db, id, p, frozen.get(rank)!));
    });
    insertDraftedRound(ctx.db, instanceId, item.round, ctx.runId, {
      draft: { tuples: drafted.tuples.map(({ call: _, ...t }) => t), flags: drafted.flags } satisfies Draft,
      check: drafted.check,
      promptVersions: drafted.versions,
      calls: usage.calls,
      promptTokens: usage.promptTokens,
      completionTokens: usage.completionTokens,
      costUsd: usage.costUsd,
      llmMs: usage.latencyMs,
    });
    refreshInstanceText(ctx.db, instanceId);
    markItem(ctx.db, 'round', `inst:${instanceId}`, 'done', ctx.runId, `round ${item.round} drafted`);
    if (item.instanceId === null) markItem(ctx.db, 'round', `bq:${item.baseQuestionId}`, 'done', ctx.runId, `round 1 drafted as inst:${instanceId}`);
  });
}
