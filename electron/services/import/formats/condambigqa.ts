import { z } from 'zod';
import { nonBlank, type AwbRecord } from '../../../../shared/awb-format';
import { PassageList, datasetProvenance, extraKeys, type SourceFormat } from './format';

const Fragment = z.looseObject({ title: z.string().default(''), text: nonBlank() });

const CondAmbigRecord = z.looseObject({
  id: z.union([z.string(), z.number()]).transform(String),
  question: nonBlank(),
  properties: z
    .array(
      z.looseObject({
        condition: nonBlank(),
        groundtruth: z.union([z.string(), z.array(z.string())]).nullable().optional(),
        citations: z.array(Fragment).default([]),
      }),
    )
    .min(1, 'must list at least one condition'),
  ctxs: z.array(Fragment.extend({ score: z.union([z.number(), z.string()]).nullable().optional() })).default([]),
});
type CondAmbigRecord = z.output<typeof CondAmbigRecord>;

const squash = (text: string) => text.replace(/\s+/g, ' ').trim();

function score(value: number | string | null | undefined): number | null {
  if (value === null || value === undefined) return null;
  const n = typeof value === 'number' ? value : Number(value);
  return Number.isFinite(n) ? n : null;
}

export const condambigqa: SourceFormat<CondAmbigRecord> = {
  name: 'condambigqa',
  label: 'CondAmbigQA',
  schema: CondAmbigRecord,
  defaults: {
    description: 'CondAmbigQA: ambiguous questions whose answers hold under explicit conditions.',
    licence: 'CC BY-SA 3.0',
    attribution: 'CondAmbigQA (Zongxi Li, Yang Li, Haoran Xie and S. Joe Qin); built on AmbigNQ and Wikipedia',
    url: 'https://huggingface.co/datasets/Apocalypse-AGI-DAO/CondAmbigQA-2K',
  },
  sourceId: (record) => record.id,
  toAwb(record, context): AwbRecord {
    const provenance = datasetProvenance(context);
    const passages = new PassageList(context.corpus);
    // The retrieved fragments, frozen in their order: citations point into this list.
    const rankOf = new Map<string, number>();
    const frozen = record.ctxs.map((ctx, i) => {
      const passage = passages.add(ctx.title, ctx.text);
      const key = `${squash(ctx.title)}\u0000${squash(ctx.text)}`;
      if (!rankOf.has(key)) rankOf.set(key, i + 1);
      return { passage, rank: i + 1, score: score(ctx.score), origin: 'retrieved', provenance };
    });
    const interpretations = record.properties.map((property) => {
      const citations = property.citations.map((citation) => {
        const key = `${squash(citation.title)}\u0000${squash(citation.text)}`;
        let rank = rankOf.get(key);
        if (rank === undefined) {
          // A citation missing from ctxs joins the frozen list, marked as such, so it still resolves.
          rank = frozen.length + 1;
          frozen.push({ passage: passages.add(citation.title, citation.text), rank, score: null, origin: 'citation', provenance });
          rankOf.set(key, rank);
        }
        return rank;
      });
      const truths = (Array.isArray(property.groundtruth) ? property.groundtruth : [property.groundtruth ?? ''])
        .map((t) => t.trim())
        .filter((t) => t !== '');
      const [text, ...aliases] = truths;
      return {
        clarified_question: null,
        condition: property.condition,
        status: 'active' as const,
        dropped_reason: null,
        provenance: null,
        condition_provenance: provenance,
        sub_questions: [],
        evidence: [],
        citations: [...new Set(citations)],
        short_answer: text ? { text, aliases, passage: null, start: null, end: null, provenance } : null,
        extra: extraKeys(property, ['condition', 'groundtruth', 'citations']),
      };
    });
    return {
      format: 'awb-instance/1',
      dataset: context.dataset,
      base_question: {
        source_id: record.id,
        question: record.question,
        hops: null,
        answer: null,
        aliases: [],
        answerable: null,
        decomposition: [],
        paragraphs: [],
        extra: extraKeys(record, ['id', 'question', 'properties', 'ctxs']),
      },
      instance: {
        ambiguity_type: 'unspecified',
        status: 'ready',
        stage: 'imported',
        removed_stage: null,
        removed_reason: null,
        evidence: frozen,
        interpretations,
        long_answers: [],
        filter_votes: [],
        extra: {},
      },
      passages: passages.passages,
    };
  },
};
