import { z } from 'zod';
import {
  AMBIGUITY_TYPES,
  ANSWERABILITY_LABELS,
  CONSTRUCTION_MODES,
  DECOMPOSITION_STYLES,
  DOMAIN_SLUGS,
  LABEL_KINDS,
  DETECTION_VERDICTS,
  FILTER_VERDICTS,
  INSTANCE_STAGES,
  INSTANCE_STATUSES,
  INTERPRETATION_STATUSES,
  PROVENANCE_SOURCES,
  ROUND_STATUSES,
} from './domain';

/**
 * `awb-instance/1`: the workbench's own interchange format, one JSON object per line. Export
 * writes it, import reads it, and every other importer converts its source records into it
 * before they reach the database, so there is exactly one writer.
 *
 * A record carries one base question and at most one instance of it (a base question with no
 * instance yet is written with `instance: null`). Passages are listed once per record under
 * `passages` and referred to by their record-local `id`. The JSON Schema in
 * `resources/schema/awb-instance-1.schema.json` is generated from these definitions.
 */

export const AWB_FORMAT = 'awb-instance/1';

/** A string with something besides white space in it, kept exactly as given (never trimmed). */
export function nonBlank() {
  return z.string().refine((s) => s.trim() !== '', { message: 'must not be empty' });
}

const text = z.string();
const nonEmpty = nonBlank();
const passageRef = z.string().min(1).describe('The `id` of an entry in this record\'s `passages`.');
const extra = z.record(z.string(), z.unknown()).default({}).describe('Source-specific fields kept as they came.');

export const AwbProvenance = z
  .object({
    source: z.enum(PROVENANCE_SOURCES),
    detail: z.string().default('').describe('Dataset name, rule name or annotator, depending on the source.'),
    model: z.string().nullable().default(null),
    prompt_version: z.string().nullable().default(null),
    call: z.string().nullable().default(null).describe('Content hash of the LLM call that produced the field.'),
  })
  .strict();

export const AwbPassage = z
  .object({
    id: nonEmpty,
    corpus: nonEmpty.describe('The corpus the passage belongs to.'),
    source_id: z.string().nullable().default(null),
    title: text,
    text: nonEmpty,
  })
  .strict();

export const AwbDataset = z
  .object({
    name: nonEmpty.max(200),
    source_format: nonEmpty,
    description: z.string().default(''),
    licence: z.string().default(''),
    attribution: z.string().default(''),
    url: z.string().default(''),
  })
  .strict();

export const AwbDecompositionStep = z
  .object({
    source_id: z.string().nullable().default(null),
    question: nonEmpty,
    answer: z.string().nullable().default(null),
    style: z.enum(DECOMPOSITION_STYLES),
    support: z.number().int().min(0).nullable().default(null).describe('Index into base_question.paragraphs.'),
  })
  .strict();

/** One detector's vote on one ambiguity type of a base question (the pipeline's detect stage). */
export const AwbDetectionVote = z
  .object({
    ambiguity_type: z.enum(['semantic', 'syntactic', 'constraint']),
    model: nonEmpty,
    verdict: z.enum(DETECTION_VERDICTS).describe('not_needed: the detector was not asked, because the votes given already decided the type.'),
    phenomena: z.array(z.number().int().min(1).max(18)).default([]).describe('Syntactic phenomena named by the detector (1-18).'),
    reason: z.string().default(''),
    provenance: AwbProvenance.nullable().default(null),
  })
  .strict();

/** One labelling model's vote on a base question's answerability or topic (the labelling stage). */
export const AwbLabelVote = z
  .object({
    kind: z.enum(LABEL_KINDS),
    model: nonEmpty,
    verdict: z.enum(['voted', 'not_needed']).describe('not_needed: the outcome was decided before this model was asked.'),
    label: z.string().nullable().default(null),
    reason: z.string().default(''),
    provenance: AwbProvenance.nullable().default(null),
  })
  .strict()
  .refine((v) => (v.verdict === 'voted') === (v.label !== null), { message: 'a vote has a label exactly when it was cast' });

const answerability = z.enum(ANSWERABILITY_LABELS).describe('URASys: answerable, ambiguous or unanswerable.');

export const AwbBaseQuestion = z
  .object({
    source_id: nonEmpty,
    question: nonEmpty,
    hops: z.number().int().min(1).nullable().default(null),
    answer: z.string().nullable().default(null),
    aliases: z.array(z.string()).default([]),
    answerable: z.boolean().nullable().default(null),
    decomposition: z.array(AwbDecompositionStep).default([]),
    paragraphs: z.array(z.object({ passage: passageRef, is_supporting: z.boolean() }).strict()).default([]),
    detection_votes: z.array(AwbDetectionVote).optional().describe("Every detector's vote, per ambiguity type, from the construction pipeline (absent: none)."),
    answerability: answerability.optional().describe('Absent: not labelled.'),
    answerability_provenance: AwbProvenance.nullable().optional(),
    label_votes: z.array(AwbLabelVote).optional().describe("The labelling stage's votes (absent: none)."),
    extra,
  })
  .strict();

export const AwbEvidence = z
  .object({
    passage: passageRef,
    rank: z.number().int().min(1),
    score: z.number().nullable().default(null),
    origin: z.string().default(''),
    provenance: AwbProvenance.nullable().default(null),
  })
  .strict();

export const AwbShortAnswer = z
  .object({
    text: nonEmpty,
    aliases: z.array(z.string()).default([]),
    passage: passageRef.nullable().default(null),
    start: z.number().int().min(0).nullable().default(null),
    end: z.number().int().min(0).nullable().default(null),
    provenance: AwbProvenance.nullable().default(null),
  })
  .strict()
  .refine((a) => (a.start === null) === (a.end === null), { message: 'start and end must be given together' })
  .refine((a) => a.start === null || a.passage !== null, { message: 'a span needs its passage' })
  .refine((a) => a.start === null || a.end === null || a.end >= a.start, { message: 'end must not be before start' });

export const AwbInterpretation = z
  .object({
    clarified_question: z.string().nullable().default(null),
    condition: z.string().nullable().default(null),
    status: z.enum(INTERPRETATION_STATUSES).default('active'),
    dropped_reason: z.string().nullable().default(null),
    provenance: AwbProvenance.nullable().default(null).describe('Of the clarified question.'),
    condition_provenance: AwbProvenance.nullable().default(null),
    sub_questions: z
      .array(
        z
          .object({
            question: nonEmpty,
            answer: z.string().nullable().default(null),
            provenance: AwbProvenance.nullable().default(null),
          })
          .strict(),
      )
      .default([]),
    evidence: z.array(AwbEvidence).default([]),
    citations: z
      .array(z.number().int().min(1))
      .default([])
      .describe('Ranks in the instance-level evidence list that this interpretation cites.'),
    short_answer: AwbShortAnswer.nullable().default(null),
    extra,
  })
  .strict()
  .refine((i) => (i.clarified_question ?? '').trim() !== '' || (i.condition ?? '').trim() !== '', {
    message: 'needs a clarified_question or a condition',
  })
  .refine((i) => (i.status === 'dropped') === (i.dropped_reason !== null), {
    message: 'dropped_reason is given exactly when status is dropped',
  });

export const AwbLongAnswer = z
  .object({
    text: nonEmpty,
    citations: z
      .array(
        z
          .object({
            passage: passageRef,
            interpretation: z.number().int().min(0).nullable().default(null).describe('Index into interpretations.'),
            start: z.number().int().min(0).nullable().default(null),
            end: z.number().int().min(0).nullable().default(null),
          })
          .strict(),
      )
      .default([]),
    provenance: AwbProvenance.nullable().default(null),
  })
  .strict();

/** A clarification turn (URASys): what the system should ask, the user's reply, and the clarified question (gold). */
export const AwbClarificationTurn = z
  .object({
    system_question: nonEmpty,
    user_reply: z.string().nullable().default(null),
    clarified_question: nonEmpty,
    interpretation: z.number().int().min(0).nullable().default(null).describe('Index into interpretations: the reading the reply selects.'),
    provenance: AwbProvenance.nullable().default(null),
  })
  .strict();

/** One round of CondAmbigQA-style construction: the draft, the model's check, the decision and its feedback, cost and time. */
export const AwbRound = z
  .object({
    round: z.number().int().min(1),
    status: z.enum(ROUND_STATUSES),
    draft: z.record(z.string(), z.unknown()).default({}),
    check: z.record(z.string(), z.unknown()).default({}),
    feedback: z.string().nullable().default(null),
    decided_by: z.string().nullable().default(null),
    prompt_versions: z.record(z.string(), z.string()).default({}),
    calls: z.number().int().min(0).default(0),
    prompt_tokens: z.number().int().min(0).default(0),
    completion_tokens: z.number().int().min(0).default(0),
    cost_usd: z.number().min(0).default(0),
    llm_ms: z.number().min(0).default(0),
    review_ms: z.number().int().min(0).default(0),
    created_at: z.string().nullable().default(null),
    decided_at: z.string().nullable().default(null),
  })
  .strict()
  .refine((r) => (r.status === 'rejected') === (r.feedback !== null), { message: 'feedback is given exactly when the round was rejected' });

export const AwbInstance = z
  .object({
    ambiguity_type: z.enum(AMBIGUITY_TYPES),
    status: z.enum(INSTANCE_STATUSES),
    stage: z.enum(INSTANCE_STAGES),
    removed_stage: z.string().nullable().default(null),
    removed_reason: z.string().nullable().default(null),
    evidence: z.array(AwbEvidence).default([]).describe('The frozen evidence list of the whole instance.'),
    interpretations: z.array(AwbInterpretation).default([]),
    long_answers: z.array(AwbLongAnswer).default([]),
    filter_votes: z
      .array(
        z
          .object({
            model: nonEmpty,
            verdict: z.enum(FILTER_VERDICTS),
            reason: z.string().default(''),
            provenance: AwbProvenance.nullable().default(null),
          })
          .strict(),
      )
      .default([]),
    answerability: answerability.optional().describe("The instance's own label (absent: its base question's applies)."),
    answerability_provenance: AwbProvenance.nullable().optional(),
    domain: z.enum(DOMAIN_SLUGS).optional().describe('Topic, one of the 15 labels of MARCH Table 7 (absent: not tagged).'),
    domain_provenance: AwbProvenance.nullable().optional(),
    construction: z.enum(CONSTRUCTION_MODES).optional().describe('Built in CondAmbigQA-style rounds (absent: by the pipeline or imported).'),
    clarification_turns: z.array(AwbClarificationTurn).optional(),
    rounds: z.array(AwbRound).optional().describe('The construction rounds, in order (CondAmbigQA).'),
    extra,
  })
  .strict()
  .refine((i) => (i.status === 'removed') === (i.removed_reason !== null), {
    message: 'removed_reason is given exactly when status is removed',
  });

export const AwbRecord = z
  .object({
    format: z.literal(AWB_FORMAT),
    dataset: AwbDataset,
    base_question: AwbBaseQuestion,
    instance: AwbInstance.nullable(),
    passages: z.array(AwbPassage).default([]),
  })
  .strict()
  .superRefine((record, ctx) => {
    const ids = new Set<string>();
    record.passages.forEach((passage, i) => {
      if (ids.has(passage.id)) ctx.addIssue({ code: 'custom', path: ['passages', i, 'id'], message: `duplicate passage id "${passage.id}"` });
      ids.add(passage.id);
    });
    const check = (ref: string | null, path: (string | number)[]) => {
      if (ref !== null && !ids.has(ref)) ctx.addIssue({ code: 'custom', path, message: `no passage with id "${ref}" in passages` });
    };
    const bq = record.base_question;
    bq.paragraphs.forEach((p, i) => check(p.passage, ['base_question', 'paragraphs', i, 'passage']));
    bq.decomposition.forEach((step, i) => {
      if (step.support !== null && step.support >= bq.paragraphs.length) {
        ctx.addIssue({ code: 'custom', path: ['base_question', 'decomposition', i, 'support'], message: 'points past the last paragraph' });
      }
    });
    const instance = record.instance;
    if (!instance) return;
    instance.evidence.forEach((e, i) => check(e.passage, ['instance', 'evidence', i, 'passage']));
    const frozenRanks = new Set(instance.evidence.map((e) => e.rank));
    if (frozenRanks.size !== instance.evidence.length) {
      ctx.addIssue({ code: 'custom', path: ['instance', 'evidence'], message: 'ranks must be unique' });
    }
    instance.interpretations.forEach((interp, i) => {
      const base = ['instance', 'interpretations', i];
      interp.evidence.forEach((e, j) => check(e.passage, [...base, 'evidence', j, 'passage']));
      if (new Set(interp.evidence.map((e) => e.rank)).size !== interp.evidence.length) {
        ctx.addIssue({ code: 'custom', path: [...base, 'evidence'], message: 'ranks must be unique' });
      }
      interp.citations.forEach((rank, j) => {
        if (!frozenRanks.has(rank)) ctx.addIssue({ code: 'custom', path: [...base, 'citations', j], message: `no instance evidence with rank ${rank}` });
      });
      const answer = interp.short_answer;
      if (answer) {
        check(answer.passage, [...base, 'short_answer', 'passage']);
        const passage = record.passages.find((p) => p.id === answer.passage);
        if (passage && answer.end !== null && answer.end > passage.text.length) {
          ctx.addIssue({ code: 'custom', path: [...base, 'short_answer', 'end'], message: 'span ends past the end of its passage' });
        }
      }
    });
    checkUrasysAndRounds(instance, ctx);
    instance.long_answers.forEach((answer, i) =>
      answer.citations.forEach((citation, j) => {
        const path = ['instance', 'long_answers', i, 'citations', j];
        check(citation.passage, [...path, 'passage']);
        if (citation.interpretation !== null && citation.interpretation >= instance.interpretations.length) {
          ctx.addIssue({ code: 'custom', path: [...path, 'interpretation'], message: 'points past the last interpretation' });
        }
      }),
    );
  });

/** Clarification turns point at an interpretation; rounds run 1, 2, 3...; a construction instance has no ambiguity type. */
function checkUrasysAndRounds(instance: z.output<typeof AwbInstance>, ctx: z.RefinementCtx): void {
  (instance.clarification_turns ?? []).forEach((turn, i) => {
    if (turn.interpretation !== null && turn.interpretation >= instance.interpretations.length) {
      ctx.addIssue({ code: 'custom', path: ['instance', 'clarification_turns', i, 'interpretation'], message: 'points past the last interpretation' });
    }
  });
  (instance.rounds ?? []).forEach((round, i) => {
    if (round.round !== i + 1) ctx.addIssue({ code: 'custom', path: ['instance', 'rounds', i, 'round'], message: `rounds are numbered 1, 2, 3... in order: expected ${i + 1}` });
  });
  if (instance.construction !== undefined && instance.ambiguity_type !== 'unspecified') {
    ctx.addIssue({ code: 'custom', path: ['instance', 'construction'], message: 'an instance built in rounds has the ambiguity type "unspecified"' });
  }
}

export type AwbRecord = z.output<typeof AwbRecord>;
export type AwbRecordInput = z.input<typeof AwbRecord>;
export type AwbPassage = z.output<typeof AwbPassage>;
export type AwbProvenance = z.output<typeof AwbProvenance>;
export type AwbInstance = z.output<typeof AwbInstance>;
export type AwbInterpretation = z.output<typeof AwbInterpretation>;
export type AwbDataset = z.output<typeof AwbDataset>;
