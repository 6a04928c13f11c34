import { z } from 'zod';
import { none, op, serverPath, serverReach, startsJob, type ImportIssue } from './core';

/** Passage corpora: import, embedding, listing. */

export interface CorpusSummary {
  id: number;
  name: string;
  passages: number;
  models: { name: string; dimensions: number; lexical: boolean; vectors: number }[];
}

export const CORPUS_FORMATS = ['musique', 'jsonl', 'dpr-tsv', 'wikipedia-jsonl'] as const;
export type CorpusFormat = (typeof CORPUS_FORMATS)[number];

/** What a corpus import ends with. */
export interface CorpusImportReport {
  file: string;
  format: CorpusFormat;
  corpus: string;
  records: number;
  passagesRead: number;
  passagesCreated: number;
  duplicates: number;
  rejected: number;
  /** The record after which an interrupted import of the same file was resumed (0: from the start). */
  resumedFrom: number;
  errors: ImportIssue[];
  committed: boolean;
  seconds: number;
}

/** What embedding a corpus ends with. */
export interface EmbedReport {
  model: string;
  corpus: string;
  dimensions: number;
  embedded: number;
  already: number;
  total: number;
  requests: number;
  seconds: number;
}

export const CorpusImportRequest = z
  .object({
    path: serverPath(),
    format: z.enum(CORPUS_FORMATS),
    corpus: z.string().trim().min(1).max(200).optional(),
    skipInvalid: z.boolean().default(false),
    /** wikipedia-jsonl: the length of a passage, in words. */
    targetWords: z.number().int().min(10).max(5000).default(100),
  })
  .strict();

export const EMBEDDING_PROVIDERS = ['offline', 'openai'] as const;

export const EmbedRequest = z
  .object({
    corpus: z.string().min(1),
    /** offline: the built-in lexical embedder; openai: any OpenAI-compatible embeddings endpoint. */
    provider: z.enum(EMBEDDING_PROVIDERS).default('offline'),
    model: z.string().trim().min(1).optional(),
    baseURL: serverReach(z.url()).optional(),
    /** The environment variable holding the key (never the key itself). */
    apiKeyEnv: serverReach(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name')).default('OPENAI_API_KEY'),
    dimensions: z.number().int().min(8).max(8192).optional(),
    /** offline: recount document frequencies on this corpus and re-embed it. */
    refit: z.boolean().default(false),
  })
  .strict()
  .refine((r) => r.provider === 'offline' || r.model !== undefined, { message: 'the openai provider needs a model', path: ['model'] });

export const corpusOperations = {
  'corpus:list': op<CorpusSummary[]>()(none),
  'corpus:import': startsJob<CorpusImportReport>()('corpus-import', CorpusImportRequest),
  'corpus:embed': startsJob<EmbedReport>()('embed', EmbedRequest),
} as const;
