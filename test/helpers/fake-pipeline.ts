import { fakeModel, requestedSchema, type FakeScript } from '../../electron/dev/fake-model';
import type { ChatReply } from './fake-openai';

/**
 * The model for pipeline tests: the product's fake model (electron/dev/fake-model.ts),
 * which reads each request the way a model would (the schema asked for, the question, the numbered
 * passages) and answers with plausible JSON, scripted here for the Springfield records, so that
 * every stage's checks in code (spans in passages, collisions, votes) are exercised for real.
 * Tests script faults on top with `override`.
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

/** The schema a request asks for: by name in json_schema mode, read off the schema in the instructions otherwise. */
export function schemaOf(body: Body): string {
  return requestedSchema(body) ?? 'unknown';
}

/** The Springfield question clarifies into the two cities, each answered by its own passage. */
export const SPRINGFIELD_SCRIPT: FakeScript = {
  detect: { semantic: false, syntactic: false, constraint: false },
  items: [
    {
      question: 'Which river flows through Springfield',
      clarify: ['Which river flows through Springfield, Illinois?', 'Which river flows through Springfield, Massachusetts?'],
      answers: ['Sangamon River', 'Connecticut River'],
    },
  ],
};

export interface Brain {
  /** Questions the semantic detectors call ambiguous (without it, the script says). */
  ambiguous?: (question: string) => boolean;
  /** Another script than the Springfield one. */
  script?: FakeScript;
  /** Overrides for one schema (e.g. to return garbage). */
  override?: (schema: string, body: Body, index: number) => ChatReply | undefined;
}

export function pipelineBrain(brain: Brain) {
  const model = fakeModel(brain.script ?? SPRINGFIELD_SCRIPT);
  return (body: Record<string, unknown>, index: number): ChatReply => {
    const b = body as Body;
    const schema = schemaOf(b);
    const overridden = brain.override?.(schema, b, index);
    if (overridden) return overridden;
    if (schema === 'detect_semantic' && brain.ambiguous) {
      const user = b.messages?.find((m) => m.role === 'user')?.content ?? '';
      const question = /^Question: (.*)$/m.exec(user)?.[1]?.trim() ?? '';
      return { content: JSON.stringify({ ambiguous: brain.ambiguous(question), reason: 'the name may refer to several places' }), promptTokens: Math.ceil(user.length / 4), completionTokens: 20 };
    }
    const reply = model(body);
    return { ...(reply.status ? { status: reply.status } : {}), content: reply.content, promptTokens: reply.promptTokens, completionTokens: reply.completionTokens };
  };
}

/**
 * One question, several interpretations (MARCH's own example): the Mustang is a car, a guitar
 * and a horse. A "Bradford" passage tests word boundaries (it holds "ford" inside a word).
 */
export const MUSTANG_RECORDS = [
  {
    id: '2hop__9_9',
    question: 'What is the best-selling pickup sold by the maker of the Mustang?',
    answer: 'F-Series',
    paragraphs: [
      { idx: 0, title: 'Ford Mustang', paragraph_text: 'The Ford Mustang is a car built by the Ford Motor Company. The best-selling pickup that Ford sells is the F-Series.', is_supporting: true },
      { idx: 1, title: 'Fender Mustang', paragraph_text: 'The Fender Mustang is an electric guitar made by Fender. The pickup that Fender fits to the Mustang is the single-coil pickup.', is_supporting: false },
      { idx: 2, title: 'Mustang (horse)', paragraph_text: 'The mustang is a free-roaming horse of the American West. Mustangs descend from horses brought to the Americas by Spanish settlers in the sixteenth century.', is_supporting: false },
      { idx: 3, title: 'Bradford', paragraph_text: 'Bradford is a city in West Yorkshire, England, once known for its wool trade and its mills.', is_supporting: false },
    ],
    question_decomposition: [{ question: 'Who makes the Mustang?', answer: 'Ford' }, { question: 'What is the best-selling pickup sold by #1?', answer: 'F-Series' }],
  },
];

export const MUSTANG_INTERPRETATIONS = [
  'What is the best-selling pickup sold by Ford, the maker of the Mustang car?',
  'Which pickup does Fender, the maker of the Mustang guitar, fit to it?',
  'What do the mustang horses of the American West descend from?',
];

/** A 12-token answer (over the 10-token limit), copied from the horse passage. */
export const LONG_HORSE_ANSWER = 'horses brought to the Americas by Spanish settlers in the sixteenth century';

export function mustangScript(answers: string[] = ['F-Series', 'single-coil pickup', LONG_HORSE_ANSWER], clarify: string[] = MUSTANG_INTERPRETATIONS): FakeScript {
  return {
    detect: { semantic: false, syntactic: false, constraint: false },
    items: [{ question: 'maker of the Mustang', detect: { semantic: true }, clarify, answers }],
  };
}
