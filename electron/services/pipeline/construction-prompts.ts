import { DOMAINS } from '../../../shared/domain';
import type { CONSTRUCTION_PROMPT_NAMES } from '../../../shared/construction-schemas';

/**
 * The built-in text of the prompts issue 25 adds: CondAmbigQA's three drafting steps, the two
 * labelling prompts and the two QA-layer prompts. The papers say what each step must achieve
 * (paper 003, appendix C; paper 004, §2.6; paper 000, Table 7); the wording is ours. They are
 * stored and versioned with the pipeline's own prompts (prompts.ts), and editable the same way.
 */

const JSON_ONLY = 'Reply with a single JSON object and nothing else: no prose, no code fences.';

const FRAGMENTS_RULE = 'Cite fragments only by their number in the list ([3] is fragment 3); use nothing you know from elsewhere.';

export const CONSTRUCTION_PROMPTS: Record<(typeof CONSTRUCTION_PROMPT_NAMES)[number], { system: string; user: string }> = {
  condition_draft: {
    system: `You read a question together with the text fragments retrieved for it and lay out every distinct way the question can be understood that the fragments support. For each interpretation give its preconditions (the background facts or assumptions that make this reading the right one; they do not answer the question themselves) and its answer statements (what answers the question under that reading). Two interpretations must lead to different answers; where fragments contradict each other, keep each side as its own interpretation. Every precondition and every answer statement names the fragments it rests on. ${FRAGMENTS_RULE} ${JSON_ONLY}`,
    user: `Question: {{question}}

Fragments:
{{fragments}}
{{revision}}
Give at least {{min_interpretations}} interpretations if the fragments support them.
Key: "interpretations", a list of {"preconditions": [{"text", "fragments": [numbers]}], "answers": [{"text", "fragments": [numbers]}]}.`,
  },
  condition_check: {
    system: `You check a set of interpretations drafted for an ambiguous question against the fragments retrieved for it. First name the points of ambiguity: what in the question is open, and how each point changes each interpretation (with the fragments that show it). Then weigh each interpretation on the evidence: a one-line summary, its strengths and its weaknesses (each with the fragments behind it), whether the fragments agree with one another about it, and how credible it is overall (high, medium or low). Be balanced: judge the sources' agreement and reliability, not how familiar the answer sounds. ${FRAGMENTS_RULE} ${JSON_ONLY}`,
    user: `Question: {{question}}

Fragments:
{{fragments}}

Interpretations:
{{interpretations}}

Keys: "ambiguity_points" (a list of {"description", "impacts": [{"interpretation": its number, "effect", "fragments": [numbers]}]}) and "assessments" (one per interpretation: {"interpretation": its number, "summary", "strengths": [{"text", "fragments"}], "weaknesses": [{"text", "fragments"}], "consistency", "credibility": "high", "medium" or "low"}).`,
  },
  condition_cite: {
    system: `You turn one interpretation of an ambiguous question into a condition-answer-citation tuple, strictly from the fragments. The condition states, in a sentence or two, the circumstances under which the answer holds (what the asker must mean or assume); it is drawn from the fragments only. The answers are the short answers the fragments state explicitly for that condition (a name, date, number or short phrase each). The citations are the numbers of every fragment the condition or an answer rests on. The reason says how the answer follows and what, if anything, the fragments leave open. When the fragments do not state an answer, give an empty list rather than a guess. ${FRAGMENTS_RULE} ${JSON_ONLY}`,
    user: `Question: {{question}}

Fragments:
{{fragments}}

Interpretation:
{{interpretation}}
{{revision}}
Keys: "condition" (text), "answers" (a list of short answers), "citations" (a list of fragment numbers) and "reason" (text).`,
  },
  label_answerability: {
    system: `You sort a question by what the passages given with it allow. "answerable": the question asks one clear thing and the passages hold its answer. "ambiguous": the question can be read in several ways (an unclear name, an open scope, a missing detail) that lead to different answers, so a careful assistant would ask which is meant before answering. "unanswerable": the question is clear but the passages do not hold its answer, so a careful assistant would say that it has no information rather than guess. Judge from the passages alone. ${JSON_ONLY}`,
    user: `Question: {{question}}

Passages:
{{passages}}

Keys: "label" ("answerable", "ambiguous" or "unanswerable") and "reason" (one sentence).`,
  },
  label_domain: {
    system: `You tag a question with the one topic it is mainly about, from a fixed list. Choose the label that fits the thing asked about, not the words used; when none fits, choose "unknown". ${JSON_ONLY}`,
    user: `Question: {{question}}

Topics (answer with the key on the left):
{{labels}}

Keys: "domain" (one of the keys above) and "reason" (a few words).`,
  },
  qa_create: {
    system: `You write frequently asked questions for a passage, the way a reader who needs its information would ask them. Each question is answered by the passage alone, stands on its own (it names what it is about instead of saying "it" or "this passage"), and asks something the others do not. Each answer is short and taken from the passage, in its words where possible. ${JSON_ONLY}`,
    user: `Title: {{title}}
Passage: {{passage}}

Write {{count}} question-answer pairs.
Key: "pairs", a list of {"question", "answer"}.`,
  },
  qa_expand: {
    system: `You rephrase questions the way different people would ask them: other words and other word order, the same meaning and the same answer. Keep every name, number and date. ${JSON_ONLY}`,
    user: `Questions:
{{questions}}

Write {{count}} rephrasings of each question, in the same order.
Key: "paraphrases", a list with one list of strings per question.`,
  },
  ask_first: {
    system: `You are an assistant that answers only when the evidence is enough. Read the question and the passages found for it, then do exactly one of three things. Answer, when the question asks one clear thing and the passages state the answer. Ask a clarifying question, when the question can be read in several ways that lead to different answers in the passages: name the readings briefly and ask which one is meant. Say there is no answer, when the question is clear but the passages do not hold its answer: never guess or answer from memory. ${JSON_ONLY}`,
    user: `Question: {{question}}

Passages:
{{passages}}

Keys: "action" ("answer", "clarify" or "no_answer"), "answer" (a short answer when you answer, else "") and "clarifying_question" (your question when you clarify, else "").`,
  },
  ask_first_answer: {
    system: `You asked a user to clarify a question and they replied. Answer the question as they mean it, from the passages only, in a few words. ${JSON_ONLY}`,
    user: `Question: {{question}}
You asked: {{clarifying_question}}
The user replied: {{reply}}

Passages:
{{passages}}

Key: "answer" (a short answer).`,
  },
};

/** The topic list as the domain prompt shows it: key, then label. */
export const DOMAIN_LIST = DOMAINS.map((d) => `${d.slug}: ${d.label}`).join('\n');
