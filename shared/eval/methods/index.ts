/**
 * The QA methods an evaluation run can apply, with what each needs. The prompts are in
 * `prompts.ts`, the answer shapes in `schemas.ts`; the services run them step by step.
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
}

export const METHOD_INFO: Record<EvalMethod, MethodInfo> = {
  'no-retrieval': { method: 'no-retrieval', label: 'No Retrieval', source: 'MARCH §5', retrieves: false, description: 'The model answers from what it knows, in one call.' },
  cot: { method: 'cot', label: 'Chain-of-Thought', source: 'MARCH §5', retrieves: false, description: 'The model reasons step by step, then answers; no passages.' },
  'naive-rag': { method: 'naive-rag', label: 'NaiveRAG', source: 'MARCH §5', retrieves: true, description: 'Top-k passages for the question, then one answering call.' },
  'cot-rag': { method: 'cot-rag', label: 'CoT + RAG', source: 'MARCH §5', retrieves: true, description: 'Top-k passages, then step-by-step reasoning and an answer.' },
  diva: {
    method: 'diva',
    label: 'DIVA',
    source: 'MARCH §5 (In et al. 2025)',
    retrieves: true,
    description:
      "Diversify into interpretations, retrieve for each, label passages useful / partially useful / useless, answer each from useful evidence or, lacking any, from the model's own knowledge.",
  },
  react: {
    method: 'react',
    label: 'ReAct',
    source: 'MARCH §5 (Yao et al. 2023)',
    retrieves: true,
    description: 'Thought, action (search or answer), observation; bounded iterations, a forced answer at the limit.',
  },
  clarion: {
    method: 'clarion',
    label: 'CLARION',
    source: 'MARCH §4',
    retrieves: true,
    description: 'Planning agent (detect, type, clarify), then an acting agent that runs a bounded search / plan / answer loop per interpretation, then one merged long answer.',
  },
  'clarion-no-clarification': {
    method: 'clarion-no-clarification',
    label: 'CLARION w/o clarification',
    source: 'MARCH §4, Table 3',
    retrieves: true,
    description: 'The planning agent detects and types the ambiguity but does not rewrite the question; the acting agent works on the original question with that analysis.',
  },
  'clarion-no-planning': {
    method: 'clarion-no-planning',
    label: 'CLARION w/o clarification & detection',
    source: 'MARCH §4, Table 3',
    retrieves: true,
    description: 'No planning agent: the acting agent alone, on the original question.',
  },
  adf: {
    method: 'adf',
    label: 'ADF',
    source: 'paper 002',
    retrieves: true,
    description:
      'Retrieval-geometry gate (dispersion, 2-means silhouette); if ambiguous, k-means clusters become sub-questions, each searched directly and through a HyDE passage, fused by RRF, then one structured answer.',
  },
  condqa: {
    method: 'condqa',
    label: 'CondAmbigQA (conditions)',
    source: 'paper 003',
    retrieves: true,
    description: 'Identify the conditions in the fragment list, then answer per condition with citations into it.',
  },
  'condqa-no-condition': {
    method: 'condqa-no-condition',
    label: 'CondAmbigQA (no conditions)',
    source: 'paper 003',
    retrieves: true,
    description: 'Answer from the fragment list with citations, without conditions.',
  },
  'condqa-oracle': {
    method: 'condqa-oracle',
    label: 'CondAmbigQA (oracle conditions)',
    source: 'paper 003',
    retrieves: true,
    description: 'The gold conditions are given; answer each with citations into the fragment list.',
  },
  'condqa-closed-book': {
    method: 'condqa-closed-book',
    label: 'CondAmbigQA (closed book)',
    source: 'paper 003',
    retrieves: false,
    description: 'No fragments: the model states conditions and answers from its own knowledge.',
  },
};

