import { insertPrompt, latestPrompts, promptVersions } from '../../../db/queries/prompt-templates';
import { transaction, type WritableDB } from '../../../db/sql';
import { AppError } from '../../../shared/api';
import { PROMPT_NAMES, SYNTACTIC_PHENOMENA, type PromptName, type PromptTemplate } from '../../../shared/pipeline';
import { CONSTRUCTION_PROMPTS } from './construction-prompts';

/**
 * The pipeline's prompts: one template per call kind (clarification: one per ambiguity type),
 * written for this project (the paper says what each stage must achieve; the wording is ours). Templates are versioned in the database;
 * editing one saves a new version, and every generated field records the version it came from.
 * `{{name}}` placeholders are filled from the item.
 */

const JSON_ONLY = 'Reply with a single JSON object and nothing else: no prose, no code fences.';

const phenomena = SYNTACTIC_PHENOMENA.map((p, i) => `${i + 1}. ${p}`).join('\n');

/** What every clarification prompt asks, whatever the type. */
const CLARIFY_RULES = `Each clarified question settles the ambiguity one way only, can be answered on its own, asks for the same kind of answer as the original and keeps everything else about it. Two clarified questions must lead to different answers; do not write paraphrases of one another or of the original. Plain, natural English. ${JSON_ONLY}`;

const CLARIFY_USER = `Question: {{question}}
{{detector_notes}}

Write at least {{min_interpretations}} clarified questions, one per interpretation.
Key: "clarified_questions" (a list of strings).`;

export const BUILT_IN_PROMPTS: Record<PromptName, { system: string; user: string }> = {
  detect_semantic: {
    system: `You screen questions for semantic ambiguity: the sentence has one clear structure, but a name or phrase in it can point to more than one thing in the world, and which one is meant changes the answer. Typical sources: a homonym (one word, several senses), one name shared by several people, places, works or organisations, an alias or nickname used by more than one entity, an acronym that expands in more than one way, and a title reused by several books, films, songs or versions. Ordinary vagueness that every reader resolves the same way does not count. ${JSON_ONLY}`,
    user: `Question: {{question}}

Can a name or phrase in this question refer to two or more different entities or senses, so that the question has different correct answers depending on which is meant?
Keys: "ambiguous" (true or false) and "reason" (one sentence: the expression and the things it could denote, or why it is clear).`,
  },
  detect_syntactic: {
    system: `You screen questions for syntactic ambiguity: the words stay the same, but they can be grouped into more than one grammatical structure, and each structure asks something different. ${JSON_ONLY}`,
    user: `Question: {{question}}

Structural phenomena to check, by number:
${phenomena}

Does the question allow two or more parses, under any of these phenomena, that lead to different answers?
Keys: "ambiguous" (true or false), "phenomena" (the numbers that apply, in ascending order; [] when it is not ambiguous) and "reason" (one sentence).`,
  },
  detect_constraint: {
    system: `You screen search questions for constraint ambiguity: a condition in the question (an exact date or number, a version, a quoted title, a superlative, a long chain of descriptions) is stricter than what the asker needs or than how sources phrase the fact, so taken literally it finds too little, while a slightly broader interpretation finds several legitimate answers. Signals measured on the passage corpus come with the question; weigh them as evidence, without fixed cut-offs. ${JSON_ONLY}`,
    user: `Question: {{question}}

Corpus signals:
- passages that match every content word of the question as written: {{total_hits}}
- KL divergence of the top passages' words from the corpus as a whole: {{kl_divergence}}
- the largest growth factor in matches when one number, date or quoted phrase is dropped: {{relax_delta_ratio}}

Is the question over-specified in a way that hides other valid answers?
Keys: "ambiguous" (true or false) and "reason" (one sentence).`,
  },
  clarify_semantic: {
    system: `A question is semantically ambiguous: some name or phrase in it can denote different entities or senses. Interpret it: write clarified questions that each pin the expression to one entity or sense, naming it plainly (for example by adding the person's field, the place's country, the work's year or the sense meant), and leave the rest of the question as it is. ${CLARIFY_RULES}`,
    user: CLARIFY_USER,
  },
  clarify_syntactic: {
    system: `A question is syntactically ambiguous: its words can be grouped into more than one structure. Resolve the parse: write clarified questions that each commit to one structure (which phrase attaches to which, what a modifier or "only" covers, how far a coordination reaches), rewording as little as needed so that only that structure is possible. ${CLARIFY_RULES}`,
    user: CLARIFY_USER,
  },
  clarify_constraint: {
    system: `A question has constraint ambiguity: one of its conditions is more specific than the need behind it, or than the way sources state the fact. Generalise the over-specific condition: write clarified questions that each relax or reinterpret it in one reasonable way (a wider time span, the general version of a quantity, each of the entities a superlative may pick out), keeping the kind of answer asked for and without widening the question further than that. ${CLARIFY_RULES}`,
    user: CLARIFY_USER,
  },
  decompose: {
    system: `You split a question into the atomic questions that answer it, in the order they must be answered. Each atomic question asks for one fact and stands on its own: it names its entities instead of pointing back ("he", "that country", "#1"). When a step needs the answer of an earlier step and you know that answer for certain from the question itself, write it in; otherwise describe the entity in words ("the company that makes the Mustang"). ${JSON_ONLY}`,
    user: `Question: {{question}}

Key: "sub_questions" (the ordered list of self-contained atomic questions).`,
  },
  short_answer: {
    system: `You answer a question using only the numbered passages given. The answer is copied character for character from one passage and is as short as it can be: a name, a date, a number or a brief phrase, never a sentence. Give the number of the passage you copied it from. If the passages do not support an answer, reply with an empty answer and passage 0; never answer from memory or from the wording of the question. ${JSON_ONLY}`,
    user: `Question: {{question}}
Steps towards it:
{{sub_questions}}

Passages:
{{passages}}

Keys: "answer" (the copied span, or "") and "passage" (the number of the passage it comes from, or 0).`,
  },
  long_answer: {
    system: `You write one answer to an ambiguous question that covers every interpretation. Say in a few words what makes the question ambiguous, then give each interpretation with its answer, as one fluent paragraph. Keep every short answer exactly as given, contradict none of them and add nothing the passages do not support. Cite the passages by number. ${JSON_ONLY}`,
    user: `Original question: {{question}}

Interpretations and their answers:
{{interpretations}}

Passages:
{{passages}}

Keys: "long_answer" (the paragraph) and "citations" (a list of {"interpretation": its number, "passage": the passage number} pairs).`,
  },
  shorten: {
    system: `You cut an answer down to the few words that actually answer the question: at most {{max_tokens}} words, copied exactly from the passage, whole words only. ${JSON_ONLY}`,
    user: `Question: {{question}}
Current answer: {{answer}}
Passage: {{passage}}

Key: "answer" (the shorter span, copied exactly from the passage).`,
  },
  filter: {
    system: `You check one entry of a benchmark of ambiguous questions. The entry is aligned only if all of these hold: the original question really shows the stated kind of ambiguity; every clarified question is a faithful, unambiguous interpretation of it and no two say the same thing; each short answer answers its own clarified question and its passage supports it; the long answer contains every short answer and contradicts none. Otherwise it is misaligned. ${JSON_ONLY}`,
    user: `Original question: {{question}}
Kind of ambiguity: {{type}}

{{interpretations}}

Long answer: {{long_answer}}

Keys: "aligned" (true or false) and "reason" (one or two sentences; name the problem when misaligned).`,
  },
  ...CONSTRUCTION_PROMPTS,
};

/**
 * Stores the built-in prompts: each one the first time, and again (as a new version) when the
 * built-in text has changed since, unless the latest version is someone's own edit, which stays.
 */
export function ensureBuiltInPrompts(db: WritableDB): void {
  const latest = new Map(latestPrompts(db).map((p) => [p.stage, p]));
  const stale = PROMPT_NAMES.filter((name) => {
    const current = latest.get(name);
    if (!current) return true;
    const builtIn = BUILT_IN_PROMPTS[name];
    return current.builtIn && (current.system !== builtIn.system || current.user !== builtIn.user);
  });
  if (stale.length === 0) return;
  transaction(db, () => {
    for (const stage of stale) insertPrompt(db, { stage, ...BUILT_IN_PROMPTS[stage], builtIn: true });
  });
}

export function currentPrompts(db: WritableDB): Map<PromptName, PromptTemplate> {
  ensureBuiltInPrompts(db);
  // Prompts no longer used (the single `clarify` of earlier versions) stay in the history only.
  return new Map(latestPrompts(db).filter((p) => (PROMPT_NAMES as readonly string[]).includes(p.stage)).map((p) => [p.stage, p]));
}

export function savePrompt(db: WritableDB, stage: string, system: string, user: string): PromptTemplate {
  if (!(PROMPT_NAMES as readonly string[]).includes(stage)) throw new AppError('invalid_input', `No prompt "${stage}" (one of ${PROMPT_NAMES.join(', ')})`);
  if (!system.trim() || !user.trim()) throw new AppError('invalid_input', 'A prompt needs a system and a user message.');
  ensureBuiltInPrompts(db);
  const allowed = placeholders(stage as PromptName);
  const unknown = [...`${system}\n${user}`.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]!).filter((name) => !allowed.includes(name));
  if (unknown.length) throw new AppError('invalid_input', `Unknown placeholder {{${unknown[0]}}}; this prompt can use ${allowed.map((p) => `{{${p}}}`).join(', ')}.`);
  return transaction(db, () => insertPrompt(db, { stage, system, user, builtIn: false }));
}

export function promptHistory(db: WritableDB, stage: string): PromptTemplate[] {
  ensureBuiltInPrompts(db);
  return promptVersions(db, stage);
}

/** The placeholders a template may use: those of its built-in version. */
export function placeholders(stage: PromptName): string[] {
  const { system, user } = BUILT_IN_PROMPTS[stage];
  return [...new Set([...`${system}\n${user}`.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]!))];
}

export function render(template: string, values: Record<string, string | number>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole));
}

export function promptVersion(p: PromptTemplate): string {
  return `${p.stage}@v${p.version}`;
}
