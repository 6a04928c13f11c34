import type { Worker } from 'node:worker_threads';
import { AppError, type ErrorCode } from '../../../shared/api';
import { workerScript } from '../paths';
import { startWorker } from '../worker-start';
import type { EncodedPart, EncodeTask } from './encode';

/**
 * The release's encoder workers (encoder-worker.ts), each on its own connection to the database
 * file. A task goes to the worker with the fewest waiting; answers come back in any order and the
 * caller puts them in order. When no worker can start (no script, a database in memory) the
 * caller encodes on the main thread instead.
 */

export type EncoderRequest = EncodeTask | { op: 'checkpoint' };
export type EncoderReply = { op: 'ready' } | { op: 'part'; part: EncodedPart } | { op: 'checkpointed' } | { op: 'error'; seq: number; message: string; code: string };

/** The sequence number a checkpoint's answer goes under (tasks count up from 0). */
export const CHECKPOINT_SEQ = -1;

const READY_TIMEOUT_MS = 15_000;

interface Waiting {
  resolve: (part: EncodedPart | null) => void;
  reject: (error: Error) => void;
}

class EncoderWorker {
  readonly waiting = new Map<number, Waiting>();
  broken: Error | null = null;

  constructor(readonly worker: Worker) {
    worker.on('message', (reply: EncoderReply) => {
      if (reply.op === 'part') this.settle(reply.part.seq, (w) => w.resolve(reply.part));
      else if (reply.op === 'checkpointed') this.settle(CHECKPOINT_SEQ, (w) => w.resolve(null));
      else if (reply.op === 'error') this.settle(reply.seq, (w) => w.reject(new AppError(reply.code as ErrorCode, reply.message)));
    });
    worker.on('error', (error) => this.fail(error));
    worker.on('exit', (code) => this.fail(new Error(`the release encoder stopped (exit ${code})`)));
  }

  private settle(seq: number, action: (w: Waiting) => void): void {
    const waiting = this.waiting.get(seq);
    this.waiting.delete(seq);
    if (waiting) action(waiting);
  }

  private fail(error: Error): void {
    this.broken ??= error;
    for (const w of this.waiting.values()) w.reject(this.broken);
    this.waiting.clear();
  }

  run(task: EncodeTask): Promise<EncodedPart> {
    return this.ask(task.seq, task, [task.ids.buffer as ArrayBuffer, task.types.buffer as ArrayBuffer]) as Promise<EncodedPart>;
  }

  checkpoint(): Promise<void> {
    return this.ask(CHECKPOINT_SEQ, { op: 'checkpoint' }, []).then(() => undefined);
  }

  private ask(seq: number, request: EncoderRequest, transfer: ArrayBuffer[]): Promise<EncodedPart | null> {
    if (this.broken) return Promise.reject(this.broken);
    // An answer is matched by its number: a second request under one would leave the first unanswered.
    if (this.waiting.has(seq)) return Promise.reject(new Error(`the release encoder is already working on ${seq}`));
    return new Promise((resolve, reject) => {
      this.waiting.set(seq, { resolve, reject });
      try {
        this.worker.postMessage(request, transfer);
      } catch (error) {
        this.waiting.delete(seq);
        reject(error as Error);
      }
    });
  }
}

export class EncoderPool {
  private constructor(private readonly workers: EncoderWorker[]) {}

  get size(): number {
    return this.workers.length;
  }

  /** `count` workers on the database file, or null when none can start. */
  static async start(file: string, count: number): Promise<EncoderPool | null> {
    const script = workerScript('release-encoder', 'electron/services/release/encoder-worker.mjs');
    if (!script || !file || file === ':memory:' || count < 1) return null;
    const started = await Promise.allSettled(
      Array.from({ length: count }, async () => {
        // A young generation larger than the default: encoding makes many short-lived objects.
        const worker = await startWorker(script, { file }, 'release encoder', READY_TIMEOUT_MS, { maxYoungGenerationSizeMb: 48 });
        return new EncoderWorker(worker);
      }),
    );
    const workers = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    return workers.length ? new EncoderPool(workers) : null;
  }

  /** To the working worker with the fewest tasks waiting (a stopped one fails the release anyway). */
  run(task: EncodeTask): Promise<EncodedPart> {
    const alive = this.workers.filter((w) => !w.broken);
    if (!alive.length) return this.workers[0]!.run(task);
    let best = alive[0]!;
    for (const w of alive) if (w.waiting.size < best.waiting.size) best = w;
    return best.run(task);
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.worker.terminate()));
  }

  /**
   * Stops the workers, one of them only after it has checkpointed the database file: the release
   * committed without checkpointing (`commitThenCheckpoint`), so that copying its hundreds of
   * megabytes of log into the file happens here, in the background, rather than before the release
   * returns. A worker that fails to stop, or a checkpoint that fails, is not an error here.
   */
  async checkpointAndClose(): Promise<void> {
    const [first, ...others] = this.workers.filter((w) => !w.broken);
    void Promise.all(others.map((w) => w.worker.terminate())).catch(() => undefined);
    await (first ? first.checkpoint() : Promise.resolve()).catch(() => undefined);
    await this.close().catch(() => undefined);
  }
}
