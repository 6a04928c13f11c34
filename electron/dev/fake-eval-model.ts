import { tokenF1 } from '../../shared/eval/answer-metrics';
import { contentTerms } from '../../shared/retrieval/terms';
import { ambiguousExpression, candidates, ORDINALS, words } from './fake-text';

/**
 * The fake model's answers to the evaluation's calls (each method's prompts, the reader and the
 * judges), by the schema a request names: cooperative and deterministic, read off the prompt.
 * Answers come from the numbered passages shown (the passage that shares most words with the
 * question or interpretation first); with no passages, the model does not know. The G-Eval judge
 * scores by word overlap and, asked for them, returns token log-probabilities around its score.
 */

export interface FakeEvalRequest {
  user: string;
  system: string;
  /** The request asked for token log-probabilities (and the script does not refuse them). */
  logprobs: boolean;
}

export interface FakeEvalAnswer {
  value: unknown;
  logprobs?: { token: string; logprob: number; top_logprobs: { token: string; logprob: number }[] }[];
}

const line = (text: string, label: string) => new RegExp(`^${label}: (.*)$`, 'm').exec(text)?.[1]?.trim() ?? '';

/** `[n] Title: text` lines of a prompt, by number (one passage per line, as the evaluation lists them). */
function numbered(text: string): Map<number, string> {
  return new Map([...text.matchAll(/^\[(\d+)\] (.*)$/gm)].map((m) => [Number(m[1]), m[2]!]));
}

const overlap = (a: string, b: string) => {
  const wanted = words(b);
  return [...words(a)].filter((w) => wanted.has(w)).length;
};

/** The best answer the passages hold for a question: from the passage sharing most words with it; the sense-th candidate for a clarified question. */
function bestAnswer(passages: Map<number, string>, question: string, avoid: readonly string[] = []): { answer: string; passage: number } | null {
  const sense = Math.max(0, ORDINALS.findIndex((o) => question.includes(`in its ${o} sense`)));
  const ranked = [...passages].sort((a, b) => overlap(b[1], question) - overlap(a[1], question) || a[0] - b[0]);
  const pool = ranked.flatMap(([n, text]) => candidates(text, question).map((answer) => ({ answer, passage: n }))).filter((c) => !avoid.includes(c.answer));
  return pool[sense] ?? pool[0] ?? null;
}

/** Candidates of the kind the question asks for first: dates and numbers for "when", names for "who" (a stable sort). */
function byKind(question: string, found: readonly string[]): string[] {
  const q = question.toLowerCase();
  const rank = (c: string) => (/\bwhen\b|what year|how (many|much|long)/.test(q) ? (/\d/.test(c) ? 0 : 1) : /^who\b/.test(q) ? (/\d/.test(c) || !c.includes(' ') ? 1 : 0) : 0);
  return [...found].sort((a, b) => rank(a) - rank(b));
}

/**
 * A fuller answer: the first few candidates (of the kind asked for) of the two passages closest
 * to the question, as one phrase; a clarified question taken "in its n-th sense" starts further on.
 */
function answerText(passages: Map<number, string>, question: string, n: number): { answer: string; passage: number } | null {
  const ranked = [...passages].sort((a, b) => overlap(b[1], question) - overlap(a[1], question) || a[0] - b[0]).slice(0, 2);
  const sense = Math.max(0, ORDINALS.findIndex((o) => question.includes(`in its ${o} sense`)));
  const all = byKind(question, [...new Set(ranked.flatMap(([, text]) => candidates(text, question)))]);
  const found = all.slice(Math.min(sense * n, Math.max(0, all.length - n)), Math.min(sense * n, Math.max(0, all.length - n)) + n);
  return found.length ? { answer: found.join('; '), passage: ranked[0]![0] } : null;
}

/** A score token and its likely neighbours, as an endpoint reports log-probabilities. */
function scoreLogprobs(value: unknown, score: number): FakeEvalAnswer['logprobs'] {
  const top = [
    { token: String(score), logprob: Math.log(0.7) },
    ...[score - 1, score + 1].filter((s) => s >= 0 && s <= 10).map((s) => ({ token: String(s), logprob: Math.log(0.15) })),
  ];
  return [
    { token: '{"score":', logprob: 0, top_logprobs: [] },
    { token: String(score), logprob: Math.log(0.7), top_logprobs: top },
    { token: JSON.stringify(value).slice(`{"score":${score}`.length), logprob: 0, top_logprobs: [] },
  ];
}

/** The interpretations a CLARION prompt lists, with the passage numbers found for each. */
function readings(user: string): { n: number; question: string; passages: number[] }[] {
  return [...user.matchAll(/^(\d+)\. (.*)\n {3}passages: (.*)$/gm)].map((m) => ({ n: Number(m[1]), question: m[2]!, passages: [...m[3]!.matchAll(/\[(\d+)\]/g)].map((x) => Number(x[1])) }));
}

function act(user: string): unknown {
  const list = readings(user);
  const all = numbered(user);
  const steps = (user.match(/^Step \d+$/gm) ?? []).length;
  const forced = /No steps remain/.test(user);
  const next = list[steps];
  // Search each interpretation once, then answer every one from its own passages.
  if (!forced && next) return { thought: `find evidence for interpretation ${next.n}`, action: 'search', interpretation: next.n, query: next.question, answers: [], long_answer: '' };
  const given: string[] = [];
  const answers = list.flatMap((r) => {
    const own = new Map([...all].filter(([n]) => r.passages.includes(n)));
    const best = answerText(own.size ? own : all, r.question, 2) ?? bestAnswer(all, r.question, given);
    if (!best) return [];
    given.push(best.answer);
    return [{ interpretation: r.n, answer: best.answer, hops: [{ hop: 1, entity: best.answer, passages: [best.passage] }] }];
  });
  const long = answers.map((a) => `read as "${list[a.interpretation - 1]!.question}", the answer is ${a.answer}`).join('; ');
  return { thought: 'answer each interpretation', action: 'answer', interpretation: 0, query: '', answers, long_answer: long ? `${long[0]!.toUpperCase()}${long.slice(1)}.` : '' };
}

/** Pass when a cited passage holds the answer, else fail with the interpretation as the recovery search. */
function verifyHops(user: string): unknown {
  const blocks = user.split(/\n\n(?=Interpretation \d+: )/).filter((b) => /^Interpretation \d+: /.test(b));
  return {
    verdicts: blocks.map((b) => {
      const n = Number(/^Interpretation (\d+): /.exec(b)![1]);
      const answer = line(b, 'Answer');
      const cited = /Cited passages:\n([\s\S]*)$/.exec(b)?.[1] ?? '';
      const ok = answer !== '' && cited.toLowerCase().includes(answer.split('; ')[0]!.toLowerCase());
      return { interpretation: n, verdict: ok ? 'pass' : 'fail', hop: ok ? 0 : 1, reason: ok ? 'the first hop is in a cited passage' : 'no cited passage holds the answer', recovery_query: ok ? '' : /^Interpretation \d+: (.*)$/m.exec(b)![1]! };
    }),
  };
}

/** An answer per listed interpretation (DIVA) or intent (ADF), each from the passage closest to it. */
function synthesis(user: string, question: string): unknown {
  const listed = /^Intents found: (.*)$/m.exec(user)?.[1]?.split(/;\s*(?=\d+\. )/) ?? [...user.matchAll(/^\d+\. .*$/gm)].map((m) => m[0]);
  const questions = listed.map((q) => q.replace(/^\d+\.\s*/, '').replace(/ \(evidence: [^)]*\)$/, ''));
  const passages = numbered(user);
  const given: string[] = [];
  const interpretations = questions.map((q) => {
    const best = answerText(passages, q, 4) ?? bestAnswer(passages, q, given);
    if (best) given.push(...best.answer.split('; '));
    return { question: q, answer: best?.answer ?? 'I do not know', citations: best ? [best.passage] : [] };
  });
  return { interpretations, long_answer: `${question} ${interpretations.map((i) => `For "${i.question}", the answer is ${i.answer}.`).join(' ')}` };
}

function conditional(user: string, question: string, max: number, closed: boolean): unknown {
  const given = [...user.matchAll(/^Condition \d+: (.*)$/gm)].map((m) => m[1]!);
  const passages = numbered(user);
  const used: string[] = [];
  const pair = (condition: string, about: string) => {
    const best = closed ? null : bestAnswer(passages, about, used);
    if (best) used.push(best.answer);
    return { condition, answer: best?.answer ?? 'I do not know', ...(closed ? {} : { citations: best ? [best.passage] : [] }) };
  };
  if (given.length) return { pairs: given.map((c) => pair(c, `${question} ${c}`)) };
  if (closed) return { pairs: [pair('in general', question)] };
  return { pairs: [...passages].slice(0, max).map(([, text]) => pair(`If the question is about ${text.split(':')[0]}`, `${question} ${text}`)) };
}

function geval(user: string, logprobs: boolean): FakeEvalAnswer {
  const actual = line(user, 'Actual (?:answer|condition)');
  const expected = /Expected (?:answers|conditions):\n([\s\S]*?)\n\nKeys/.exec(user)?.[1] ?? '';
  const best = Math.max(0, ...expected.split('\n').map((e) => tokenF1(actual, e.replace(/^\d+\.\s*/, ''))));
  const score = Math.round(10 * best);
  const value = { score, reason: `word overlap with the closest expected output: ${best.toFixed(2)}` };
  return logprobs ? { value, logprobs: scoreLogprobs(value, score) } : { value };
}

/** The reply to an evaluation request, or null when the schema is not one of the evaluation's. */
export function fakeEvalReply(schema: string, request: FakeEvalRequest): FakeEvalAnswer | null {
  const { user, system } = request;
  const question = line(user, 'Question') || line(user, 'Original question') || line(user, 'Interpretation');
  const passages = numbered(user);
  const best = answerText(passages, question, 4);
  const known = best ? `${best.answer}.` : 'I do not know.';
  const cited = best ? [best.passage] : [];
  const max = Number(/at most (\d+)/.exec(system)?.[1] ?? 5);
  const reply = (value: unknown): FakeEvalAnswer => ({ value });
  switch (schema) {
    case 'plain_answer':
      return reply({ answer: known });
    case 'reasoned_plain_answer':
      return reply({ reasoning: 'From what the question names.', answer: known });
    case 'cited_plain_answer':
      return reply({ answer: known, citations: cited });
    case 'reasoned_cited_plain_answer':
      return reply({ reasoning: 'The closest passage answers it.', answer: known, citations: cited });
    case 'react_step':
      return reply(/^Step 1$/m.test(user) ? { thought: 'The passages answer it.', action: 'answer', query: '', answer: known } : { thought: 'Look it up.', action: 'search', query: question, answer: '' });
    case 'detect': {
      const named = ambiguousExpression(question) !== (contentTerms(question).at(-1) ?? 'it');
      return reply({ reasoning: named ? 'a name that can denote more than one thing' : 'reads one way', is_ambiguous: named, ambiguity_type: named ? 'semantic' : 'none', ambiguous_aspects: named ? [ambiguousExpression(question)] : [], clarification_needed: named ? 'which one is meant' : '' });
    }
    case 'clarify': {
      const n = Number(/exactly (\d+)/.exec(user)?.[1] ?? 2);
      const base = question.replace(/[?.!\s]+$/u, '');
      const expression = ambiguousExpression(question);
      return reply({ reasoning: `"${expression}" has several senses`, clarified_questions: Array.from({ length: n }, (_, i) => `${base}, taking "${expression}" in its ${ORDINALS[i] ?? `${i + 1}th`} sense?`) });
    }
    case 'act_step':
      return reply(act(user));
    case 'replan':
      return reply({ reason: 'the set covers the readings found', interpretations: readings(user).map((r) => r.question) });
    case 'hop_verify':
      return reply(verifyHops(user));
    case 'recover': {
      const again = answerText(passages, line(user, 'Interpretation'), 2);
      return reply({ answer: again?.answer ?? '', hops: again ? [{ hop: 1, entity: again.answer, passages: [again.passage] }] : [] });
    }
    case 'compose':
      return reply({ long_answer: `${question} ${[...(/Verified:\n([\s\S]*?)\n\n/.exec(user)?.[1] ?? '').matchAll(/^\d+\. (.*) → (.*)$/gm)].map((m) => `For "${m[1]}", ${m[2]}.`).join(' ') || 'No reading could be answered safely.'}` });
    case 'interpretations': {
      // One reading per distinct title among the passages closest to the question.
      const count = Number(/up to (\d+)/.exec(system)?.[1] ?? 3);
      const close = [...passages.values()].sort((a, b) => overlap(b, question) - overlap(a, question));
      const titles = [...new Set(close.map((p) => p.split(':')[0]!.trim()))].slice(0, count);
      return reply({ interpretations: titles.length ? titles.map((t) => `${question.replace(/[?.!\s]+$/u, '')} (as in ${t})?`) : [question] });
    }
    case 'verify': {
      const interpretation = line(user, 'Interpretation');
      return reply({ labels: [...passages].map(([n, text]) => ({ passage: n, label: overlap(text, interpretation) >= 2 ? 'useful' : overlap(text, interpretation) === 1 ? 'partially_useful' : 'useless' })) });
    }
    case 'synthesis':
      return reply(synthesis(user, question));
    case 'sub_question':
      return reply({ sub_question: `${question.replace(/[?.!\s]+$/u, '')} (about ${passages.get(1)?.split(':')[0] ?? 'it'})?` });
    case 'hyde':
      return reply({ passage: `An encyclopedia entry answering: ${question}` });
    case 'conditional':
      return reply(conditional(user, question, max, false));
    case 'conditional_closed':
      return reply(conditional(user, question, max, true));
    case 'geval':
      return geval(user, request.logprobs);
    case 'reader': {
      const context = line(user, 'Context');
      const found = bestAnswer(new Map([[1, context]]), question);
      return reply({ answer: found && context.includes(found.answer) ? found.answer : '' });
    }
    case 'judge': {
      const gold = [...user.matchAll(/→ (.*)$/gm)].map((m) => m[1]!.toLowerCase());
      const answer = (/Long answer to grade:\n([\s\S]*?)\n\nKeys/.exec(user)?.[1] ?? '').toLowerCase();
      const grade = gold.length ? Math.round((5 * gold.filter((g) => answer.includes(g)).length) / gold.length) : 0;
      return reply({ relevance: grade, faithfulness: grade, informativeness: grade, correctness: grade, rationale: 'Graded by the share of reference answers the long answer contains.' });
    }
    default:
      return null;
  }
}
