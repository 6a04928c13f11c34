import { z } from 'zod';
import { nonBlank, type AwbRecord } from '../../../../shared/awb-format';
import { datasetProvenance, extraKeys, type SourceFormat } from './format';

const answers = z.array(z.string());

const SingleAnswer = z.looseObject({ type: z.literal('singleAnswer'), answer: answers });
const MultipleQAs = z.looseObject({
  type: z.literal('multipleQAs'),
  qaPairs: z
    .array(z.looseObject({ question: nonBlank(), answer: answers }))
    .min(1, 'must list at least one pair'),
});

const KNOWN = ['id', 'question'];

const AmbignqRecord = z.looseObject({
  id: z.union([z.string(), z.number()]).transform(String),
  question: nonBlank(),
  annotations: z.array(z.discriminatedUnion('type', [SingleAnswer, MultipleQAs])),
  nq_answer: answers.optional(),
});
type AmbignqRecord = z.output<typeof AmbignqRecord>;
type MultipleQAs = z.output<typeof MultipleQAs>;

/**
 * Which multipleQAs annotation becomes the instance when there are several: the one with the
 * most question-answer pairs (the first on a tie). An instance is meant to cover the interpretations
 * of a question, and the annotation listing more of them covers more; every annotation is still
 * kept, unchanged, in the base question's `extra.annotations`.
 */
export function chooseMultipleQAs(record: AmbignqRecord): { annotation: MultipleQAs; index: number } | null {
  let best: { annotation: MultipleQAs; index: number } | null = null;
  record.annotations.forEach((annotation, index) => {
    if (annotation.type !== 'multipleQAs') return;
    if (!best || annotation.qaPairs.length > best.annotation.qaPairs.length) best = { annotation, index };
  });
  return best;
}

/** The gold answer: the first single-answer annotation's answers, else the original NQ answer. */
function goldAnswers(record: AmbignqRecord): string[] {
  const single = record.annotations.find((a) => a.type === 'singleAnswer');
  const list = single?.type === 'singleAnswer' ? single.answer : (record.nq_answer ?? []);
  return [...new Set(list.filter((a) => a.trim() !== ''))];
}

export const ambignq: SourceFormat<AmbignqRecord> = {
  name: 'ambignq',
  label: 'AmbigNQ (light or full)',
  schema: AmbignqRecord,
  defaults: {
    description: 'AmbigNQ: open-domain NQ questions annotated with their plausible interpretations.',
    licence: 'CC BY-SA 3.0',
    attribution: 'AmbigQA / AmbigNQ (Min, Michael, Hajishirzi and Zettlemoyer, EMNLP 2020)',
    url: 'https://nlp.cs.washington.edu/ambigqa/',
  },
  sourceId: (record) => record.id,
  toAwb(record, context): AwbRecord {
    const provenance = datasetProvenance(context);
    const [answer, ...aliases] = goldAnswers(record);
    const chosen = chooseMultipleQAs(record);
    return {
      format: 'awb-instance/1',
      dataset: context.dataset,
      base_question: {
        source_id: record.id,
        question: record.question,
        hops: null,
        answer: answer ?? null,
        aliases,
        answerable: null,
        decomposition: [],
        paragraphs: [],
        extra: extraKeys(record, KNOWN),
      },
      instance: chosen
        ? {
            ambiguity_type: 'unspecified',
            status: 'ready',
            stage: 'imported',
            removed_stage: null,
            removed_reason: null,
            evidence: [],
            interpretations: chosen.annotation.qaPairs.map((pair) => {
              const [text, ...more] = pair.answer.filter((a) => a.trim() !== '');
              return {
                clarified_question: pair.question,
                condition: null,
                status: 'active' as const,
                dropped_reason: null,
                provenance,
                condition_provenance: null,
                sub_questions: [],
                evidence: [],
                citations: [],
                short_answer: text
                  ? { text, aliases: more, passage: null, start: null, end: null, provenance }
                  : null,
                extra: {},
              };
            }),
            long_answers: [],
            filter_votes: [],
            extra: { annotation_index: chosen.index },
          }
        : null,
      passages: [],
    };
  },
};
