import { Worker } from 'node:worker_threads';
import type { WritableDB } from '../../../db/sql';
import { AppError, type ConstraintCues, type ErrorCode } from '../../../shared/api';
import { workerScript } from '../paths';
import { constraintCues } from '../retrieval/cues';
import { collectEvidence, type EvidenceRequest } from '../retrieval/evidence';
import type { Retriever } from '../retrieval/search';

/**
 * The pipeline's retrieval work (a question's constraint cues, an interpretation's evidence) is
 * synchronous SQLite and CPU: done on the thread that drives the model calls, it stalls them.
 * With a database file, it runs in a worker thread on a connection of its own (WAL lets it read
 * beside the writer), on another core; with an in-memory database, a custom retriever, or a
 * worker that cannot start, it runs in-thread. The results are the same either way.
 */

/** What the retrieve stage keeps of an interpretation's evidence: ranked passage ids, scores, origins. */
export interface EvidenceRow {
  rank: number;
  passageId: number;
  score: number;
  origins: string[];
}

export interface RetrievalWork {
  readonly where: 'worker' | 'in-thread';
  cues(question: string, corpusId: number | null, k: number): Promise<ConstraintCues>;
  evidence(request: EvidenceRequest): Promise<EvidenceRow[]>;
  close(): Promise<void>;
}

export type RetrievalRequest =
  | { id: number; kind: 'cues'; question: string; corpusId: number | null; k: number }
  | { id: number; kind: 'evidence'; request: EvidenceRequest };

/** A request before it is numbered (Omit, distributed over the union). */
type Unnumbered<T> = T extends unknown ? Omit<T, 'id'> : never;

export type RetrievalReply =
  | { type: 'ready' }
  | { type: 'reply'; id: number; ok: true; value: unknown }
  | { type: 'reply'; id: number; ok: false; code: ErrorCode; message: string };

export async function evidenceRows(retriever: Retriever, request: EvidenceRequest): Promise<EvidenceRow[]> {
  return (await collectEvidence(retriever, request)).map((p) => ({ rank: p.rank, passageId: p.passage.id, score: p.score, origins: p.origins }));
}

export function inThread(db: WritableDB, retriever: Retriever): RetrievalWork {
  return {
    where: 'in-thread',
    cues: (question, corpusId, k) => Promise.resolve(constraintCues(db, question, corpusId, k)),
    evidence: (request) => evidenceRows(retriever, request),
    close: () => Promise.resolve(),
  };
}


const READY_TIMEOUT_MS = 15_000;

/** A retrieval worker on the database file; rejects when it cannot start. */
export async function startRetrievalWorker(file: string): Promise<RetrievalWork> {
  const script = workerScript('retrieval-worker', 'electron/services/pipeline/retrieval-worker.mjs');
  if (!script) throw new Error('no retrieval worker script');
  const worker = new Worker(script, { workerData: { file } });
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  let broken: Error | null = null;
  const failAll = (error: Error) => {
    broken ??= error;
    for (const p of pending.values()) p.reject(new AppError('internal', `The retrieval worker stopped: ${error.message}`));
    pending.clear();
  };
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the retrieval worker did not start in time')), READY_TIMEOUT_MS);
    worker.on('message', (message: RetrievalReply) => {
      if (message.type === 'ready') {
        clearTimeout(timer);
        resolve();
        return;
      }
      const waiting = pending.get(message.id);
      pending.delete(message.id);
      if (!waiting) return;
      if (message.ok) waiting.resolve(message.value);
      else waiting.reject(new AppError(message.code, message.message));
    });
    worker.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
      failAll(error);
    });
    worker.on('exit', (code) => {
      clearTimeout(timer);
      const error = new Error(`exited with code ${code}`);
      reject(error);
      failAll(error);
    });
  }).catch(async (error: unknown) => {
    await worker.terminate();
    throw error;
  });

  let nextId = 1;
  const ask = <T>(request: Unnumbered<RetrievalRequest>): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      if (broken) {
        reject(new AppError('internal', `The retrieval worker stopped: ${broken.message}`));
        return;
      }
      const id = nextId++;
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      worker.postMessage({ ...request, id } as RetrievalRequest);
    });
  return {
    where: 'worker',
    cues: (question, corpusId, k) => ask<ConstraintCues>({ kind: 'cues', question, corpusId, k }),
    evidence: (request) => ask<EvidenceRow[]>({ kind: 'evidence', request }),
    close: async () => {
      broken ??= new Error('closed');
      await worker.terminate();
    },
  };
}

/**
 * The worker where it can run, else in-thread. The worker starts on the first request, so a run
 * that retrieves nothing (say, only clarify) never pays for one; `where` is null until then.
 */
export function retrievalWork(
  db: WritableDB,
  retriever: Retriever,
  options: { custom: boolean; log?: (message: string) => void },
): Omit<RetrievalWork, 'where'> & { readonly where: RetrievalWork['where'] | null } {
  if (options.custom || db.memory) return inThread(db, retriever);
  let started: Promise<RetrievalWork> | null = null;
  let where: RetrievalWork['where'] | null = null;
  const work = () =>
    (started ??= startRetrievalWorker(db.name)
      .catch((error: unknown) => {
        options.log?.(`Retrieval runs in-thread: ${(error as Error).message}`);
        return inThread(db, retriever);
      })
      .then((w) => {
        where = w.where;
        return w;
      }));
  return {
    get where() {
      return where;
    },
    cues: async (question, corpusId, k) => (await work()).cues(question, corpusId, k),
    evidence: async (request) => (await work()).evidence(request),
    close: async () => {
      if (started) await (await started).close();
    },
  };
}
