import { z } from 'zod';
import type { AmbiguityType, Answerability, InstanceStatus } from '../domain';
import { none, op } from './core';
import type { Job } from './jobs';

/** The app itself, its counts, and the jobs that carry long work. */

export interface Stats {
  datasets: number;
  baseQuestions: number;
  passages: number;
  corpora: number;
  instances: number;
  instancesByType: Record<AmbiguityType, number>;
  instancesByStatus: Record<InstanceStatus, number>;
  interpretations: number;
  longAnswers: number;
  /** URASys labels of the base questions; `unlabelled` for those without one. */
  baseQuestionsByAnswerability: Record<Answerability | 'unlabelled', number>;
}

export interface AppInfo {
  name: string;
  version: string;
  mode: 'desktop' | 'browser';
  databasePath: string;
  schemaVersion: number;
  sqlite: string;
  sqliteVec: string;
  node: string;
  /** The offline pack the app was opened with (`npm start -- FILE`), if any. */
  pack: string | null;
}

export const appOperations = {
  'app:info': op<AppInfo>()(none),
  'stats:get': op<Stats>()(none),
  'job:list': op<Job[]>()(none),
  'job:get': op<Job>()(z.object({ id: z.string() }).strict()),
  'job:cancel': op<Job>()(z.object({ id: z.string() }).strict()),
} as const;
