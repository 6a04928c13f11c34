import { z } from 'zod';
import { responseJsonSchema } from '../../pipeline';

/**
 * The answer shapes of the methods' calls. Every key is required (strict structured output
 * allows no optional keys): unused keys come back empty, and the services check that an action
 * carries what it needs.
 */

const text = z.string();
const numbers = z.array(z.number().int().min(0));

export const EVAL_SCHEMAS = {
  answer: z.object({ long_answer: text.trim().min(1), short_answers: z.array(text) }).strict(),
  reasoned_answer: z.object({ reasoning: text, long_answer: text.trim().min(1), short_answers: z.array(text) }).strict(),
  cited_answer: z.object({ long_answer: text.trim().min(1), short_answers: z.array(text), citations: numbers }).strict(),
  reasoned_cited_answer: z.object({ reasoning: text, long_answer: text.trim().min(1), short_answers: z.array(text), citations: numbers }).strict(),
  interpretations: z.object({ interpretations: z.array(text.trim().min(3)).min(1) }).strict(),
  verify: z.object({ labels: z.array(z.object({ passage: z.number().int().min(1), label: z.enum(['useful', 'partially_useful', 'useless']) }).strict()) }).strict(),
  synthesis: z.object({ interpretations: z.array(z.object({ question: text, answer: text, citations: numbers }).strict()), long_answer: text.trim().min(1), short_answers: z.array(text) }).strict(),
  react_step: z.object({ thought: text, action: z.enum(['search', 'answer']), query: text, long_answer: text, short_answers: z.array(text) }).strict(),
  detect: z
    .object({ reasoning: text, is_ambiguous: z.boolean(), ambiguity_type: z.enum(['syntactic', 'constraint', 'semantic', 'none']), ambiguous_aspects: z.array(text), clarification_needed: text })
    .strict(),
  clarify: z.object({ reasoning: text, clarified_questions: z.array(text.trim().min(3)).min(1) }).strict(),
  act_step: z.object({ thought: text, action: z.enum(['search', 'plan', 'answer']), query: text, new_interpretations: z.array(text), answer: text, citations: numbers }).strict(),
  sub_question: z.object({ sub_question: text.trim().min(3) }).strict(),
  hyde: z.object({ passage: text.trim().min(1) }).strict(),
  conditional: z.object({ pairs: z.array(z.object({ condition: text, answer: text, citations: numbers }).strict()) }).strict(),
  reader: z.object({ answer: text }).strict(),
  cond_judge: z.object({ condition_score: z.number().min(0).max(1), answer_score: z.number().min(0).max(1), rationale: text }).strict(),
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
