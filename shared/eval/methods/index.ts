/**
 * The QA methods an evaluation run can apply, with what each needs. The prompts are in
 * `prompts.ts`, the answer shapes in `schemas.ts`, the steps and departures from each paper in
 * `method-info.ts`; the services run them step by step.
 */

export const EVAL_METHODS = [
  'no-retrieval',
  'cot',
  'naive-rag',
  'cot-rag',
  'diva',
  'react',
  'clarion',
  'clarion-no-clarification',
  'clarion-no-planning',
  'adf',
  'condqa',
  'condqa-no-condition',
  'condqa-oracle',
  'condqa-closed-book',
  'condqa-closed-book-conditions',
  'condqa-closed-book-oracle',
] as const;
export type EvalMethod = (typeof EVAL_METHODS)[number];

export interface MethodInfo {
  method: EvalMethod;
  label: string;
  /** The paper the method (or this setting of it) comes from. */
  source: string;
  /** Searches the corpus (needs a corpus, or a frozen fragment list for CondAmbigQA). */
  retrieves: boolean;
  description: string;
  /** The steps as the paper gives them, each with where it says so. */
  paperSteps: string[];
  /** Each choice that departs from the paper or goes beyond what it settles. */
  departures: string[];
}

export { METHOD_INFO } from './method-info';
