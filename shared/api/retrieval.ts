import { z } from 'zod';
import { op, type PassageView } from './core';

/** Passage search (BM25, dense, hybrid) and the ambiguity cues. */

export const SEARCH_MODES = ['bm25', 'dense', 'hybrid'] as const;
export type SearchMode = (typeof SEARCH_MODES)[number];

export interface SearchHit {
  rank: number;
  /** BM25 score, cosine similarity, or RRF score, by mode. */
  score: number;
  passage: PassageView;
  bm25: { rank: number; score: number } | null;
  dense: { rank: number; score: number } | null;
}

export interface SearchResult {
  query: string;
  mode: SearchMode;
  k: number;
  corpus: string | null;
  model: string | null;
  /** True when the dense model is the offline lexical embedder, not a semantic one. */
  lexicalModel: boolean | null;
  /** The words the BM25 query used. */
  terms: string[];
  hits: SearchHit[];
  notes: string[];
  milliseconds: number;
}

export const SearchRequestSchema = z
  .object({
    query: z.string().max(4000),
    mode: z.enum(SEARCH_MODES).default('hybrid'),
    k: z.number().int().min(1).max(200).default(10),
    corpus: z.string().optional(),
    model: z.string().optional(),
    hyde: z.string().max(8000).optional(),
    rrfK: z.number().positive().max(10_000).default(60),
  })
  .strict();

export interface ConstraintCues {
  query: string;
  literal: string | null;
  total_hits: number;
  kl_divergence: number | null;
  relax_delta_ratio: number;
  constraints: { kind: 'number' | 'date' | 'quoted'; text: string; hits_without: number }[];
  top_k: number;
}

export interface GeometryCues {
  passages: number;
  dispersion: number;
  separation: number | null;
  state: 'ambiguous' | 'uncertain' | 'unambiguous';
  thresholds: { variance: number; separation: number };
  model: string;
}

export interface AmbiguityCues {
  constraint: ConstraintCues;
  geometry: GeometryCues | null;
}

export const CuesRequestSchema = z
  .object({
    query: z.string().min(1).max(4000),
    corpus: z.string().optional(),
    model: z.string().optional(),
    k: z.number().int().min(2).max(100).default(10),
    varianceThreshold: z.number().min(0).default(0.25),
    separationThreshold: z.number().min(-1).max(1).default(0.1),
  })
  .strict();

export const retrievalOperations = {
  'retrieval:search': op<SearchResult>()(SearchRequestSchema),
  'retrieval:cues': op<AmbiguityCues>()(CuesRequestSchema),
} as const;
