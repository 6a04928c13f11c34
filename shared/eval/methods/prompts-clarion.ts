import { JSON_ONLY, type EvalPromptSpec } from './prompt-parts';

/**
 * CLARION (MARCH §4, App. G.2, App. J). The planning agent detects and types the ambiguity, then
 * clarifies with the prompt of the detected type (Table 1: semantic → interpret, syntactic →
 * resolve, constraint → generalise). The acting agent runs one bounded loop over the whole
 * interpretation set, may call the planning agent again, and answers each interpretation with its
 * hop chain, which is then checked for hop consistency and, where it breaks, recovered.
 */

const PLANNER = 'You are the planning agent of a question-answering system; nothing has been searched yet.';

export const CLARION_PROMPTS = {
  eval_clarion_detect: {
    system: `${PLANNER} Decide whether the question is ambiguous and, if so, of which kind: "syntactic" (the words can be parsed in more than one way: what a phrase attaches to, the scope of a quantifier, a coordination, what a pronoun points to), "constraint" (a condition is narrower than the need behind it, so a slightly broader question fits the user better and has several valid answers) or "semantic" (the structure is clear, but a name or phrase can denote different things, so world knowledge allows several readings); "none" when it reads one way. ${JSON_ONLY}`,
    user: `Question: {{question}}

Keys: "reasoning" (brief), "is_ambiguous", "ambiguity_type", "ambiguous_aspects" (the words or conditions at issue) and "clarification_needed" (what would settle it).`,
    schema: 'detect',
  },
  eval_clarion_clarify_semantic: {
    system: `${PLANNER} The question is semantically ambiguous: a name or phrase in it can refer to different things (namesakes, aliases, clashing acronyms, different senses). Rewrite it into {{count}} clarified questions, one for each referent or sense. Keep the topic; add only the little context (a time, the referent, the sense) that makes each one unambiguous; plain, short English. ${JSON_ONLY}`,
    user: `Question: {{question}}
Analysis: {{analysis}}

Keys: "reasoning" and "clarified_questions" (exactly {{count}}).`,
    schema: 'clarify',
  },
  eval_clarion_clarify_syntactic: {
    system: `${PLANNER} The question is syntactically ambiguous: its words admit more than one structure (attachment, scope, coordination, what a pronoun or an elided part refers to). Rewrite it into {{count}} clarified questions, one for each structural reading, each with a single possible parse. Keep the topic; plain, short English. ${JSON_ONLY}`,
    user: `Question: {{question}}
Analysis: {{analysis}}

Keys: "reasoning" and "clarified_questions" (exactly {{count}}).`,
    schema: 'clarify',
  },
  eval_clarion_clarify_constraint: {
    system: `${PLANNER} The question is over-constrained: it is narrower than the need behind it. Rewrite it into {{count}} broader but faithful questions. First name the core fact or relation sought; settle or drop chains of indirection (put the entity itself when it is obvious, a neutral placeholder when not); loosen constraints that are too tight (exact dates, versions, quoted titles, disputed superlatives). Keep the type of answer the same and do not widen more than needed; plain, short English. ${JSON_ONLY}`,
    user: `Question: {{question}}
Analysis: {{analysis}}

Keys: "reasoning" and "clarified_questions" (exactly {{count}}).`,
    schema: 'clarify',
  },
  eval_clarion_act: {
    system: `You are the acting agent of a question-answering system. You hold a set of interpretations of the user's question and gather evidence for each with a search engine over a collection of passages. At each step write a thought, then pick one action: "search" (a specific query for one interpretation, named by its number; never a query you have already used), "plan" (ask the planning agent to revise the interpretation set, when a reading is missing or one is wrong) or "answer" (answer every interpretation you can). An answer gives, per interpretation, the answer and its chain of hops: each hop is the entity it resolved and the numbers of the passages that support it, the first hop naming the entity the question is about and each later hop building on the one before. Then write one long answer that covers every interpretation, or as many as the evidence allows. You have {{budget}} steps; when none remain you must answer. ${JSON_ONLY}`,
    user: `Original question: {{question}}
{{analysis}}
Interpretations and the passages found for each:
{{interpretations}}

Steps so far:
{{context}}

Steps used: {{used}} of {{budget}}.
Keys: "thought", "action" ("search", "plan" or "answer"), "interpretation" (the number a search serves, else 0), "query" (the search, or ""), "answers" (when answering: one {"interpretation", "answer", "hops": [{"hop", "entity", "passages"}]} per interpretation answered, else []) and "long_answer" (when answering, else "").`,
    schema: 'act_step',
  },
  eval_clarion_replan: {
    system: `${PLANNER} The acting agent asks you to revise the set of interpretations of a question in the light of the evidence so far: add a reading that is missing, correct one that is mis-stated, or drop one that the evidence rules out. Give the whole revised set, at most {{max}} clarified questions. ${JSON_ONLY}`,
    user: `Original question: {{question}}
{{analysis}}
Current interpretations and the evidence for each:
{{interpretations}}

Keys: "reason" and "interpretations" (the revised clarified questions).`,
    schema: 'replan',
  },
  eval_clarion_verify: {
    system: `You check the answers of a multi-hop question-answering agent for hop consistency before they are given to the user. For each interpretation you see its answer, its chain of hops and the passages the chain cites. "pass": the first hop's entity is supported by a cited passage, and each later hop's evidence is about the entity resolved at the hop before. "fail": the first hop is unsupported, or a later hop's evidence is not about the entity before it (a mismatch between hops); name the hop and give a search query that would find the missing evidence. "blocked": a hop's entity is missing or unspecified, so the chain cannot be followed at all without asking the user. ${JSON_ONLY}`,
    user: `Original question: {{question}}

{{answers}}

Key: "verdicts" (one {"interpretation", "verdict", "hop" (the first hop that breaks, 0 when none), "reason", "recovery_query" ("" unless the verdict is fail)} per interpretation).`,
    schema: 'hop_verify',
  },
  eval_clarion_recover: {
    system: `You repair one interpretation's answer of a multi-hop question-answering agent. Its hop chain failed a consistency check; new passages were retrieved for the hop that broke. Answer the interpretation again from the passages, with its chain of hops (each hop: the entity resolved and the numbers of the passages that support it). If the passages still do not support a chain, give an empty answer. ${JSON_ONLY}`,
    user: `Interpretation: {{interpretation}}
Previous answer: {{answer}}
Why it failed: {{reason}}

Passages:
{{passages}}

Keys: "answer" and "hops" (a list of {"hop", "entity", "passages"}).`,
    schema: 'recover',
  },
  eval_clarion_compose: {
    system: `You write the final answer of a question-answering agent from the interpretations whose answers passed a hop-consistency check. Cover each verified interpretation with its answer, making clear which reading each belongs to; then say in one short clause each which readings could not be answered safely and which need the user to specify what they mean. Do not give answers for those. ${JSON_ONLY}`,
    user: `Original question: {{question}}

Verified:
{{verified}}

Not safely answerable:
{{unverified}}

Needs the user to specify:
{{blocked}}

Key: "long_answer" (one paragraph).`,
    schema: 'compose',
  },
} as const satisfies Record<string, EvalPromptSpec>;
