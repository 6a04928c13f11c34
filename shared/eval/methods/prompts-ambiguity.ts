import { JSON_ONLY, type EvalPromptSpec } from './prompt-parts';

/**
 * DIVA (diversify, verify, adapt; MARCH §5, ADF §5 and DIVA's own paper) and ADF (paper 002):
 * the two retrieval methods built for ambiguous questions, so their answering prompts do ask for
 * an answer per interpretation.
 */

const SYNTHESIS_KEYS = `Keys: "interpretations" (one {"question", "answer", "citations": passage numbers} per interpretation) and "long_answer".`;

const INTENTS_USER = `Question: {{question}}
Intents found: {{interpretations}}

Passages:
{{passages}}

${SYNTHESIS_KEYS}`;

export const AMBIGUITY_PROMPTS = {
  eval_diva_interpret: {
    system: `You find the different things a question could be asking. You see the question and passages a search returned for it. Write up to {{count}} interpretations, each a self-contained question that settles one reading and would get its own answer. Base them on what the passages suggest; you may add a reading the passages hint at without settling it. A question that reads one way has one interpretation. ${JSON_ONLY}`,
    user: `Question: {{question}}

Passages found for it:
{{passages}}

Key: "interpretations" (a list of questions).`,
    schema: 'interpretations',
  },
  eval_diva_verify: {
    system: `You grade retrieved passages for one interpretation of a question. A passage is "useful" when it answers the interpretation, "partially_useful" when it bears on it without answering it, "useless" when it does neither. ${JSON_ONLY}`,
    user: `Interpretation: {{interpretation}}

Passages:
{{passages}}

Key: "labels" (one {"passage": number, "label": "useful" | "partially_useful" | "useless"} per passage).`,
    schema: 'verify',
  },
  eval_diva_answer: {
    system: `You answer an ambiguous question, one interpretation at a time. {{strategy}} Then write one long answer that covers every interpretation and says which answer belongs to which reading. ${JSON_ONLY}`,
    user: `Question: {{question}}

Interpretations:
{{interpretations}}

Passages:
{{passages}}

${SYNTHESIS_KEYS}`,
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
  eval_hyde: {
    system: `You write a short encyclopedia-style passage that would answer the question given. It only guides a search, so plausible details are fine; name the entities involved. ${JSON_ONLY}`,
    user: `Question: {{question}}

Key: "passage" (three or four sentences).`,
    schema: 'hyde',
  },
  eval_adf_hyde_ambignq: {
    system: `You write a hypothetical passage that would answer the question; it only steers a search. Keep it short and dense with names: the entities, dates and places an answer would mention. ${JSON_ONLY}`,
    user: `Question: {{question}}

Key: "passage" (two or three sentences).`,
    schema: 'hyde',
  },
  eval_adf_hyde_asqa: {
    system: `You write a hypothetical passage that would answer the question; it only steers a search. Give the detail that sets this meaning of the question apart from its other meanings: context, circumstances, the entities involved. ${JSON_ONLY}`,
    user: `Question: {{question}}

Key: "passage" (four to six sentences).`,
    schema: 'hyde',
  },
  eval_adf_synthesis_ambignq: {
    system: `You answer a question that has several distinct intents, from the numbered passages. For each intent give a concise answer centred on the entity it asks for, with the passages behind it; then a long answer that covers every intent in turn, a short clause each, contrasting them. ${JSON_ONLY}`,
    user: INTENTS_USER,
    schema: 'synthesis',
  },
  eval_adf_synthesis_asqa: {
    system: `You answer a question that has several distinct intents, from the numbered passages. For each intent give its answer with the passages behind it; then a long answer of 150 to 250 words, one paragraph, that explains each intent and its answer and marks the contrast between them (for one reading ..., whereas for another ...). ${JSON_ONLY}`,
    user: INTENTS_USER,
    schema: 'synthesis',
  },
  eval_adf_answer: {
    system: `Answer the user's question from the numbered passages, and list the numbers of the passages you drew on. ${JSON_ONLY}`,
    user: `Question: {{question}}

Passages:
{{passages}}

Keys: "answer" and "citations" (passage numbers).`,
    schema: 'cited_plain_answer',
  },
} as const satisfies Record<string, EvalPromptSpec>;
