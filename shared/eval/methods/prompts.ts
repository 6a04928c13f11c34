import { JSON_ONLY, type EvalPromptSpec } from './prompt-parts';
import { AMBIGUITY_PROMPTS } from './prompts-ambiguity';
import { BASELINE_PROMPTS } from './prompts-baselines';
import { CLARION_PROMPTS } from './prompts-clarion';
import { CONDQA_PROMPTS } from './prompts-condqa';

export type { EvalPromptSpec } from './prompt-parts';

/**
 * The built-in prompt of every call the evaluation makes, in this project's own words (the
 * papers say what each step must do). They are stored and versioned like the pipeline's prompts
 * (names start with `eval_`); editing one saves a new version and every item records the
 * versions it used. `{{name}}` placeholders are filled by the services.
 */

const SCORING_PROMPTS = {
  eval_reader: {
    system: `You are an extractive reader. Given a context and a question, copy the shortest span of the context that answers the question, character for character. If the context does not answer it, reply with an empty answer. ${JSON_ONLY}`,
    user: `Context: {{context}}

Question: {{question}}

Key: "answer".`,
    schema: 'reader',
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

export const EVAL_PROMPTS = { ...BASELINE_PROMPTS, ...CLARION_PROMPTS, ...AMBIGUITY_PROMPTS, ...CONDQA_PROMPTS, ...SCORING_PROMPTS } as const;

export type EvalPromptName = keyof typeof EVAL_PROMPTS;
export const EVAL_PROMPT_NAMES = Object.keys(EVAL_PROMPTS) as EvalPromptName[];
/** The prompts of the standard baselines (MARCH §5), which must not ask for disambiguation. */
export const BASELINE_PROMPT_NAMES = Object.keys(BASELINE_PROMPTS) as EvalPromptName[];

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
