import { z } from 'zod';
import type { AwbRecord } from '../../../../shared/awb-format';
import { datasetProvenance, extraKeys, type ConvertContext, type SourceFormat } from './format';

/**
 * SQuAD 2.0 (Rajpurkar, Jia and Liang, 2018): `{"version": "v2.0", "data": [article, ...]}`, an
 * article `{title, paragraphs: [{context, qas: [...]}]}`, a question `{id, question, answers,
 * is_impossible, plausible_answers?}`. The file is read one article at a time (the `data` array
 * is streamed); each question becomes one record: a base question whose only paragraph is its
 * context, labelled unanswerable when `is_impossible` says so (URASys uses these questions).
 */

const Span = z.looseObject({ text: z.string(), answer_start: z.number().int().min(0) });
type Span = z.output<typeof Span>;

const Qa = z.looseObject({
  id: z.string().min(1, 'the question has no id'),
  question: z.string(),
  answers: z.array(Span).default([]),
  // Checked with its own message below (a missing flag is a SQuAD 1.1 file, or a broken one).
  is_impossible: z.unknown().optional(),
  plausible_answers: z.array(Span).optional(),
});

const Paragraph = z.looseObject({ context: z.string().refine((s) => s.trim() !== '', 'the context is empty'), qas: z.array(Qa) });

const Article = z
  .looseObject({ title: z.string().default(''), paragraphs: z.array(Paragraph).min(1, 'must list at least one paragraph') })
  .superRefine((article, ctx) => {
    article.paragraphs.forEach((paragraph, p) =>
      paragraph.qas.forEach((qa, q) => {
        const at = (field: string) => ['paragraphs', p, 'qas', q, field];
        const which = `paragraphs[${p}] › qas[${q}] (id ${qa.id})`;
        if (qa.question.trim() === '') ctx.addIssue({ code: 'custom', path: at('question'), message: `${which}: the question is empty` });
        if (typeof qa.is_impossible !== 'boolean') {
          const problem = qa.is_impossible === undefined ? 'is missing' : `is ${JSON.stringify(qa.is_impossible)}, not true or false`;
          ctx.addIssue({
            code: 'custom',
            path: at('is_impossible'),
            message: `${which}: is_impossible ${problem}: SQuAD 2.0 marks every question true or false (a SQuAD 1.1 file has no such field)`,
          });
          return;
        }
        if (qa.is_impossible && qa.answers.length > 0) {
          ctx.addIssue({ code: 'custom', path: at('answers'), message: `${which}: is_impossible is true but the question has ${qa.answers.length} answer(s)` });
        }
        if (!qa.is_impossible && qa.answers.length === 0) ctx.addIssue({ code: 'custom', path: at('answers'), message: `${which}: is_impossible is false but the question has no answer` });
        qa.answers.forEach((answer, a) => {
          if (placeSpan(paragraph.context, answer) === null) {
            ctx.addIssue({ code: 'custom', path: [...at('answers'), a, 'text'], message: `${which}: the answer ${JSON.stringify(answer.text)} does not occur in the context` });
          }
        });
      }),
    );
  });
type Article = z.output<typeof Article>;
type Qa = z.output<typeof Qa>;

/**
 * Where an answer span really is: at `answer_start` when the text is there, else at the
 * occurrence nearest to it (a shifted offset, common after re-encoding), else nowhere.
 */
export function placeSpan(context: string, span: Span): number | null {
  if (span.text === '') return null;
  if (context.startsWith(span.text, span.answer_start)) return span.answer_start;
  let best: number | null = null;
  for (let at = context.indexOf(span.text); at !== -1; at = context.indexOf(span.text, at + 1)) {
    if (best === null || Math.abs(at - span.answer_start) < Math.abs(best - span.answer_start)) best = at;
  }
  return best;
}

const spans = (context: string, list: readonly Span[]) => list.map((s) => ({ text: s.text, start: placeSpan(context, s) ?? s.answer_start }));

function questionRecord(article: Article, p: number, qa: Qa, context: ConvertContext): AwbRecord {
  const paragraph = article.paragraphs[p]!;
  const impossible = qa.is_impossible === true;
  const answers = [...new Set(qa.answers.map((a) => a.text.trim()).filter(Boolean))];
  const repairs = qa.answers.filter((a) => placeSpan(paragraph.context, a) !== a.answer_start).map((a) => ({ text: a.text, given: a.answer_start, found: placeSpan(paragraph.context, a) }));
  return {
    format: 'awb-instance/1',
    dataset: context.dataset,
    base_question: {
      source_id: qa.id,
      question: qa.question,
      hops: 1,
      answer: answers[0] ?? null,
      aliases: answers.slice(1),
      answerable: !impossible,
      answerability: impossible ? 'unanswerable' : 'answerable',
      answerability_provenance: datasetProvenance(context),
      decomposition: [],
      paragraphs: [{ passage: 'p1', is_supporting: !impossible }],
      extra: {
        article: article.title,
        paragraph_index: p,
        answer_spans: spans(paragraph.context, qa.answers),
        plausible_answers: spans(paragraph.context, qa.plausible_answers ?? []),
        ...(repairs.length ? { span_repairs: repairs } : {}),
        ...extraKeys(qa, ['id', 'question', 'answers', 'is_impossible', 'plausible_answers']),
      },
    },
    instance: null,
    passages: [{ id: 'p1', corpus: context.corpus, source_id: `${article.title}#${p}`, title: article.title, text: paragraph.context }],
  };
}

export const squad2: SourceFormat<Article> = {
  name: 'squad2',
  label: 'SQuAD 2.0',
  schema: Article,
  wrapper: 'data',
  defaults: {
    description: 'SQuAD 2.0: reading comprehension over Wikipedia paragraphs, with unanswerable questions.',
    licence: 'CC BY-SA 4.0',
    attribution: 'SQuAD 2.0 (Pranav Rajpurkar, Robin Jia and Percy Liang, 2018)',
    url: 'https://rajpurkar.github.io/SQuAD-explorer/',
  },
  sourceId: (article, raw) => `${article.title}\u0000${raw.index}`,
  subIds: (article) => article.paragraphs.flatMap((p) => p.qas.map((qa) => qa.id)),
  toAwb: (article, context) => article.paragraphs.flatMap((paragraph, p) => paragraph.qas.map((qa) => questionRecord(article, p, qa, context))),
};
