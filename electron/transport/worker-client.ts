import { Worker, type WorkerOptions } from 'node:worker_threads';
import type { EventMessage, Result } from '../../shared/api';
import type { HostMessage, HostOptions, HostRequest } from './worker-protocol';

/** The main process's handle on the services worker: invoke by name, listen to events. */
export class ServiceHost {
  private readonly worker: Worker;
  private readonly pending = new Map<number, (result: Result<unknown>) => void>();
  private readonly listeners = new Set<(message: EventMessage) => void>();
  private nextId = 1;
  readonly ready: Promise<void>;

  constructor(file: string | URL, options: HostOptions, workerOptions: WorkerOptions = {}, log: (m: string) => void = () => undefined) {
    this.worker = new Worker(file, { ...workerOptions, workerData: options });
    let markReady: () => void = () => undefined;
    let fail: (error: Error) => void = () => undefined;
    this.ready = new Promise((resolve, reject) => {
      markReady = resolve;
      fail = reject;
    });
    this.worker.on('message', (message: HostMessage) => {
      switch (message.type) {
        case 'ready':
          markReady();
          break;
        case 'result':
          this.pending.get(message.id)?.(message.result);
          this.pending.delete(message.id);
          break;
        case 'event':
          for (const listener of this.listeners) listener(message.message);
          break;
        case 'log':
          log(message.message);
          break;
      }
    });
    this.worker.on('exit', (code) => fail(new Error(`The services worker exited (code ${code}) before it was ready`)));
    this.worker.on('error', (error) => {
      fail(error);
      log(`Services worker failed: ${error.message}`);
      for (const resolve of this.pending.values()) resolve({ ok: false, error: { code: 'internal', message: error.message } });
      this.pending.clear();
    });
  }

  invoke(name: string, input: unknown): Promise<Result<unknown>> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.worker.postMessage({ type: 'invoke', id, name, input } satisfies HostRequest);
    });
  }

  /** Hands the decrypted API keys to the services (memory only). */
  setKeys(keys: Record<string, string>): void {
    this.worker.postMessage({ type: 'keys', keys } satisfies HostRequest);
  }

  subscribe(listener: (message: EventMessage) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.worker.postMessage({ type: 'close' } satisfies HostRequest);
    await this.worker.terminate();
  }
}
