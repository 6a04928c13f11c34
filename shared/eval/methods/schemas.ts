import { z } from 'zod';
import { responseJsonSchema } from '../../pipeline';

/**
 * The answer shapes of the methods' calls. Every key is required (strict structured output
 * allows no optional keys): unused keys come back empty, and the services check that an action
 * carries what it needs.
 */

const text = z.string();
const numbers = z.array(z.number().int().min(0));
const answerText = text.trim().min(1);
/** One hop of an interpretation's chain: the entity it resolved and the passages behind it. */
const hop = z.object({ hop: z.number().int().min(1), entity: text, passages: numbers }).strict();
const pair = z.object({ condition: text, answer: text, citations: numbers }).strict();

export const EVAL_SCHEMAS = {
  // The standard baselines: one answer, as a model gives it (no short answers of their own).
  plain_answer: z.object({ answer: answerText }).strict(),
  reasoned_plain_answer: z.object({ reasoning: text, answer: answerText }).strict(),
  cited_plain_answer: z.object({ answer: answerText, citations: numbers }).strict(),
  reasoned_cited_plain_answer: z.object({ reasoning: text, answer: answerText, citations: numbers }).strict(),
  react_step: z.object({ thought: text, action: z.enum(['search', 'answer']), query: text, answer: text }).strict(),
  // CLARION.
  detect: z
    .object({ reasoning: text, is_ambiguous: z.boolean(), ambiguity_type: z.enum(['syntactic', 'constraint', 'semantic', 'none']), ambiguous_aspects: z.array(text), clarification_needed: text })
    .strict(),
  clarify: z.object({ reasoning: text, clarified_questions: z.array(text.trim().min(3)).min(1) }).strict(),
  act_step: z
    .object({
      thought: text,
      action: z.enum(['search', 'plan', 'answer']),
      interpretation: z.number().int().min(0),
      query: text,
      answers: z.array(z.object({ interpretation: z.number().int().min(1), answer: text, hops: z.array(hop) }).strict()),
      long_answer: text,
    })
    .strict(),
  replan: z.object({ reason: text, interpretations: z.array(text.trim().min(3)).min(1) }).strict(),
  hop_verify: z
    .object({
      verdicts: z.array(z.object({ interpretation: z.number().int().min(1), verdict: z.enum(['pass', 'fail', 'blocked']), hop: z.number().int().min(0), reason: text, recovery_query: text }).strict()),
    })
    .strict(),
  recover: z.object({ answer: text, hops: z.array(hop) }).strict(),
  compose: z.object({ long_answer: answerText }).strict(),
  // DIVA and ADF.
  interpretations: z.object({ interpretations: z.array(text.trim().min(3)).min(1) }).strict(),
  verify: z.object({ labels: z.array(z.object({ passage: z.number().int().min(1), label: z.enum(['useful', 'partially_useful', 'useless']) }).strict()) }).strict(),
  synthesis: z.object({ interpretations: z.array(z.object({ question: text, answer: text, citations: numbers }).strict()), long_answer: answerText }).strict(),
  sub_question: z.object({ sub_question: text.trim().min(3) }).strict(),
  hyde: z.object({ passage: text.trim().min(1) }).strict(),
  // CondAmbigQA.
  conditional: z.object({ pairs: z.array(pair) }).strict(),
  conditional_closed: z.object({ pairs: z.array(z.object({ condition: text, answer: text }).strict()) }).strict(),
  // Scoring.
  geval: z.object({ score: z.number().int().min(0).max(10), reason: text }).strict(),
  reader: z.object({ answer: text }).strict(),
  judge: z
    .object({
      relevance: z.number().int().min(0).max(5),
      faithfulness: z.number().int().min(0).max(5),
      informativeness: z.number().int().min(0).max(5),
      correctness: z.number().int().min(0).max(5),
      rationale: text,
    })
    .strict(),
} as const;

export type EvalSchemaName = keyof typeof EVAL_SCHEMAS;
export type EvalSchemaOutput<K extends EvalSchemaName> = z.output<(typeof EVAL_SCHEMAS)[K]>;

const jsonSchemas = new Map<EvalSchemaName, Record<string, unknown>>();

/** An answer schema for `response_format`, made once (as the pipeline's are). */
export function evalJsonSchema(name: EvalSchemaName): Record<string, unknown> {
  let schema = jsonSchemas.get(name);
  if (!schema) jsonSchemas.set(name, (schema = responseJsonSchema(EVAL_SCHEMAS[name])));
  return schema;
}
