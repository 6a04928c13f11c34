import type { EvalSchemaName } from './schemas';

/**
 * The built-in prompt of every call the evaluation makes, in this project's own words (the
 * papers say what each step must do). They are stored and versioned like the pipeline's prompts
 * (names start with `eval_`); editing one saves a new version and every item records the
 * versions it used. `{{name}}` placeholders are filled by the services.
 */

const JSON_ONLY = 'Reply with one JSON object only: no prose around it, no code fences.';

const LONG_ANSWER_RULE =
  'If the question can be understood in more than one way, say so briefly and answer every interpretation you can support, each with its own short answer. The long answer is one fluent paragraph; short answers are a few words each (a name, a date, a number), and every short answer also appears in the long answer.';

export interface EvalPromptSpec {
  system: string;
  user: string;
  schema: EvalSchemaName;
}

export const EVAL_PROMPTS = {
  eval_direct: {
    system: `You answer questions from your own knowledge. ${LONG_ANSWER_RULE} ${JSON_ONLY}`,
    user: `Question: {{question}}

Keys: "long_answer" (the paragraph) and "short_answers" (a list of short answers, one per interpretation).`,
    schema: 'answer',
  },
  eval_cot: {
    system: `You answer questions from your own knowledge, thinking step by step first. ${LONG_ANSWER_RULE} ${JSON_ONLY}`,
    user: `Question: {{question}}

Work through the question step by step, then answer.
Keys: "reasoning" (your steps), "long_answer" and "short_answers".`,
    schema: 'reasoned_answer',
  },
  eval_rag: {
    system: `You answer questions using the numbered passages given; where they are silent you may add what you know, but prefer the passages. ${LONG_ANSWER_RULE} Cite the passages you used by number. ${JSON_ONLY}`,
    user: `Question: {{question}}

Passages:
{{passages}}

Keys: "long_answer", "short_answers" and "citations" (the numbers of the passages used).`,
    schema: 'cited_answer',
  },
  eval_cot_rag: {
    system: `You answer questions using the numbered passages given, reasoning step by step first. ${LONG_ANSWER_RULE} Cite the passages you used by number. ${JSON_ONLY}`,
    user: `Question: {{question}}

Passages:
{{passages}}

Reason step by step over the passages, then answer.
Keys: "reasoning", "long_answer", "short_answers" and "citations".`,
    schema: 'reasoned_cited_answer',
  },
  eval_diva_diversify: {
    system: `You list the plausible interpretations of a question: each one a self-contained question that settles one way the original could be meant and would get a different answer. A clear question has one interpretation. ${JSON_ONLY}`,
    user: `Question: {{question}}

Key: "interpretations" (a list of questions, at most {{max_interpretations}}).`,
    schema: 'interpretations',
  },
  eval_diva_verify: {
    system: `You judge retrieved passages for one interpretation of a question. A passage is "useful" when it answers the interpretation, "partially_useful" when it helps without answering it, and "useless" otherwise. ${JSON_ONLY}`,
    user: `Interpretation: {{interpretation}}

Passages:
{{passages}}

Key: "labels" (one {"passage": number, "label": "useful" | "partially_useful" | "useless"} per passage).`,
    schema: 'verify',
  },
  eval_diva_answer: {
    system: `You answer an ambiguous question interpretation by interpretation. For each interpretation use only the passages marked useful for it when there are any; when it has none, answer from your own knowledge and cite nothing. Then write one long answer covering every interpretation. ${LONG_ANSWER_RULE} ${JSON_ONLY}`,
    user: `Question: {{question}}

{{interpretations}}

Keys: "interpretations" (one {"question", "answer", "citations": passage numbers} per interpretation), "long_answer" and "short_answers".`,
    schema: 'synthesis',
  },
  eval_react: {
    system: `You answer questions by alternating thought and action, with a search engine over a passage collection. Each turn, think about what is still missing and choose one action: "search" with a precise query that you have not used before, or "answer" when the evidence is enough. You have {{max_steps}} turns in all; on the last turn you must answer. ${LONG_ANSWER_RULE} ${JSON_ONLY}`,
    user: `Question: {{question}}

What happened so far:
{{context}}

Turns left, this one included: {{steps_left}}.
Keys: "thought", "action" ("search" or "answer"), "query" (the search query, or ""), "long_answer" and "short_answers" (filled when answering, else "" and []).`,
    schema: 'react_step',
  },
  eval_clarion_detect: {
    system: `You are the planning agent of a question-answering system. Before anything is searched, decide whether the question is ambiguous and of which kind: "syntactic" (the words allow more than one grammatical structure), "constraint" (a condition is more specific than the need behind it, so a slightly broader question has several valid answers) or "semantic" (the structure is clear but a name or phrase can denote different things); "none" when it is clear. ${JSON_ONLY}`,
    user: `Question: {{question}}

Keys: "reasoning" (brief), "is_ambiguous", "ambiguity_type", "ambiguous_aspects" (the words or conditions at issue) and "clarification_needed" (what would settle it).`,
    schema: 'detect',
  },
  eval_clarion_clarify: {
    system: `You are the planning agent of a question-answering system. Given a question and the analysis of its ambiguity, rewrite it into clarified questions, one per interpretation: each settles the ambiguity one way, keeps everything else, and can be answered on its own. ${JSON_ONLY}`,
    user: `Question: {{question}}
Analysis: {{analysis}}

Keys: "reasoning" and "clarified_questions" (at least two when the question is ambiguous, at most {{max_interpretations}}).`,
    schema: 'clarify',
  },
  eval_clarion_act: {
    system: `You are the acting agent of a question-answering system. You work on one interpretation of a question at a time, with a search engine over a passage collection. Each turn choose one action: "search" (a precise query you have not used before), "plan" (the interpretations in hand miss one: give it in "new_interpretations") or "answer" (a short answer to this interpretation, citing the numbered passages that support it). You have {{max_steps}} turns for this interpretation; on the last one you must answer. ${JSON_ONLY}`,
    user: `Original question: {{question}}
{{analysis}}
All interpretations so far:
{{interpretations}}

Interpretation in hand: {{interpretation}}

What happened so far for it:
{{context}}

Turns left, this one included: {{steps_left}}.
Keys: "thought", "action" ("search", "plan" or "answer"), "query", "new_interpretations", "answer" (a few words) and "citations" (passage numbers); unused keys empty.`,
    schema: 'act_step',
  },
  eval_clarion_merge: {
    system: `You write the final answer of a question-answering system from the answers found for each interpretation. Cover every interpretation that has an answer, keep each short answer as given, and make clear which interpretation each belongs to. ${LONG_ANSWER_RULE} ${JSON_ONLY}`,
    user: `Original question: {{question}}

{{interpretations}}

Keys: "interpretations" (one {"question", "answer", "citations"} per interpretation, citations as passage numbers), "long_answer" and "short_answers".`,
    schema: 'synthesis',
  },
  eval_adf_intent: {
    system: `You read a group of passages retrieved for a question and state, as one self-contained question, the particular meaning of the question that this group is about. ${JSON_ONLY}`,
    user: `Question: {{question}}

Passages of this group:
{{passages}}

Key: "sub_question".`,
    schema: 'sub_question',
  },
  eval_adf_hyde: {
    system: `You write a short encyclopedia-style passage that would answer the question given. It only guides a search, so plausible details are fine; name the entities involved. ${JSON_ONLY}`,
    user: `Question: {{question}}

Key: "passage" (three or four sentences).`,
    schema: 'hyde',
  },
  eval_adf_synthesis: {
    system: `You answer a question that may have several distinct intents, from the numbered passages given. List each distinct intent with its answer and the passages behind it, then write one long answer that contrasts the intents explicitly (for one ..., whereas for another ...). ${LONG_ANSWER_RULE} ${JSON_ONLY}`,
    user: `Question: {{question}}
Intents found: {{interpretations}}

Passages:
{{passages}}

Keys: "interpretations" (one {"question", "answer", "citations"} per intent), "long_answer" and "short_answers".`,
    schema: 'synthesis',
  },
  eval_condqa: {
    system: `You answer an ambiguous question from a numbered list of fragments. First find in the fragments the conditions under which the question has different answers (a period, a place, a version, a sense of a word); then answer the question under each condition, citing the fragments that support that answer by number. ${JSON_ONLY}`,
    user: `Question: {{question}}

Fragments:
{{passages}}

Key: "pairs" (one {"condition", "answer", "citations"} per condition).`,
    schema: 'conditional',
  },
  eval_condqa_plain: {
    system: `You answer a question from a numbered list of fragments, citing the fragments that support each answer by number. Give every distinct answer the fragments support. ${JSON_ONLY}`,
    user: `Question: {{question}}

Fragments:
{{passages}}

Key: "pairs" (one {"condition": "", "answer", "citations"} per answer).`,
    schema: 'conditional',
  },
  eval_condqa_oracle: {
    system: `You answer an ambiguous question from a numbered list of fragments, once for each of the conditions given, citing the fragments that support each answer by number. ${JSON_ONLY}`,
    user: `Question: {{question}}

Conditions:
{{conditions}}

Fragments:
{{passages}}

Key: "pairs" (one {"condition", "answer", "citations"} per condition, in the order given).`,
    schema: 'conditional',
  },
  eval_condqa_closed: {
    system: `You answer an ambiguous question without any documents. Think of the conditions under which it has different answers, then answer under each from what you know. ${JSON_ONLY}`,
    user: `Question: {{question}}

Key: "pairs" (one {"condition", "answer", "citations": []} per condition).`,
    schema: 'conditional',
  },
  eval_reader: {
    system: `You are an extractive reader. Given a context and a question, copy the shortest span of the context that answers the question, character for character. If the context does not answer it, reply with an empty answer. ${JSON_ONLY}`,
    user: `Context: {{context}}

Question: {{question}}

Key: "answer".`,
    schema: 'reader',
  },
  eval_cond_judge: {
    system: `You grade a model's conditional answers to an ambiguous question against the reference ones, as CondAmbigQA does, each from 0 (worst) to 1 (best), two decimals. condition_score: how completely and clearly the model's conditions capture the reference conditions (every reference condition found, none confused or vague, nothing invented that changes the answer). answer_score: how accurate the model's answers are against the reference answers under the matching conditions, and whether each answer fits the condition it is given for. ${JSON_ONLY}`,
    user: `Question: {{question}}

Reference conditions and answers:
{{gold}}

The model's conditions and answers:
{{pairs}}

Keys: "condition_score" and "answer_score" (0 to 1 each) and "rationale" (two or three sentences).`,
    schema: 'cond_judge',
  },
  eval_judge: {
    system: `You grade a long answer to an ambiguous question against its reference interpretations, each from 0 (worst) to 5 (best): relevance (it addresses every clarified question and includes the relevant short answers, without digressing), faithfulness (it agrees with the intent and facts of the question, the clarified questions and the short answers), informativeness (it adds useful background or explanation) and correctness (its facts are accurate, with nothing key wrong or left out). Whole numbers only. ${JSON_ONLY}`,
    user: `Question: {{question}}

Reference interpretations and short answers:
{{gold}}

Long answer to grade:
{{answer}}

Keys: "relevance", "faithfulness", "informativeness", "correctness" (0-5 each) and "rationale" (two or three sentences explaining the grades).`,
    schema: 'judge',
  },
} as const satisfies Record<string, EvalPromptSpec>;

export type EvalPromptName = keyof typeof EVAL_PROMPTS;
export const EVAL_PROMPT_NAMES = Object.keys(EVAL_PROMPTS) as EvalPromptName[];

export function isEvalPromptName(name: string): name is EvalPromptName {
  return Object.hasOwn(EVAL_PROMPTS, name);
}

/** The placeholders a prompt may use: those of its built-in version. */
export function evalPlaceholders(name: EvalPromptName): string[] {
  const { system, user } = EVAL_PROMPTS[name];
  return [...new Set([...`${system}\n${user}`.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]!))];
}

export function fillTemplate(template: string, values: Readonly<Record<string, string | number>>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole));
}
