import { z } from 'zod';
import { nonBlank, type AwbRecord } from '../../../../shared/awb-format';
import { findSpan } from '../../../../shared/text';
import { PassageList, datasetProvenance, extraKeys, type SourceFormat } from './format';

const QaPair = z.looseObject({
  question: nonBlank(),
  short_answers: z.array(z.string()).default([]),
  wikipage: z.string().nullable().optional(),
  /** Official files only: the paragraph the pair was written from. */
  context: z.string().nullable().optional(),
});

const Annotation = z.looseObject({
  long_answer: z.string(),
  knowledge: z
    .array(z.looseObject({ content: z.string().nullable(), wikipage: z.string().nullable().optional() }))
    .default([]),
});

const KNOWN = ['id', 'question', 'ambiguous_question', 'qa_pairs', 'annotations'];

const AsqaRecord = z
  .looseObject({
    id: z.union([z.string(), z.number()]).optional(),
    sample_id: z.union([z.string(), z.number()]).optional(),
    question: z.string().optional(),
    ambiguous_question: z.string().optional(),
    qa_pairs: z.array(QaPair).min(1, 'must list at least one question-answer pair'),
    annotations: z.array(Annotation).default([]),
  })
  .superRefine((record, ctx) => {
    if (!(record.question ?? record.ambiguous_question ?? '').trim()) {
      ctx.addIssue({ code: 'custom', path: ['ambiguous_question'], message: 'the record needs `question` or `ambiguous_question`' });
    }
  });
type AsqaRecord = z.output<typeof AsqaRecord>;

/** ASQA marks pairs without a source paragraph with this placeholder. */
const NO_CONTEXT = /^no context provided\.?$/i;

function idOf(record: AsqaRecord, key: string | undefined): string {
  const id = record.id ?? key ?? record.sample_id;
  return id === undefined ? '' : String(id);
}

export const asqa: SourceFormat<AsqaRecord> = {
  name: 'asqa',
  label: 'ASQA',
  schema: AsqaRecord,
  splits: ['train', 'dev', 'test'],
  defaults: {
    description: 'ASQA: ambiguous factoid questions with long-form answers.',
    licence: 'Apache-2.0 (questions derive from AmbigNQ, CC BY-SA 3.0)',
    attribution: 'ASQA (Stelmakh, Luan, Dhingra and Chang, EMNLP 2022)',
    url: 'https://github.com/google-research/language/tree/master/language/asqa',
  },
  sourceId: (record, raw) => idOf(record, raw.key),
  toAwb(record, context): AwbRecord {
    const provenance = datasetProvenance(context);
    const passages = new PassageList(context.corpus);
    const sourceId = idOf(record, context.raw.key);
    const interpretations = record.qa_pairs.map((pair) => {
      const [answer, ...aliases] = pair.short_answers.filter((a) => a.trim() !== '');
      const contextText = pair.context?.trim() ?? '';
      const hasContext = contextText !== '' && !NO_CONTEXT.test(contextText);
      const passage = hasContext ? passages.add(pair.wikipage ?? '', contextText) : null;
      const span = passage && answer ? findSpan(contextText, answer) : null;
      return {
        clarified_question: pair.question,
        condition: null,
        status: 'active' as const,
        dropped_reason: null,
        provenance,
        condition_provenance: null,
        sub_questions: [],
        evidence: passage ? [{ passage, rank: 1, score: null, origin: 'dataset context', provenance }] : [],
        citations: [],
        short_answer: answer
          ? {
              text: answer,
              aliases,
              passage: span ? passage : null,
              start: span?.start ?? null,
              end: span?.end ?? null,
              provenance,
            }
          : null,
        extra: extraKeys(pair, ['question', 'short_answers', 'context']),
      };
    });
    // Knowledge entries without text cannot be passages; they are kept on the instance instead.
    const knowledgeWithoutText: { annotation: number; wikipage: string | null }[] = [];
    const longAnswers = record.annotations.map((annotation, index) => ({
      text: annotation.long_answer,
      citations: annotation.knowledge.flatMap((k) => {
        if (k.content === null || k.content.trim() === '') {
          knowledgeWithoutText.push({ annotation: index, wikipage: k.wikipage ?? null });
          return [];
        }
        return [{ passage: passages.add(k.wikipage ?? '', k.content), interpretation: null, start: null, end: null }];
      }),
      provenance,
    }));
    return {
      format: 'awb-instance/1',
      dataset: context.dataset,
      base_question: {
        source_id: sourceId,
        question: record.question ?? record.ambiguous_question ?? '',
        hops: null,
        answer: null,
        aliases: [],
        answerable: null,
        decomposition: [],
        paragraphs: [],
        extra: {
          ...(context.raw.split !== undefined ? { split: context.raw.split } : {}),
          ...extraKeys(record, KNOWN),
        },
      },
      instance: {
        ambiguity_type: 'unspecified',
        status: 'ready',
        stage: 'imported',
        removed_stage: null,
        removed_reason: null,
        evidence: [],
        interpretations,
        long_answers: longAnswers.filter((a) => a.text.trim() !== ''),
        filter_votes: [],
        extra: knowledgeWithoutText.length ? { knowledge_without_text: knowledgeWithoutText } : {},
      },
      passages: passages.passages,
    };
  },
};
