import os from 'node:os';
import type { Worker } from 'node:worker_threads';
import { workerScript } from '../paths';
import { startWorker } from '../worker-start';
import { countBatch, embedBatch, type EmbeddedBatch, type EmbedReply, type EmbedTask, type PassageText } from './embed-work';
import { OfflineEmbedder, type OfflineState } from './offline-embedder';

/**
 * Where the offline embedder's work runs: worker threads, one per core, while the calling thread
 * reads passages and stores vectors; or the calling thread itself, for small corpora (a worker
 * costs about a second to start) or when no worker can start. The vectors are the same either way.
 */
export interface EmbedWork {
  /** Worker threads doing the work; 0 when the calling thread does it. */
  readonly threads: number;
  count(passages: PassageText[]): Promise<OfflineState>;
  /** The fitted statistics every later `embed` uses. */
  use(state: OfflineState): Promise<void>;
  embed(passages: PassageText[]): Promise<EmbeddedBatch>;
  close(): Promise<void>;
}

/** Below this many passages to embed, the calling thread does the work. */
export const WORKERS_FROM = 20_000;
const READY_TIMEOUT_MS = 30_000;

export function inThread(dimensions: number): EmbedWork {
  let embedder: OfflineEmbedder | null = null;
  return {
    threads: 0,
    count: async (passages) => countBatch(dimensions, passages),
    use: async (state) => {
      embedder = new OfflineEmbedder(dimensions, state);
    },
    embed: async (passages) => {
      if (!embedder) throw new Error('the embedder has no fit yet');
      return embedBatch(embedder, passages);
    },
    close: async () => undefined,
  };
}

class EmbedThread {
  private readonly waiting = new Map<number, { resolve: (reply: EmbedReply) => void; reject: (error: Error) => void }>();
  private broken: Error | null = null;

  constructor(readonly worker: Worker) {
    worker.on('message', (reply: EmbedReply) => {
      if (reply.op === 'ready') return;
      const waiting = this.waiting.get(reply.seq);
      this.waiting.delete(reply.seq);
      if (reply.op === 'error') waiting?.reject(new Error(`the embedding worker failed: ${reply.message}`));
      else waiting?.resolve(reply);
    });
    worker.on('error', (error) => this.fail(error));
    worker.on('exit', (code) => this.fail(new Error(`the embedding worker stopped (exit ${code})`)));
  }

  get load(): number {
    return this.waiting.size;
  }

  private fail(error: Error): void {
    this.broken ??= error;
    for (const w of this.waiting.values()) w.reject(this.broken);
    this.waiting.clear();
  }

  run(task: EmbedTask): Promise<EmbedReply> {
    if (this.broken) return Promise.reject(this.broken);
    return new Promise((resolve, reject) => {
      this.waiting.set(task.seq, { resolve, reject });
      this.worker.postMessage(task);
    });
  }
}

async function startThread(script: string, dimensions: number): Promise<EmbedThread> {
  return new EmbedThread(await startWorker(script, { dimensions }, 'embedding worker', READY_TIMEOUT_MS));
}

function inWorkers(threads: EmbedThread[]): EmbedWork {
  let seq = 0;
  const next = () => threads.reduce((best, t) => (t.load < best.load ? t : best));
  return {
    threads: threads.length,
    count: async (passages) => {
      const reply = await next().run({ op: 'count', seq: seq++, passages });
      if (reply.op !== 'counted') throw new Error(`the embedding worker answered ${reply.op} to count`);
      return { documents: reply.documents, df: reply.df };
    },
    use: async (state) => {
      await Promise.all(threads.map((t) => t.run({ op: 'use', seq: seq++, documents: state.documents, df: state.df })));
    },
    embed: async (passages) => {
      const reply = await next().run({ op: 'embed', seq: seq++, passages });
      if (reply.op !== 'embedded') throw new Error(`the embedding worker answered ${reply.op} to embed`);
      return { vectors: reply.vectors, signs: reply.signs, planes: reply.planes, weights: reply.weights };
    },
    close: async () => {
      await Promise.all(threads.map((t) => t.worker.terminate()));
    },
  };
}

/**
 * Worker threads for `passages` passages of `dimensions`, one per core (at most 4), or the
 * calling thread when the corpus is small or no worker starts (`log` says why).
 */
export async function startEmbedWork(dimensions: number, passages: number, log?: (message: string) => void): Promise<EmbedWork> {
  if (passages < WORKERS_FROM) return inThread(dimensions);
  const script = workerScript('embed-worker', 'electron/services/retrieval/embed-worker.mjs');
  if (!script) {
    log?.('Embedding runs in-thread: no worker script');
    return inThread(dimensions);
  }
  const count = Math.max(1, Math.min(4, os.availableParallelism()));
  const started = await Promise.allSettled(Array.from({ length: count }, () => startThread(script, dimensions)));
  const threads = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  if (threads.length === 0) {
    log?.(`Embedding runs in-thread: ${(started[0] as PromiseRejectedResult).reason}`);
    return inThread(dimensions);
  }
  return inWorkers(threads);
}
