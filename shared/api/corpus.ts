import { z } from 'zod';
import { none, op } from './core';

/** Passage corpora: import, embedding, listing. */

export interface CorpusSummary {
  id: number;
  name: string;
  passages: number;
  models: { name: string; dimensions: number; lexical: boolean; vectors: number }[];
}

export const CORPUS_FORMATS = ['musique', 'jsonl', 'dpr-tsv', 'wikipedia-jsonl'] as const;
export type CorpusFormat = (typeof CORPUS_FORMATS)[number];

export const CorpusImportRequest = z
  .object({
    path: z.string().min(1),
    format: z.enum(CORPUS_FORMATS),
    corpus: z.string().trim().min(1).max(200).optional(),
    skipInvalid: z.boolean().default(false),
  })
  .strict();

export const EmbedRequest = z.object({ corpus: z.string().min(1) }).strict();

export const corpusOperations = {
  'corpus:list': op<CorpusSummary[]>()(none),
  'corpus:import': op<{ jobId: string }>()(CorpusImportRequest),
  'corpus:embed': op<{ jobId: string }>()(EmbedRequest),
} as const;
