import { JSON_ONLY, type EvalPromptSpec } from './prompt-parts';

/**
 * CondAmbigQA (paper 003, App. D): the four settings with fragments (conditions found by the
 * model, gold conditions, none) and the closed-book columns of Table 3; then the two G-Eval
 * metrics that grade conditions and answers, each a criterion and three evaluation steps.
 */

const PAIRS = `Key: "pairs" (one {"condition", "answer", "citations": fragment numbers} per condition).`;

export const CONDQA_PROMPTS = {
  eval_condqa: {
    system: `You answer a question that can have different answers under different conditions, using only the numbered fragments given. Find at most {{max_conditions}} key conditions the fragments show for the question; give a detailed answer under each; cite the numbers of the fragments that support each condition and its answer. ${JSON_ONLY}`,
    user: `Question: {{question}}

Fragments:
{{passages}}

${PAIRS}`,
    schema: 'conditional',
  },
  eval_condqa_oracle: {
    system: `You answer a question under each of the conditions given, using the numbered fragments, citing the numbers of the fragments that support each answer. ${JSON_ONLY}`,
    user: `Question: {{question}}

Fragments:
{{passages}}

Conditions:
{{conditions}}

Key: "pairs" (one {"condition", "answer", "citations": fragment numbers} per condition, in the order given).`,
    schema: 'conditional',
  },
  eval_condqa_plain: {
    system: `Answer the question using only the numbered fragments given, and cite at most {{max_citations}} fragment numbers that support the answer. ${JSON_ONLY}`,
    user: `Question: {{question}}

Fragments:
{{passages}}

Keys: "answer" and "citations" (fragment numbers).`,
    schema: 'cited_plain_answer',
  },
  eval_condqa_closed: {
    system: `Answer the question directly from your own knowledge; no documents are given. ${JSON_ONLY}`,
    user: `Question: {{question}}

Key: "answer".`,
    schema: 'plain_answer',
  },
  eval_condqa_closed_conditions: {
    system: `You answer a question that can have different answers under different conditions, without any documents. From what you know, state at most {{max_conditions}} conditions under which the answer differs, and answer under each. ${JSON_ONLY}`,
    user: `Question: {{question}}

Key: "pairs" (one {"condition", "answer"} per condition).`,
    schema: 'conditional_closed',
  },
  eval_condqa_closed_oracle: {
    system: `You answer a question under each of the conditions given, from your own knowledge; no documents are given. ${JSON_ONLY}`,
    user: `Question: {{question}}

Conditions:
{{conditions}}

Key: "pairs" (one {"condition", "answer"} per condition, in the order given).`,
    schema: 'conditional_closed',
  },
  eval_geval_condition: {
    system: `You grade one output of a question-answering system against the reference, on a single criterion. Criterion (Condition Correctness): is the actual condition factually right given the expected conditions? Evaluation steps: 1. Check whether any fact in the actual condition contradicts the expected condition it corresponds to. 2. Penalise heavily a condition that leaves out a critical detail. 3. Check that the condition is clear and can be read only one way. Give an integer score from 0 (fails the criterion) to 10 (meets it fully), then the reason. ${JSON_ONLY}`,
    user: `Input (question): {{question}}

Actual condition: {{actual}}

Expected conditions:
{{expected}}

Keys: "score" (0-10) and "reason".`,
    schema: 'geval',
  },
  eval_geval_answer: {
    system: `You grade one output of a question-answering system against the reference, on a single criterion. Criterion (Answer Correctness): is the actual answer factually right given the expected answers? Evaluation steps: 1. Check whether any fact in the actual answer contradicts the expected answers. 2. Penalise heavily an answer that leaves out a critical detail. 3. Check that the answer addresses the question directly, without irrelevant material. Give an integer score from 0 (fails the criterion) to 10 (meets it fully), then the reason. ${JSON_ONLY}`,
    user: `Input (question): {{question}}

Actual answer: {{actual}}

Expected answers:
{{expected}}

Keys: "score" (0-10) and "reason".`,
    schema: 'geval',
  },
} as const satisfies Record<string, EvalPromptSpec>;
