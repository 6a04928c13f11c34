import { JSON_ONLY, type EvalPromptSpec } from './prompt-parts';

/**
 * The standard methods MARCH compares against (§5): No Retrieval, CoT, NaiveRAG, CoT with RAG
 * and ReAct. They are the plain methods: nothing here mentions readings, interpretations or
 * several answers (a baseline told to disambiguate is no longer the baseline).
 */
export const BASELINE_PROMPTS = {
  eval_direct: {
    system: `Answer the user's question from your own knowledge, in one to three sentences. ${JSON_ONLY}`,
    user: `Question: {{question}}

Key: "answer".`,
    schema: 'plain_answer',
  },
  eval_cot: {
    system: `Answer the user's question from your own knowledge. Think it through step by step before you give the answer. ${JSON_ONLY}`,
    user: `Question: {{question}}

Keys: "reasoning" (your steps) and "answer" (one to three sentences).`,
    schema: 'reasoned_plain_answer',
  },
  eval_rag: {
    system: `Answer the user's question with the help of the numbered passages. Rely on the passages first; add your own knowledge only where they say nothing. List the numbers of the passages you drew on. ${JSON_ONLY}`,
    user: `Question: {{question}}

Passages:
{{passages}}

Keys: "answer" (one to three sentences) and "citations" (passage numbers).`,
    schema: 'cited_plain_answer',
  },
  eval_cot_rag: {
    system: `Answer the user's question with the help of the numbered passages. Work through the passages step by step, then answer; rely on the passages first and add your own knowledge only where they say nothing. List the numbers of the passages you drew on. ${JSON_ONLY}`,
    user: `Question: {{question}}

Passages:
{{passages}}

Keys: "reasoning" (your steps), "answer" (one to three sentences) and "citations" (passage numbers).`,
    schema: 'reasoned_cited_plain_answer',
  },
  eval_react: {
    system: `You answer a question by interleaving reasoning and acting, with a search engine over a collection of passages. At each step write a thought about what you know and what is missing, then pick one action: "search" with a specific query (never one you have already used), or "answer" once the evidence is enough. You may search at most {{budget}} times; when no searches remain you must answer with what you have. ${JSON_ONLY}`,
    user: `Question: {{question}}

Steps so far:
{{context}}

Searches used: {{used}} of {{budget}}.
Keys: "thought", "action" ("search" or "answer"), "query" (the search, or "") and "answer" (one to three sentences when answering, else "").`,
    schema: 'react_step',
  },
} as const satisfies Record<string, EvalPromptSpec>;
