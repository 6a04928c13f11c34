import { z } from 'zod';
import { ANSWERABILITY_LABELS, DOMAIN_SLUGS } from './domain';

/**
 * The answer shapes of the prompts issue 25 adds, beside the MARCH stages' (shared/pipeline.ts
 * spreads them into its tables, so they are versioned, cached and validated the same way):
 *
 * - CondAmbigQA's three drafting steps (paper 003, §3.3 and appendix C): draft the
 *   interpretations with their preconditions and answers, check the ambiguity and the evidence,
 *   and cite: one condition, its answers and the fragments that hold them, per interpretation.
 *   Fragments are cited by their number in the question's frozen list.
 * - the labelling stage: answerability (URASys) and topic (MARCH Table 7);
 * - the QA layer (URASys ask-and-augment): question-answer pairs per passage and paraphrases;
 * - the ask-before-answer evaluation (URASys): answer, ask a clarifying question, or say there is
 *   no answer; then, after the user's reply, answer.
 */

const cited = z.object({ text: z.string().trim().min(1), fragments: z.array(z.number().int()) }).strict();

export const CONSTRUCTION_SCHEMAS = {
  condition_draft: z
    .object({ interpretations: z.array(z.object({ preconditions: z.array(cited), answers: z.array(cited).min(1) }).strict()).min(1) })
    .strict(),
  condition_check: z
    .object({
      ambiguity_points: z.array(
        z
          .object({
            description: z.string(),
            impacts: z.array(z.object({ interpretation: z.number().int().min(1), effect: z.string(), fragments: z.array(z.number().int()) }).strict()),
          })
          .strict(),
      ),
      assessments: z.array(
        z
          .object({
            interpretation: z.number().int().min(1),
            summary: z.string(),
            strengths: z.array(cited),
            weaknesses: z.array(cited),
            consistency: z.string(),
            credibility: z.enum(['high', 'medium', 'low']),
          })
          .strict(),
      ),
    })
    .strict(),
  condition_cite: z
    .object({ condition: z.string(), answers: z.array(z.string()), citations: z.array(z.number().int()), reason: z.string() })
    .strict(),
  label_answerability: z.object({ label: z.enum(ANSWERABILITY_LABELS), reason: z.string() }).strict(),
  label_domain: z.object({ domain: z.enum(DOMAIN_SLUGS), reason: z.string() }).strict(),
  qa_create: z.object({ pairs: z.array(z.object({ question: z.string().trim().min(3), answer: z.string().trim().min(1) }).strict()) }).strict(),
  qa_expand: z.object({ paraphrases: z.array(z.array(z.string().trim().min(3))) }).strict(),
  ask_first: z.object({ action: z.enum(['answer', 'clarify', 'no_answer']), answer: z.string(), clarifying_question: z.string() }).strict(),
  ask_first_answer: z.object({ answer: z.string() }).strict(),
} as const;

export const CONSTRUCTION_PROMPT_NAMES = [
  'condition_draft',
  'condition_check',
  'condition_cite',
  'label_answerability',
  'label_domain',
  'qa_create',
  'qa_expand',
  'ask_first',
  'ask_first_answer',
] as const satisfies readonly (keyof typeof CONSTRUCTION_SCHEMAS)[];
