import { z } from 'zod';
import { op, type PassageView, type Provenance, serverPath, startsJob } from './core';

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
  /** Set on a hit from a QA layer (absent on passages). */
  layer?: 'qa';
  /** A QA-layer hit: the generated pair, the question it paraphrases, and the passage it came from. */
  qa?: { question: string; answer: string; canonicalQuestion: string; grounded: boolean; source: PassageView; provenance: Provenance | null };
}

export const SEARCH_LAYERS = ['passages', 'qa'] as const;
export type DenseMethod = 'exact' | 'codes';

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
  /**
   * How the dense ranking was made (null without one): every vector scored exactly (corpora of
   * up to 5,000 vectors), or the vectors' codes narrowing them to a few dozen scored exactly.
   */
  denseMethod: DenseMethod | null;
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
    /** The corpus's passages, its QA layer, or both fused (the QA layer needs a corpus). */
    layers: z.array(z.enum(SEARCH_LAYERS)).min(1).max(2).default(['passages']),
  })
  .strict();

export interface ConstraintCues {
  query: string;
  literal: string | null;
  totalHits: number;
  klDivergence: number | null;
  relaxDeltaRatio: number;
  constraints: { kind: 'number' | 'date' | 'quoted'; text: string; hits_without: number }[];
  topK: number;
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

export interface CollectedPassage {
  rank: number;
  passage: PassageView;
  /** Cosine similarity to the clarified question (the re-ranking score). */
  score: number;
  /** `sub-question 1`, `sub-question 2`, `back-fill`: every retrieval that returned it. */
  origins: string[];
  /** Its best rank in any of those retrievals. */
  retrievalRank: number;
}

export const EvidenceRequestSchema = z
  .object({
    /** The clarified question: back-fill and re-ranking use it. */
    question: z.string().trim().min(1).max(4000),
    subQuestions: z.array(z.string().trim().min(1).max(4000)).max(20).default([]),
    k: z.number().int().min(1).max(100).default(10),
    mode: z.enum(SEARCH_MODES).default('hybrid'),
    corpus: z.string().optional(),
    model: z.string().optional(),
  })
  .strict();

export interface RetrievalEvalReport {
  mode: SearchMode;
  k: number;
  corpus: string;
  model: string | null;
  questions: number;
  recallAtK: number | null;
  ndcgAtK: number | null;
  subquestions: number;
  subquestionRecallAtK: number | null;
  seconds: number;
}

export const RetrievalEvalRequest = z
  .object({
    /** MuSiQue questions (JSON array or JSON Lines) whose supporting paragraphs are the gold. */
    questions: serverPath(),
    mode: z.enum(SEARCH_MODES).default('hybrid'),
    k: z.number().int().min(1).max(100).default(10),
    corpus: z.string().optional(),
    model: z.string().optional(),
    /** Import the questions' paragraphs into the corpus first (and embed them offline if needed). */
    buildCorpus: z.boolean().default(false),
  })
  .strict();

export const retrievalOperations = {
  'retrieval:evidence': op<CollectedPassage[]>()(EvidenceRequestSchema),
  'retrieval:evaluate': startsJob<RetrievalEvalReport>()('retrieval-eval', RetrievalEvalRequest),
  'retrieval:search': op<SearchResult>()(SearchRequestSchema),
  'retrieval:cues': op<AmbiguityCues>()(CuesRequestSchema),
} as const;
