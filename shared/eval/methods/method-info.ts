import type { EvalMethod, MethodInfo } from './index';

/**
 * What each method does as its paper describes it, and where this implementation departs from
 * the paper or decides what the paper leaves open. Seed references: MARCH (+ CLARION) = 000,
 * ADF = 002, CondAmbigQA = 003 (the text files in shared/seeds). docs/evaluation-methods.md says
 * the same at more length.
 */

const JSON_OUTPUT = 'Every call asks for a JSON object with named keys (the papers give no wording for these prompts, or their own; ours are written afresh).';
const BASELINE_STEPS = 'MARCH §5: a standard method with no handling of ambiguity; same retriever and top-k (10) for every method (App. H, Table 17).';
const PROSE = 'Answers in prose and commits to no short answers of its own, so answer count and the short-answer metrics are not applicable.';

const baseline = (method: EvalMethod, label: string, retrieves: boolean, description: string, steps: string[]): MethodInfo => ({
  method,
  label,
  source: 'MARCH §5',
  retrieves,
  description,
  paperSteps: [BASELINE_STEPS, ...steps],
  departures: [JSON_OUTPUT, PROSE, ...(retrieves ? ['Passages longer than 1,200 characters are cut in the prompt.'] : [])],
});

const CLARION_STEPS = [
  'Planning agent (000 §4): detect ambiguity; if none, pass the question on unchanged; else classify it as syntactic, constraint or semantic (Fig. 15, Table 1).',
  'Clarify by type (Figs. 7, 9, 11, 16): semantic → one question per referent or sense; syntactic → one per parse; constraint → broader faithful variants. Two clarified questions (Fig. 16).',
  'Acting agent (000 §4, Fig. 17): one ReAct loop over the interpretation set; each step searches, calls the planning agent (refine or extend the set) or answers; at most five iterations (Table 17: max search iteration 5), then a compelled answer.',
  'Hop-consistency verification (App. G.2, Table 16): the hop-1 entity must be supported by evidence and each later hop grounded in the entity before; pass → answer with citation; fail → recover by targeted re-retrieval; blocked → ask the user.',
  'Final answer covers the verified interpretations and says which are not safely answerable or need the user.',
];

const CLARION_DEPARTURES = [
  'The budget (search budget, default 5) counts every step of the acting agent for the whole item, whatever the action, so an item makes at most budget searches and budget + 1 acting calls; the seeds do not say whether the five iterations are per item or per interpretation.',
  'Verification and recovery prompts are ours (App. G.2 gives the checks and outcomes, not a prompt); the acting agent states each interpretation’s hop chain (entity and passages per hop) so that it can be checked.',
  'A recovery search comes out of the same budget; a failed chain gets one recovery search, one re-answer and one re-check; still failing (or no budget left) it is reported as not safely answerable.',
  'Blocked interpretations are reported as needing the user (a batch evaluation has no user to ask).',
  'An unusable verification reply keeps the answers unchecked and says so on the item.',
  JSON_OUTPUT,
];

const COND = (setting: string, steps: string[], departures: string[], retrieves = true): Pick<MethodInfo, 'source' | 'retrieves' | 'paperSteps' | 'departures'> => ({
  source: `paper 003 (${setting})`,
  retrieves,
  paperSteps: steps,
  departures: [
    ...departures,
    'Fragments are shown whole, numbered from 1, as "[n] Title: text" (App. D writes "Fragment n - Title: text").',
    'A cited number the fragment list does not have is kept as invalid and counts against citation precision; the item says so.',
  ],
});

export const METHOD_INFO: Record<EvalMethod, MethodInfo> = {
  'no-retrieval': baseline('no-retrieval', 'No Retrieval', false, 'The model answers from what it knows, in one call.', ['LLM-only inference without external context.']),
  cot: baseline('cot', 'Chain-of-Thought', false, 'The model reasons step by step, then answers; no passages.', ['Standard chain-of-thought prompting without retrieval (Wei et al. 2022).']),
  'naive-rag': baseline('naive-rag', 'NaiveRAG', true, 'Top-k passages for the question, then one answering call.', ['Retrieve the top-k passages with the original question, then read them and answer (Lewis et al. 2020).']),
  'cot-rag': baseline('cot-rag', 'CoT + RAG', true, 'Top-k passages, then step-by-step reasoning and an answer.', ['Chain-of-thought prompting over the retrieved passages.']),
  react: {
    method: 'react',
    label: 'ReAct',
    source: 'MARCH §5 (Yao et al. 2023)',
    retrieves: true,
    description: 'Thought, action (search or answer), observation, one trajectory; at most the search budget of steps, then a forced answer.',
    paperSteps: [
      'MARCH §5: thoughts plan, search actions retrieve, observations refine the path; one reasoning trajectory.',
      'Fig. 17: a specific query per search, no query repeated, "max searches allowed / searches used so far"; at the limit the agent must answer. Limit 5 (Table 17).',
    ],
    departures: [
      'Each step costs one of the budget whatever it does (a refused repeated query too), so searches ≤ budget and calls ≤ budget + 1.',
      'No disambiguation instruction: ReAct is a baseline.',
      JSON_OUTPUT,
      PROSE,
    ],
  },
  diva: {
    method: 'diva',
    label: 'DIVA',
    source: 'MARCH §5; ADF §5 (re-implementation settings); DIVA (arXiv 2409.02361)',
    retrieves: true,
    description: 'Retrieve for the question, infer interpretations from the passages, retrieve per interpretation, label every passage per interpretation, then answer from the passages, partly from own knowledge, or from own knowledge alone, as the evidence allows.',
    paperSteps: [
      'Diversify the question into interpretations (MARCH §5); DIVA infers them with the help of passages retrieved for the question first.',
      'Retrieve for the original question and for each interpretation (ADF §5.3.4); 3 interpretations, diversification temperature 0.7.',
      'Verify: label the passages Useful / Partially Useful / Useless per interpretation (MARCH §5); verification temperature 0.',
      'Adapt: answer from the passages when the evidence suffices, from the model’s own knowledge when it does not (MARCH §5, DIVA).',
    ],
    departures: [
      'How the diversified set is chosen is ours: round-robin over the question’s ranking and each interpretation’s, taking each list’s next unseen passage, until k.',
      'Sufficiency per interpretation (useful if any passage is useful, partial if only partially useful ones, else useless) and for the item (useful if all are, useless if none has any, else partial) is ours; in the partial mode the covered interpretations are answered from passages and the others from own knowledge.',
      'Passages that no interpretation found of any use are left out of the answering prompt.',
      'An unusable verification reply treats that interpretation’s passages as partially useful, said on the item.',
      'The answer is one long answer covering every interpretation (DIVA is built for ambiguous questions).',
      JSON_OUTPUT,
    ],
  },
  clarion: { method: 'clarion', label: 'CLARION', source: 'MARCH §4, App. G.2', retrieves: true, description: 'Planning agent (detect, type, clarify by type), then one bounded acting loop over the interpretation set (search, re-plan, answer), hop-consistency checks and recovery, and a final answer from the verified interpretations.', paperSteps: CLARION_STEPS, departures: CLARION_DEPARTURES },
  'clarion-no-clarification': {
    method: 'clarion-no-clarification',
    label: 'CLARION w/o clarification',
    source: 'MARCH §4, Table 3',
    retrieves: true,
    description: 'The planning agent detects and types the ambiguity but does not rewrite the question; the acting agent works on the original question with that analysis.',
    paperSteps: ['Table 3 ablation: CLARION without the clarification step.', ...CLARION_STEPS.slice(2)],
    departures: ['The acting agent cannot call the planning agent here (re-planning would bring clarification back).', 'Verification and recovery stay: they belong to the acting agent.', ...CLARION_DEPARTURES],
  },
  'clarion-no-planning': {
    method: 'clarion-no-planning',
    label: 'CLARION w/o clarification & detection',
    source: 'MARCH §4, Table 3',
    retrieves: true,
    description: 'No planning agent: the acting agent alone, on the original question.',
    paperSteps: ['Table 3 ablation: CLARION without clarification and detection, i.e. without the planning agent.', ...CLARION_STEPS.slice(2)],
    departures: ['No re-planning (there is no planning agent).', 'Verification and recovery stay: they belong to the acting agent.', ...CLARION_DEPARTURES],
  },
  adf: {
    method: 'adf',
    label: 'ADF',
    source: 'paper 002',
    retrieves: true,
    description: 'Retrieval-geometry gate (dispersion, 2-means silhouette) on 2k passages; if ambiguous, k-means clusters near the question become sub-questions, each searched directly and through a HyDE passage, fused by RRF, then one structured answer.',
    paperSteps: [
      'Retrieve 2k passages (k = 5) and measure centroid dispersion (eq. 1) and 2-means silhouette (eq. 2); state by eq. 3 with thresholds per dataset: AmbigNQ 0.25 / 0.1, ASQA 0.15 / 0.05.',
      'Unambiguous: generate from the top k. Else k-means with k = min(max(2, ⌊|D|/2⌋), 4) (eq. 4); keep clusters with cos(q, centroid) ≥ 0.2 (eq. 5); one sub-question per cluster.',
      'HyDE passage per sub-question (AmbigNQ succinct and entity-heavy, ASQA detailed); retrieve with the sub-question and with the HyDE passage using the same retriever; fuse by RRF (eq. 6).',
      'Structured synthesis naming each interpretation with contrastive markers (AmbigNQ concise answers, ASQA 150-250 words).',
    ],
    departures: [
      'RRF η = 60 (Cormack et al.); the paper does not give it.',
      'The thresholds profile follows the source’s import format (asqa, ambignq; anything else takes AmbigNQ’s and says so); explicit thresholds make it custom.',
      'Both pathways use the run’s retrieval mode; the latent pathway searches with the HyDE passage as the query (BM25 over its words, dense over its embedding).',
      'A failed HyDE call leaves that latent pathway empty and is counted and said on the item.',
      'Without vectors the gate cannot run: the question is answered as unambiguous, said on the item.',
      'Default max tokens 512 (the paper: 200) because answers are JSON; the reproduction guide sets 200.',
      JSON_OUTPUT,
    ],
  },
  condqa: {
    method: 'condqa',
    label: 'CondAmbigQA (conditions)',
    description: 'Find up to five conditions in the fragment list, answer under each, cite fragments.',
    ...COND(
      'primary setting',
      ['Given the question and the retrieved fragments, identify up to five key conditions from the fragments only, answer each in detail, and cite the supporting fragment numbers (003 §4.2, App. D).'],
      ['Pairs beyond the five asked for are dropped (the first five kept) and the item says so.'],
    ),
  },
  'condqa-no-condition': {
    method: 'condqa-no-condition',
    label: 'CondAmbigQA (no conditions)',
    description: 'Standard RAG over the fragment list: one answer, up to five cited fragments.',
    ...COND('without conditions, Fig. 4', ['Answer from the fragments only and cite up to five fragment numbers (003 §5.5, App. D standard RAG prompt).'], ['Citations beyond five are all scored, and the item says the model cited more than asked.']),
  },
  'condqa-oracle': {
    method: 'condqa-oracle',
    label: 'CondAmbigQA (gold conditions)',
    description: 'The gold conditions are given; answer each with citations into the fragment list.',
    ...COND('ground-truth conditions, Fig. 4', ['Answer under each given ground-truth condition with the fragments, citing them (003 §4.2 alternative setting, App. D).'], ['An item without gold conditions fails with that reason; a source with none is refused.']),
  },
  'condqa-closed-book': {
    method: 'condqa-closed-book',
    label: 'CondAmbigQA (closed book)',
    description: 'No fragments: one direct answer from the model’s own knowledge.',
    ...COND('Table 3 closed-book', ['No passages: zero-shot direct answering (003 §5.6).'], [], false),
  },
  'condqa-closed-book-conditions': {
    method: 'condqa-closed-book-conditions',
    label: 'CondAmbigQA (closed book + model conditions)',
    description: 'No fragments: the model hypothesises conditions and answers under each.',
    ...COND('Table 3 + model-generated conditions', ['No passages: reasoning with model-hypothesised conditions (003 §5.6).'], ['Up to five conditions, as in the primary setting (the paper does not give the closed-book prompt).'], false),
  },
  'condqa-closed-book-oracle': {
    method: 'condqa-closed-book-oracle',
    label: 'CondAmbigQA (closed book + gold conditions)',
    description: 'No fragments: the model answers under each gold condition from its own knowledge.',
    ...COND('Table 3 + ground-truth conditions', ['No passages: answering with the ground-truth conditions given (003 §5.6, Table 3).'], ['An item without gold conditions fails with that reason; a source with none is refused.'], false),
  },
};
