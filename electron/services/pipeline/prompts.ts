import { countPrompts, insertPrompt, latestPrompts, promptVersions } from '../../../db/queries/pipeline';
import { transaction, type WritableDB } from '../../../db/sql';
import { AppError } from '../../../shared/api';
import { SCHEMA_NAMES, SYNTACTIC_PHENOMENA, type PromptTemplate, type SchemaName } from '../../../shared/pipeline';

/**
 * The pipeline's prompts: one template per call kind, written for this project (the paper says
 * what each stage must achieve; the wording is ours). Templates are versioned in the database;
 * editing one saves a new version, and every generated field records the version it came from.
 * `{{name}}` placeholders are filled from the item.
 */

const JSON_ONLY = 'Reply with a single JSON object and nothing else: no prose, no code fences.';

const phenomena = SYNTACTIC_PHENOMENA.map((p, i) => `${i + 1}. ${p}`).join('\n');

export const BUILT_IN_PROMPTS: Record<SchemaName, { system: string; user: string }> = {
  detect_semantic: {
    system: `You check questions for lexical (semantic) ambiguity: a word, name or phrase in the question that can denote more than one thing, so that the question has more than one sensible answer depending on which is meant. Ignore vagueness that any reader would settle the same way. ${JSON_ONLY}`,
    user: `Question: {{question}}

Does some expression in this question refer to more than one entity, sense or version in a way that changes the answer?
Keys: "ambiguous" (true or false) and "reason" (one sentence naming the expression and its readings, or why there is none).`,
  },
  detect_syntactic: {
    system: `You are a linguist who spots structural (syntactic) ambiguity: one string of words that parses in more than one way, giving different questions. ${JSON_ONLY}`,
    user: `Question: {{question}}

The phenomena to consider, by number:
${phenomena}

Can the question be parsed in more than one way under any of them, with different answers?
Keys: "ambiguous" (true or false), "phenomena" (the numbers that apply, ascending; [] when not ambiguous) and "reason" (one sentence).`,
  },
  detect_constraint: {
    system: `You judge whether a search question is over-constrained: so narrow (exact dates, versions, quoted titles, chains of indirect descriptions) that it probably misses what the asker wants to know, so that relaxing a constraint would give several legitimate answers. You are given retrieval signals measured on the corpus; weigh them with judgement, there are no fixed thresholds. ${JSON_ONLY}`,
    user: `Question: {{question}}

Signals from the corpus:
- passages matching every content word of the literal question: {{total_hits}}
- KL divergence between the words of the top passages and the corpus: {{kl_divergence}}
- largest fold increase in matches after dropping one number, date or quoted phrase: {{relax_delta_ratio}}

Is the question ambiguous because of over-specific constraints?
Keys: "ambiguous" (true or false) and "reason" (one sentence).`,
  },
  clarify: {
    system: `You rewrite an ambiguous question into clarified questions. Each clarified question must commit to exactly one reading of the ambiguity, be answerable on its own, keep the topic and the rest of the question unchanged, and read as natural English. Different clarified questions must lead to different answers. ${JSON_ONLY}`,
    user: `Question: {{question}}
Kind of ambiguity: {{type}} ({{type_hint}})
{{detector_notes}}

Write at least {{min_readings}} clarified questions, one per distinct reading.
Key: "clarified_questions" (a list of strings).`,
  },
  decompose: {
    system: `You break a question into the single-hop questions that answer it step by step. Each step asks one fact; a later step may refer to an earlier answer as #1, #2 and so on. Keep the order in which they must be answered. ${JSON_ONLY}`,
    user: `Question: {{question}}

Key: "sub_questions" (the ordered list of single-hop questions).`,
  },
  short_answer: {
    system: `You answer a question from numbered passages only. The answer must be copied exactly, character for character, from one passage: a short span such as a name, a date, a number or a short phrase. If no passage supports an answer, give an empty answer and passage 0. ${JSON_ONLY}`,
    user: `Question: {{question}}
Steps that lead to it:
{{sub_questions}}

Passages:
{{passages}}

Keys: "answer" (the exact span, or "") and "passage" (the number of the passage it is copied from, or 0).`,
  },
  long_answer: {
    system: `You write one answer that serves every reading of an ambiguous question. Say briefly why the question is ambiguous, then give each reading with its answer, in one fluent paragraph. Use each short answer exactly as given, do not contradict any of them and add no facts that the passages do not support. Cite passages by number. ${JSON_ONLY}`,
    user: `Original question: {{question}}

Readings and their answers:
{{readings}}

Passages:
{{passages}}

Keys: "long_answer" (the paragraph) and "citations" (a list of {"reading": reading number, "passage": passage number} pairs).`,
  },
  shorten: {
    system: `You shorten an answer to the essential span that answers the question, at most {{max_tokens}} words, copied exactly from the passage. ${JSON_ONLY}`,
    user: `Question: {{question}}
Current answer: {{answer}}
Passage: {{passage}}

Key: "answer" (the shorter span, copied exactly from the passage).`,
  },
  filter: {
    system: `You review one entry of a benchmark of ambiguous questions. The entry is aligned when: the original question really has the stated kind of ambiguity; every clarified question is a faithful, unambiguous reading of it and the readings differ; each short answer answers its clarified question and is supported by its passage; the long answer includes every short answer without contradiction. Otherwise it is misaligned. ${JSON_ONLY}`,
    user: `Original question: {{question}}
Kind of ambiguity: {{type}}

{{readings}}

Long answer: {{long_answer}}

Keys: "aligned" (true or false) and "reason" (one or two sentences; name the problem when misaligned).`,
  },
};

export function ensureBuiltInPrompts(db: WritableDB): void {
  transaction(db, () => {
    for (const stage of SCHEMA_NAMES) if (countPrompts(db, stage) === 0) insertPrompt(db, { stage, ...BUILT_IN_PROMPTS[stage], builtIn: true });
  });
}

export function currentPrompts(db: WritableDB): Map<SchemaName, PromptTemplate> {
  ensureBuiltInPrompts(db);
  return new Map(latestPrompts(db).map((p) => [p.stage, p]));
}

export function savePrompt(db: WritableDB, stage: string, system: string, user: string): PromptTemplate {
  if (!(SCHEMA_NAMES as string[]).includes(stage)) throw new AppError('invalid_input', `No prompt "${stage}" (one of ${SCHEMA_NAMES.join(', ')})`);
  if (!system.trim() || !user.trim()) throw new AppError('invalid_input', 'A prompt needs a system and a user message.');
  ensureBuiltInPrompts(db);
  const unknown = [...`${system}\n${user}`.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]!).filter((name) => !placeholders(stage as SchemaName).includes(name));
  if (unknown.length) throw new AppError('invalid_input', `Unknown placeholder {{${unknown[0]}}}; this prompt can use ${placeholders(stage as SchemaName).map((p) => `{{${p}}}`).join(', ')}.`);
  return transaction(db, () => insertPrompt(db, { stage, system, user, builtIn: false }));
}

export function promptHistory(db: WritableDB, stage: string): PromptTemplate[] {
  ensureBuiltInPrompts(db);
  return promptVersions(db, stage);
}

/** The placeholders a template may use: those of its built-in version. */
export function placeholders(stage: SchemaName): string[] {
  const { system, user } = BUILT_IN_PROMPTS[stage];
  return [...new Set([...`${system}\n${user}`.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]!))];
}

export function render(template: string, values: Record<string, string | number>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole));
}

export function promptVersion(p: PromptTemplate): string {
  return `${p.stage}@v${p.version}`;
}
