import { z } from 'zod';
import { nonBlank } from '../../../../shared/awb-format';
import { decompositionStyle } from '../../../../shared/domain';
import { PassageList, extraKeys, type SourceFormat } from './format';

const Paragraph = z.object({
  idx: z.number().int().min(0),
  title: z.string(),
  paragraph_text: nonBlank(),
  is_supporting: z.boolean().default(false),
});

const Step = z.object({
  id: z.union([z.number().int(), z.string()]).nullable().optional(),
  question: nonBlank(),
  answer: z.string().nullable().optional(),
  paragraph_support_idx: z.number().int().nullable().optional(),
});

const KNOWN = ['id', 'paragraphs', 'question', 'question_decomposition', 'answer', 'answer_aliases', 'answerable'];

const MusiqueRecord = z
  .looseObject({
    id: nonBlank(),
    paragraphs: z.array(Paragraph).min(1, 'must list at least one paragraph'),
    question: nonBlank(),
    question_decomposition: z.array(Step).default([]),
    answer: z.string().nullable().optional(),
    answer_aliases: z.array(z.string()).default([]),
    answerable: z.boolean().nullable().optional(),
  })
  .superRefine((record, ctx) => {
    const seen = new Set<number>();
    record.paragraphs.forEach((p, i) => {
      if (seen.has(p.idx)) ctx.addIssue({ code: 'custom', path: ['paragraphs', i, 'idx'], message: `idx ${p.idx} appears twice` });
      seen.add(p.idx);
    });
    record.question_decomposition.forEach((step, i) => {
      const support = step.paragraph_support_idx;
      if (support !== null && support !== undefined && !seen.has(support)) {
        ctx.addIssue({
          code: 'custom',
          path: ['question_decomposition', i, 'paragraph_support_idx'],
          message: `no paragraph has idx ${support}`,
        });
      }
    });
  });
type MusiqueRecord = z.output<typeof MusiqueRecord>;

/** Hops from the decomposition, or from the id prefix (`2hop__`, `3hop1__`) when it is absent. */
function hopsOf(record: MusiqueRecord): number | null {
  if (record.question_decomposition.length > 0) return record.question_decomposition.length;
  const match = /^(\d)hop/.exec(record.id);
  return match ? Number(match[1]) : null;
}

export const musique: SourceFormat<MusiqueRecord> = {
  name: 'musique',
  label: 'MuSiQue v1.0',
  schema: MusiqueRecord,
  defaults: {
    description: 'MuSiQue: multi-hop questions composed from single-hop ones.',
    licence: 'CC BY 4.0',
    attribution: 'MuSiQue (Trivedi, Balasubramanian, Khot and Sabharwal, TACL 2022)',
    url: 'https://github.com/StonyBrookNLP/musique',
  },
  sourceId: (record) => record.id,
  toAwb(record, context) {
    const passages = new PassageList(context.corpus);
    const positionOfIdx = new Map<number, number>();
    const paragraphs = record.paragraphs.map((p, position) => {
      positionOfIdx.set(p.idx, position);
      return { passage: passages.add(p.title, p.paragraph_text), is_supporting: p.is_supporting };
    });
    return {
      format: 'awb-instance/1',
      dataset: context.dataset,
      base_question: {
        source_id: record.id,
        question: record.question,
        hops: hopsOf(record),
        answer: record.answer ?? null,
        aliases: record.answer_aliases,
        answerable: record.answerable ?? null,
        decomposition: record.question_decomposition.map((step) => ({
          source_id: step.id === null || step.id === undefined ? null : String(step.id),
          question: step.question,
          answer: step.answer ?? null,
          style: decompositionStyle(step.question),
          support:
            step.paragraph_support_idx === null || step.paragraph_support_idx === undefined
              ? null
              : (positionOfIdx.get(step.paragraph_support_idx) ?? null),
        })),
        paragraphs,
        extra: extraKeys(record, KNOWN),
      },
      instance: null,
      passages: passages.passages,
    };
  },
};
