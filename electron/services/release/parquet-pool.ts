import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { appRoot } from '../../paths';

/**
 * The main thread's side of the Parquet worker: one worker per release, one file per split. Lines
 * go over in batches; at most `MAX_IN_FLIGHT` batches wait at a time, so memory stays bounded when
 * the worker is slower than the reading. When no worker script is available (the desktop bundle
 * does not carry one yet) the caller encodes on the main thread instead.
 */

export type ParquetRequest =
  | { op: 'open'; id: number; relativePath: string; dir: string; rowGroupRows: number; keyValues: { key: string; value: string }[] }
  | { op: 'rows'; id: number; seq: number; lines: string[] }
  | { op: 'finish'; id: number }
  | { op: 'abort' };

export type ParquetReply =
  | { op: 'ready' }
  | { op: 'ack'; seq: number }
  | { op: 'finished'; id: number; sha256: string; rows: number; bytes: number }
  | { op: 'error'; message: string; code: string | null }
  | { op: 'aborted' };

const BATCH = 500;
const MAX_IN_FLIGHT = 8;

function workerScript(): string | null {
  if (process.versions.electron) return null;
  const script = path.join(appRoot(), 'electron', 'services', 'release', 'parquet-worker.mjs');
  return fs.existsSync(script) ? script : null;
}

export class ParquetPool {
  private seq = 0;
  private acked = 0;
  private failure: Error | null = null;
  private waiters: (() => void)[] = [];
  private readonly pending = new Map<number, string[]>();
  private readonly finished = new Map<number, { resolve: (r: { sha256: string; rows: number; bytes: number }) => void; reject: (e: Error) => void }>();

  private constructor(private readonly worker: Worker) {
    worker.on('message', (reply: ParquetReply) => {
      if (reply.op === 'ack') this.acked = Math.max(this.acked, reply.seq);
      else if (reply.op === 'finished') this.finished.get(reply.id)?.resolve(reply);
      else if (reply.op === 'error') this.fail(Object.assign(new Error(reply.message), reply.code ? { code: reply.code } : {}));
      this.wake();
    });
    worker.on('error', (error) => this.fail(error));
    worker.on('exit', (code) => {
      if (code !== 0) this.fail(new Error(`the Parquet worker stopped (exit ${code})`));
    });
  }

  /** A pool with its worker running, or null when there is no worker to run. */
  static async start(): Promise<ParquetPool | null> {
    const script = workerScript();
    if (!script) return null;
    const worker = new Worker(script);
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('the Parquet worker did not start in time')), 15_000);
        worker.once('message', (reply: ParquetReply) => {
          clearTimeout(timer);
          if (reply.op === 'ready') resolve();
          else reject(new Error('the Parquet worker did not start'));
        });
        worker.once('error', reject);
      });
    } catch {
      await worker.terminate();
      return null;
    }
    return new ParquetPool(worker);
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const f of this.finished.values()) f.reject(this.failure);
    this.finished.clear();
    this.wake();
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  private check(): void {
    if (this.failure) throw this.failure;
  }

  open(id: number, relativePath: string, dir: string, rowGroupRows: number, keyValues: { key: string; value: string }[]): void {
    this.worker.postMessage({ op: 'open', id, relativePath, dir, rowGroupRows, keyValues } satisfies ParquetRequest);
    this.pending.set(id, []);
  }

  add(id: number, line: string): void {
    this.check();
    const lines = this.pending.get(id)!;
    lines.push(line);
    if (lines.length >= BATCH) this.send(id);
  }

  private send(id: number): void {
    const lines = this.pending.get(id)!;
    if (!lines.length) return;
    this.pending.set(id, []);
    this.worker.postMessage({ op: 'rows', id, seq: ++this.seq, lines } satisfies ParquetRequest);
  }

  /** Waits while too many batches are on their way (call between chunks of work). */
  async throttle(): Promise<void> {
    while (!this.failure && this.seq - this.acked > MAX_IN_FLIGHT) await new Promise<void>((resolve) => this.waiters.push(resolve));
    this.check();
  }

  async finish(id: number): Promise<{ sha256: string; rows: number; bytes: number }> {
    this.check();
    this.send(id);
    const done = new Promise<{ sha256: string; rows: number; bytes: number }>((resolve, reject) => this.finished.set(id, { resolve, reject }));
    this.worker.postMessage({ op: 'finish', id } satisfies ParquetRequest);
    return done;
  }

  /** Stops the worker; `abort` first has it close its open files (they are about to be removed). */
  async close(abort = false): Promise<void> {
    if (abort && !this.failure) {
      const aborted = new Promise<void>((resolve) => {
        const onMessage = (reply: ParquetReply) => {
          if (reply.op !== 'aborted') return;
          this.worker.off('message', onMessage);
          resolve();
        };
        this.worker.on('message', onMessage);
      });
      this.worker.postMessage({ op: 'abort' } satisfies ParquetRequest);
      await Promise.race([aborted, new Promise<void>((resolve) => setTimeout(resolve, 2000))]);
    }
    this.failure ??= new Error('the Parquet worker was closed');
    await this.worker.terminate();
  }
}
