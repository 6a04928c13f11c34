import type { ChatReply } from './fake-openai';

/**
 * A scripted "model" for pipeline tests: it reads the request the way a model would (which
 * schema is asked for, the question, the numbered passages) and answers with plausible JSON, so
 * that every stage's checks in code (spans in passages, collisions, votes) are exercised for real.
 */

/** Two MuSiQue-shaped records: one question is ambiguous (two Springfields), one is not. */
export const SPRINGFIELD_RECORDS = [
  {
    id: '2hop__1_1',
    question: 'Which river flows through Springfield?',
    answer: 'Sangamon River',
    paragraphs: [
      { idx: 0, title: 'Springfield, Illinois', paragraph_text: 'The Sangamon River flows through Springfield, Illinois, the state capital.', is_supporting: true },
      { idx: 1, title: 'Springfield, Massachusetts', paragraph_text: 'The Connecticut River flows through Springfield, Massachusetts, a city in Hampden County.', is_supporting: false },
      { idx: 2, title: 'Peoria', paragraph_text: 'The Illinois River flows past Peoria, far from any Springfield.', is_supporting: false },
    ],
    question_decomposition: [{ question: 'Which Springfield?', answer: 'Springfield, Illinois' }, { question: 'Which river flows through #1?', answer: 'Sangamon River' }],
  },
  {
    id: '2hop__2_2',
    question: 'Who founded the Hampden County Museum?',
    answer: 'Edith Holt',
    paragraphs: [{ idx: 0, title: 'Hampden County Museum', paragraph_text: 'Edith Holt founded the Hampden County Museum in 1921.', is_supporting: true }],
    question_decomposition: [{ question: 'Who founded the Hampden County Museum?', answer: 'Edith Holt' }],
  },
];

interface Body {
  model?: string;
  messages?: { role: string; content: string }[];
  response_format?: { type: string; json_schema?: { name: string } };
}

/** The schema a request asks for: by name in json_schema mode, by the keys described otherwise. */
export function schemaOf(body: Body): string {
  const named = body.response_format?.json_schema?.name;
  if (named) return named;
  const system = body.messages?.[0]?.content ?? '';
  const user = body.messages?.[1]?.content ?? '';
  if (/structural \(syntactic\)/.test(system)) return 'detect_syntactic';
  if (/over-constrained/.test(system)) return 'detect_constraint';
  if (/lexical \(semantic\)/.test(system)) return 'detect_semantic';
  if (/clarified_questions/.test(user)) return 'clarify';
  if (/sub_questions/.test(user) && !/Passages:/.test(user)) return 'decompose';
  if (/"long_answer"/.test(user)) return 'long_answer';
  if (/Current answer:/.test(user)) return 'shorten';
  if (/"aligned"/.test(user)) return 'filter';
  return 'short_answer';
}

const field = (text: string, label: string) => new RegExp(`${label}: (.*)`).exec(text)?.[1]?.trim() ?? '';

function passages(text: string): string[] {
  const out: string[] = [];
  for (const match of text.matchAll(/\[(\d+)\] (?:[^:\n]*: )?([\s\S]*?)(?=\n\n\[\d+\] |$)/g)) out[Number(match[1]) - 1] = match[2]!.trim();
  return out;
}

export interface Brain {
  /** Questions the semantic detectors call ambiguous. */
  ambiguous: (question: string) => boolean;
  /** Overrides for one schema (e.g. to return garbage). */
  override?: (schema: string, body: Body, index: number) => ChatReply | undefined;
}

export function pipelineBrain(brain: Brain) {
  return (body: Record<string, unknown>, index: number): ChatReply => {
    const b = body as Body;
    const schema = schemaOf(b);
    const overridden = brain.override?.(schema, b, index);
    if (overridden) return overridden;
    const user = b.messages?.find((m) => m.role === 'user')?.content ?? '';
    const question = field(user, 'Question') || field(user, 'Original question');
    const json = (value: unknown): ChatReply => ({ content: JSON.stringify(value), promptTokens: Math.ceil(user.length / 4), completionTokens: 20 });
    switch (schema) {
      case 'detect_semantic':
        return json({ ambiguous: brain.ambiguous(question), reason: 'the name may refer to several places' });
      case 'detect_syntactic':
        return json({ ambiguous: false, phenomena: [], reason: 'a single parse' });
      case 'detect_constraint':
        return json({ ambiguous: false, reason: 'the constraints are ordinary' });
      case 'clarify': {
        if (question.includes('Springfield')) return json({ clarified_questions: ['Springfield, Illinois', 'Springfield, Massachusetts'].map((p) => question.replace(/Springfield/, p)) });
        return json({ clarified_questions: ['first', 'second'].map((sense) => question.replace(/\?$/, `, in the ${sense} sense?`)) });
      }
      case 'decompose':
        return json({ sub_questions: [`Where is ${question.replace(/^\w+ /, '').replace(/\?$/, '')}?`, `What is the answer to: ${question}`] });
      case 'short_answer': {
        const first = passages(user)[0] ?? '';
        const river = /The ([A-Z]\w+ River)/.exec(first)?.[1];
        return json({ answer: river ?? first.split(/\s+/).slice(0, 2).join(' '), passage: first ? 1 : 0 });
      }
      case 'long_answer': {
        const answers = [...user.matchAll(/Answer: (.*?) \(passage (\d+)\)/g)];
        return json({
          long_answer: `It depends on the place meant: ${answers.map((a, i) => `in reading ${i + 1} it is the ${a[1]}`).join(', and ')}.`,
          citations: answers.map((a, i) => ({ reading: i + 1, passage: Number(a[2]) })),
        });
      }
      case 'shorten':
        return json({ answer: field(user, 'Current answer').split(/\s+/).slice(0, 2).join(' ') });
      case 'filter':
        return json({ aligned: true, reason: 'the readings are distinct and supported' });
      default:
        return { status: 400, content: null };
    }
  };
}
