import { z } from 'zod';
import type { CitationLinkReport } from '../../../../shared/api';
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

/** Squashed white space and case, for comparing a citation with a fragment. */
const same = (a: string, b: string) => a.replace(/\s+/g, ' ').trim().toLowerCase() === b.replace(/\s+/g, ' ').trim().toLowerCase();

/** A gold citation's title as the released data writes it: "N. Title", N the fragment's position (1-based) in `ctxs`. */
const NUMBERED = /^\s*(\d+)\.\s+(.*)$/s;

/** How one gold citation was linked: to the fragment its number names, by its title and text, or to none. */
export type CitationLink =
  | { position: number; by: 'number'; number: number; agrees: boolean }
  | { position: number; by: 'title+text'; number: number }
  | { position: number; by: 'unmatched'; title: string; reason: string };

/**
 * Links a citation to a fragment: by the number its title starts with when it has one (even when
 * its title or text differ from that fragment's, which `agrees` records), else to the first
 * fragment with the same title and text; otherwise to none, with the reason.
 */
export function linkCitation(citation: { title: string; text: string }, ctxs: readonly { title: string; text: string }[], position: number): CitationLink {
  const numbered = NUMBERED.exec(citation.title);
  if (numbered) {
    const n = Number(numbered[1]);
    const ctx = ctxs[n - 1];
    if (n < 1 || !ctx) return { position, by: 'unmatched', title: citation.title, reason: `no fragment ${n}: the question has ${ctxs.length}` };
    return { position, by: 'number', number: n, agrees: same(numbered[2]!, ctx.title) && same(citation.text, ctx.text) };
  }
  const found = ctxs.findIndex((ctx) => same(ctx.title, citation.title) && same(ctx.text, citation.text));
  if (found < 0) return { position, by: 'unmatched', title: citation.title, reason: 'no fragment with this title and text' };
  return { position, by: 'title+text', number: found + 1 };
}

function tally(report: CitationLinkReport, link: CitationLink, sourceId: string): void {
  if (link.by === 'number') {
    report.byNumber++;
    if (!link.agrees) report.numberTextDisagree++;
  } else if (link.by === 'title+text') report.byTitleText++;
  else {
    report.unmatched++;
    if (report.examples.length < 20) report.examples.push({ sourceId, title: link.title, reason: link.reason });
  }
}

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
    // The retrieved fragments, frozen exactly as given: citations point into this list, never extend it.
    const frozen = record.ctxs.map((ctx, i) => ({ passage: passages.add(ctx.title, ctx.text), rank: i + 1, score: score(ctx.score), origin: 'retrieved', provenance }));
    const interpretations = record.properties.map((property) => {
      const links = property.citations.map((citation, position) => linkCitation(citation, record.ctxs, position));
      for (const link of links) tally(context.citationLinks, link, record.id);
      const citations = links.flatMap((link) => (link.by === 'unmatched' ? [] : [link.number]));
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
        extra: { ...extraKeys(property, ['condition', 'groundtruth', 'citations']), citation_links: links },
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
