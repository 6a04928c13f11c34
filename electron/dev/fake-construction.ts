import { locateAnswer } from '../../shared/checks';
import { DOMAIN_SLUGS, type Answerability, type Domain } from '../../shared/domain';

/**
 * The fake model's answers to the prompts of issue 25, read off the prompt as a careful model
 * would: CondAmbigQA's three drafting steps (from the numbered fragments, or from scripted
 * tuples), the labelling prompts (scripted per model), and the QA layer's pairs and rephrasings
 * (cut from the passage's own sentences, so the answers are grounded in it).
 *
 * A scripted item can be set to get its draft right only from round N on: before that round the
 * draft cites, for its last interpretation, a fragment that does not hold the answer, which a
 * reviewer can see. The round is read off the revision the prompt carries ("tuples from round N").
 */

/** A value for every model, or per model name (models not named take the first value given). */
export type FakeLabel<T extends string> = T | Record<string, T>;

export interface FakeConstructionItem {
  /** The right tuples: a condition, its answer, and the fragment (1-based) that holds it. */
  tuples?: { condition: string; answer: string; fragment: number }[];
  /** The round from which the draft is right (default 1; 0: never). */
  rounds?: number;
  /** The citing step cites a fragment past the end of the list. */
  badCitation?: boolean;
  answerability?: FakeLabel<Answerability>;
  domain?: FakeLabel<Domain>;
  /** The ask-before-answer prompts: what the model does first, its answer, and its answer after the user's reply. */
  askFirst?: { action: 'answer' | 'clarify' | 'no_answer'; answer?: string; afterReply?: string };
}

interface Fragment {
  number: number;
  title: string;
  text: string;
}

function fragmentsOf(user: string): Fragment[] {
  const out: Fragment[] = [];
  for (const m of user.matchAll(/^\[(\d+)\] (?:([^:\n]{1,120}): )?(.*)$/gm)) out.push({ number: Number(m[1]), title: m[2] ?? '', text: m[3]! });
  return out;
}

function pick<T extends string>(value: FakeLabel<T> | undefined, model: string, fallback: T): T {
  if (value === undefined) return fallback;
  if (typeof value === 'string') return value;
  return value[model] ?? Object.values(value)[0] ?? fallback;
}

/** The draft's round: 1, or one past the round of the tuples the prompt shows again. */
function roundOf(user: string): number {
  const previous = /tuples from round (\d+)/.exec(user);
  return previous ? Number(previous[1]) + 1 : 1;
}

/** Two readings when nothing is scripted: the first two fragments, each with the first name in it. */
function defaultTuples(fragments: readonly Fragment[]): { condition: string; answer: string; fragment: number }[] {
  return fragments
    .map((f) => ({ f, name: /\b[A-Z][\p{L}'’-]+(?:\s+[A-Z][\p{L}'’-]+)*/u.exec(f.text)?.[0] }))
    .filter((x): x is { f: Fragment; name: string } => x.name !== undefined)
    .slice(0, 2)
    .map(({ f, name }) => ({ condition: `If the question is about ${f.title || `fragment ${f.number}`}`, answer: name, fragment: f.number }));
}

function draft(user: string, item: FakeConstructionItem | undefined) {
  const fragments = fragmentsOf(user);
  const tuples = item?.tuples ?? defaultTuples(fragments);
  const right = item?.rounds === undefined ? 1 : item.rounds;
  const defective = right === 0 || roundOf(user) < right;
  return {
    interpretations: tuples.map((t, i) => {
      // The defect: the last interpretation cites a fragment that does not hold its answer.
      const wrong = defective && i === tuples.length - 1 ? fragments.find((f) => locateAnswer(f.text, t.answer) === null)?.number : undefined;
      const fragment = wrong ?? t.fragment;
      return { preconditions: [{ text: t.condition, fragments: [fragment] }], answers: [{ text: t.answer, fragments: [fragment] }] };
    }),
  };
}

function check(user: string) {
  const count = [...user.matchAll(/^Interpretation (\d+):/gm)].length;
  const numbers = Array.from({ length: count }, (_, i) => i + 1);
  return {
    ambiguity_points: [{ description: 'the question leaves open which of several things it is about', impacts: numbers.map((n) => ({ interpretation: n, effect: `reading ${n} picks one of them`, fragments: [] })) }],
    assessments: numbers.map((n) => ({ interpretation: n, summary: `reading ${n}`, strengths: [], weaknesses: [], consistency: 'the fragments agree', credibility: 'high' as const })),
  };
}

function cite(user: string, item: FakeConstructionItem | undefined) {
  const block = /Interpretation:\n([\s\S]*?)(?:\n\n|$)/.exec(user)?.[1] ?? '';
  const condition = /- precondition: (.*?)(?: \[[\d, ]+\])?$/m.exec(block)?.[1] ?? 'In general';
  const answer = /- answer: (.*?)(?: \[[\d, ]+\])?$/m.exec(block);
  const fragments = [...block.matchAll(/\[([\d, ]+)\]/g)].flatMap((m) => m[1]!.split(',').map((n) => Number(n.trim())));
  const citations = item?.badCitation ? [fragmentsOf(user).length + 4] : [...new Set(fragments)];
  return { condition, answers: answer ? [answer[1]!] : [], citations, reason: 'stated in the cited fragment' };
}

function qaPairs(user: string, count: number) {
  const passage = /^Passage: (.*)$/m.exec(user)?.[1] ?? '';
  const pairs: { question: string; answer: string }[] = [];
  for (const sentence of passage.split(/(?<=\.)\s+/)) {
    const names = [...sentence.matchAll(/\b(?:[A-Z][\p{L}'’-]+|\d[\d,.]*)(?:\s+(?:[A-Z][\p{L}'’-]+|\d[\d,.]*))*/gu)].map((m) => m[0]).filter((n, i) => i > 0 || !sentence.startsWith(n));
    const answer = names.at(-1);
    if (!answer) continue;
    pairs.push({ question: `${sentence.replace(answer, 'what').replace(/\.$/, '')}?`, answer });
    if (pairs.length === count) break;
  }
  return { pairs };
}

function rephrase(user: string, count: number) {
  const questions = [...user.matchAll(/^\d+\. (.*)$/gm)].map((m) => m[1]!);
  const forms = [(q: string) => `Tell me: ${q}`, (q: string) => `I would like to know, ${q.charAt(0).toLowerCase()}${q.slice(1)}`, (q: string) => `Quick question: ${q}`];
  return { paraphrases: questions.map((q) => forms.slice(0, count).map((f) => f(q))) };
}

/** The reply to one of these prompts, or undefined when the schema is another. */
export function constructionReply(schema: string, user: string, model: string, item: FakeConstructionItem | undefined): unknown {
  const count = Number(/Write (\d+)/.exec(user)?.[1] ?? 2);
  switch (schema) {
    case 'condition_draft':
      return draft(user, item);
    case 'condition_check':
      return check(user);
    case 'condition_cite':
      return cite(user, item);
    case 'label_answerability': {
      const label = pick(item?.answerability, model, 'answerable');
      return { label, reason: `the passages ${label === 'unanswerable' ? 'do not hold' : 'hold'} what is asked` };
    }
    case 'label_domain': {
      const domain = pick(item?.domain, model, 'unknown');
      return { domain: (DOMAIN_SLUGS as readonly string[]).includes(domain) ? domain : 'unknown', reason: 'what the question is about' };
    }
    case 'ask_first': {
      const plan = item?.askFirst ?? { action: 'answer' as const };
      const answer = plan.action === 'answer' ? (plan.answer ?? /\b[A-Z][\p{L}'’-]+/u.exec(/^\[1\] (.*)$/m.exec(user)?.[1] ?? '')?.[0] ?? '') : '';
      return { action: plan.action, answer, clarifying_question: plan.action === 'clarify' ? 'Which of the readings do you mean?' : '' };
    }
    case 'ask_first_answer':
      return { answer: item?.askFirst?.afterReply ?? '' };
    case 'qa_create':
      return qaPairs(user, count);
    case 'qa_expand':
      return rephrase(user, count);
    default:
      return undefined;
  }
}
