import { z } from 'zod';
import type { AskAction, AskGold, AskTable } from '../eval/methods/ask-first';
import type { Answerability } from '../domain';
import { endpointsConfig, id, none, op, serverPath, startsJob } from './core';
import { SEARCH_LAYERS } from './retrieval';

/** The ask-before-answer evaluation (URASys): answer, clarify, or say there is no answer; scored per answerability label. */

export const AskFirstStartRequest = z
  .object({
    dataset: z.string().min(1),
    config: endpointsConfig().optional(),
    configPath: serverPath().optional(),
    /** Search this corpus for evidence (with `layers`); without one, each question's own paragraphs are its evidence. */
    corpus: z.string().min(1).optional(),
    layers: z.array(z.enum(SEARCH_LAYERS)).min(1).max(2).default(['passages']),
    mode: z.enum(['bm25', 'dense', 'hybrid']).default('hybrid'),
    k: z.number().int().min(1).max(50).default(5),
    limit: z.number().int().positive().optional(),
    noCache: z.boolean().default(false),
  })
  .strict()
  .refine((r) => (r.config === undefined) !== (r.configPath === undefined), { message: 'give either config or configPath' });

export interface AskFirstItemView {
  position: number;
  key: string;
  question: string;
  label: Answerability;
  action: AskAction | null;
  answer: string;
  clarifyingQuestion: string;
  afterReply: string | null;
  correct: boolean | null;
  strict: boolean | null;
  gold: AskGold;
  error: string | null;
}

export interface AskFirstRun {
  id: number;
  dataset: string;
  model: string;
  corpus: string | null;
  status: 'running' | 'done' | 'failed' | 'cancelled';
  total: number;
  done: number;
  failed: number;
  costUsd: number;
  createdAt: string;
  finishedAt: string | null;
  table: AskTable;
  /** What the run left out, and why (base questions without a label, say). */
  notes: string[];
}

export const askFirstOperations = {
  'ask-first:start': startsJob<AskFirstRun>()('ask-first', AskFirstStartRequest),
  'ask-first:get': op<AskFirstRun & { items: AskFirstItemView[] }>()(z.object({ id }).strict()),
  'ask-first:list': op<AskFirstRun[]>()(none),
} as const;
