import { z } from 'zod';
import { AMBIGUITY_TYPES, type AmbiguityType } from './domain';

/**
 * Protocols are data: a set of criteria people judge, each with its question (optionally worded
 * per ambiguity type), its scale and guidelines. Stored versioned in the database, exported and
 * imported as JSON. The built-in ones are written in our own words from what the papers ask.
 */

const snake = z.string().regex(/^[a-z][a-z0-9_]{0,39}$/, 'use a short snake_case name');

export const Scale = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('yesno') }).strict(),
  z
    .object({
      kind: z.literal('ordinal'),
      min: z.number().int().min(0).max(9),
      max: z.number().int().min(1).max(10),
      /** What the ends (or any point) mean, e.g. {"0": "not at all", "5": "fully"}. */
      anchors: z.record(z.string(), z.string()).default({}),
    })
    .strict()
    .refine((s) => s.max > s.min, { message: 'max must be above min' })
    .refine((s) => s.max - s.min <= 10, { message: 'at most 11 points' }),
  z
    .object({
      kind: z.literal('categorical'),
      options: z.array(z.object({ value: snake, label: z.string().min(1) }).strict()).min(2).max(9),
    })
    .strict(),
  z.object({ kind: z.literal('text') }).strict(),
]);
export type Scale = z.output<typeof Scale>;

export const Criterion = z
  .object({
    id: snake,
    label: z.string().min(1).max(80),
    question: z.string().min(1),
    questionByType: z.partialRecord(z.enum(AMBIGUITY_TYPES), z.string().min(1)).default({}),
    scale: Scale,
    /** Optional criteria (and every text criterion) may be left empty. */
    required: z.boolean().default(true),
    help: z.string().default(''),
  })
  .strict();
export type Criterion = z.output<typeof Criterion>;

export const ProtocolDocument = z
  .object({
    key: z.string().regex(/^[a-z0-9][a-z0-9-]{0,79}$/, 'use lower-case words joined by hyphens'),
    name: z.string().min(1).max(120),
    description: z.string().default(''),
    guidelines: z.string().default(''),
    criteria: z.array(Criterion).min(1).max(30),
  })
  .strict()
  .refine((p) => new Set(p.criteria.map((c) => c.id)).size === p.criteria.length, { message: 'criterion ids must be unique' });
export type ProtocolDocument = z.output<typeof ProtocolDocument>;

export interface Protocol extends ProtocolDocument {
  id: number;
  version: number;
  builtIn: boolean;
  createdAt: string;
}

/** The values a criterion accepts, in scale order (text: none, anything goes). */
export function scaleValues(scale: Scale): string[] {
  switch (scale.kind) {
    case 'yesno':
      return ['yes', 'no'];
    case 'ordinal':
      return Array.from({ length: scale.max - scale.min + 1 }, (_, i) => String(scale.min + i));
    case 'categorical':
      return scale.options.map((o) => o.value);
    case 'text':
      return [];
  }
}

export function isValidValue(scale: Scale, value: string): boolean {
  return scale.kind === 'text' ? value.trim() !== '' : scaleValues(scale).includes(value);
}

export function questionFor(criterion: Criterion, type: AmbiguityType): string {
  return criterion.questionByType[type] ?? criterion.question;
}

/** The key that decides a value from the keyboard, printed on its button. */
export function keyFor(scale: Scale, value: string): string | null {
  switch (scale.kind) {
    case 'yesno':
      return value === 'yes' ? 'Y' : 'N';
    case 'ordinal':
      return String(Number(value) % 10);
    case 'categorical': {
      const index = scale.options.findIndex((o) => o.value === value);
      return index === -1 ? null : String(index + 1);
    }
    case 'text':
      return null;
  }
}

/** The value a key press means for a scale, or null. Y/N and 1/2 both decide yes/no. */
export function valueForKey(scale: Scale, key: string): string | null {
  const k = key.toLowerCase();
  switch (scale.kind) {
    case 'yesno':
      return k === 'y' || k === '1' ? 'yes' : k === 'n' || k === '2' ? 'no' : null;
    case 'ordinal': {
      if (!/^[0-9]$/.test(k)) return null;
      const digit = Number(k);
      const value = scale.max === 10 && digit === 0 ? 10 : digit;
      return value >= scale.min && value <= scale.max ? String(value) : null;
    }
    case 'categorical': {
      if (!/^[1-9]$/.test(k)) return null;
      return scale.options[Number(k) - 1]?.value ?? null;
    }
    case 'text':
      return null;
  }
}

const yesno: Scale = { kind: 'yesno' };
const zeroToFive = (low: string, high: string): Scale => ({ kind: 'ordinal', min: 0, max: 5, anchors: { '0': low, '5': high } });
const oneToFive = (low: string, high: string): Scale => ({ kind: 'ordinal', min: 1, max: 5, anchors: { '1': low, '5': high } });

export const BUILT_IN_PROTOCOLS: ProtocolDocument[] = [
  {
    key: 'march-validation',
    name: 'MARCH validation',
    description: 'Three yes/no checks of a constructed instance, as in the MARCH human validation (majority of five annotators).',
    guidelines: [
      '## What you judge',
      'Each item is one question under one ambiguity type, with its interpretations (clarified questions), their evidence and short answers, and one long answer.',
      '',
      '- **Ambiguous as stated**: answer *yes* only if the original question really allows the interpretations the stated type describes. A question that is merely hard, or ambiguous in some other way, is *no*. An imported item may have no type (*unspecified*): then answer *yes* if the question can reasonably be read in more than one way, as its interpretations read it.',
      '- **Interpretations resolve it**: *yes* if every clarified question picks out one interpretation and together they cover the ambiguity; *no* if one still leaves it open, or if two ask the same thing.',
      '- **Long answer consistent**: *yes* if every short answer appears in the long answer and nothing in it contradicts them.',
      '',
      'Judge each item on its own. Do not look things up beyond the passages shown unless an interpretation depends on a fact you are unsure of.',
    ].join('\n'),
    criteria: [
      {
        id: 'ambiguity',
        label: 'Ambiguous as stated',
        question: 'Is the question ambiguous in the way its type says?',
        questionByType: {
          semantic: 'Does a name or phrase in the question refer to more than one entity or sense, as the interpretations show?',
          syntactic: 'Can the question be parsed in more than one way, as the interpretations show?',
          constraint: 'Is the question narrower than its evidence supports, so that relaxing a constraint gives the interpretations shown?',
          // Imported instances carry no type: the question is then whether it is ambiguous at all.
          unspecified: 'Can the question reasonably be read in more than one way, as the interpretations shown read it?',
        },
        scale: yesno,
        required: true,
        help: '',
      },
      {
        id: 'clarification',
        label: 'Interpretations resolve it',
        question: 'Does each clarified question settle the ambiguity one way, and do they cover it together?',
        questionByType: {},
        scale: yesno,
        required: true,
        help: '',
      },
      {
        id: 'long_answer',
        label: 'Long answer consistent',
        question: 'Does the long answer contain every short answer without contradicting any?',
        questionByType: {},
        scale: yesno,
        required: true,
        help: '',
      },
    ],
  },
  {
    key: 'long-answer-quality',
    name: 'Long-answer quality',
    description: 'Four 0-5 ratings of a long answer, the dimensions MARCH uses for its LLM judge.',
    guidelines: [
      'Rate the long answer against the original question, its clarified questions and short answers.',
      '',
      '- **Relevance**: addresses every interpretation and includes its short answer, without wandering off.',
      '- **Faithfulness**: agrees with the question, the interpretations and the short answers.',
      '- **Informativeness**: adds useful background or explanation beyond the bare answers.',
      '- **Correctness**: the facts it states are right.',
      '',
      '0 is the worst, 5 the best; use the whole range.',
    ].join('\n'),
    criteria: [
      { id: 'relevance', label: 'Relevance', question: 'Does the long answer address every interpretation, with its short answer, and stay on topic?', questionByType: {}, scale: zeroToFive('misses the interpretations', 'covers all, nothing extra'), required: true, help: '' },
      { id: 'faithfulness', label: 'Faithfulness', question: 'Is the long answer consistent with the question, the interpretations and the short answers?', questionByType: {}, scale: zeroToFive('contradicts them', 'fully consistent'), required: true, help: '' },
      { id: 'informativeness', label: 'Informativeness', question: 'Does the long answer give useful context or explanation beyond the answers?', questionByType: {}, scale: zeroToFive('nothing beyond the answers', 'rich, useful context'), required: true, help: '' },
      { id: 'correctness', label: 'Correctness', question: 'Are the facts in the long answer correct?', questionByType: {}, scale: zeroToFive('mostly wrong', 'entirely correct'), required: true, help: '' },
    ],
  },
  {
    key: 'condambigqa-review',
    name: 'CondAmbigQA review',
    description: 'Accept or reject a set of condition-answer-citation tuples with written feedback, plus three yes/no checks (after CondAmbigQA, section 3.3).',
    guidelines: [
      'Each interpretation carries a condition (the circumstances under which its answer holds), an answer and citations into the retrieved fragments.',
      '',
      'Check that the reasoning from condition to answer holds together, that it is logically sound, and that the cited fragments really support it. **Reject** when anything must change and say what in the feedback: it goes back to whoever revises the tuples.',
    ].join('\n'),
    criteria: [
      { id: 'coherence', label: 'Reasoning coherent', question: 'Does each answer follow from its condition in a coherent line of reasoning?', questionByType: {}, scale: yesno, required: true, help: '' },
      { id: 'soundness', label: 'Logically sound', question: 'Are the conditions distinct and logically sound, with no interpretation missing?', questionByType: {}, scale: yesno, required: true, help: '' },
      { id: 'citations', label: 'Citations accurate', question: 'Do the cited fragments support the answers they are cited for?', questionByType: {}, scale: yesno, required: true, help: '' },
      {
        id: 'decision',
        label: 'Decision',
        question: 'Accept the tuples as they are, or reject them for revision?',
        questionByType: {},
        scale: { kind: 'categorical', options: [{ value: 'accept', label: 'Accept' }, { value: 'reject', label: 'Reject' }] },
        required: true,
        help: '',
      },
      { id: 'feedback', label: 'Feedback', question: 'If you reject, what must change?', questionByType: {}, scale: { kind: 'text' }, required: false, help: 'Required in practice when rejecting.' },
    ],
  },
  {
    key: 'urasys-human-eval',
    name: 'URASys-style human evaluation',
    description: 'Whether the answer is right, and seven 1-5 ratings of the experience (after URASys, appendix C).',
    guidelines: [
      'Read the question and the system\'s answer (with its clarification, when it asked for one).',
      '',
      '- **Accurate**: the answer is correct for the question as clarified.',
      '- Rate each dimension from 1 (poor) to 5 (excellent): the overall experience, how clear and useful the explanation is, how well its facts are supported, whether anything is missing, how well it reads, how relevant it is, and how far you would trust it.',
    ].join('\n'),
    criteria: [
      { id: 'accurate', label: 'Accurate', question: 'Is the answer correct?', questionByType: {}, scale: yesno, required: true, help: '' },
      { id: 'user_experience', label: 'User experience', question: 'How satisfying is the interaction overall?', questionByType: {}, scale: oneToFive('frustrating', 'excellent'), required: true, help: '' },
      { id: 'explanation_quality', label: 'Explanation quality', question: 'How clear, coherent and useful is the explanation?', questionByType: {}, scale: oneToFive('confusing', 'very clear'), required: true, help: '' },
      { id: 'factuality', label: 'Factuality', question: 'How well are its statements supported by the evidence?', questionByType: {}, scale: oneToFive('unsupported', 'fully supported'), required: true, help: '' },
      { id: 'completeness', label: 'Completeness', question: 'Does it cover the whole question?', questionByType: {}, scale: oneToFive('leaves most out', 'complete'), required: true, help: '' },
      { id: 'fluency', label: 'Fluency', question: 'How well written is it?', questionByType: {}, scale: oneToFive('hard to read', 'reads naturally'), required: true, help: '' },
      { id: 'relevance', label: 'Relevance', question: 'How relevant is it to what was asked?', questionByType: {}, scale: oneToFive('off topic', 'exactly on point'), required: true, help: '' },
      { id: 'trust', label: 'Trust', question: 'How far would you trust this answer?', questionByType: {}, scale: oneToFive('not at all', 'completely'), required: true, help: '' },
    ],
  },
];
