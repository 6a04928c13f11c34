import { Worker, type ResourceLimits } from 'node:worker_threads';

/**
 * Starts a worker thread and waits for its first message, `{ op: 'ready' }` (every worker script
 * here sends it once loaded). A worker that fails, answers anything else or stays silent for
 * `timeoutMs` is stopped, and the promise fails naming `what` it was.
 */
export async function startWorker(script: string, workerData: unknown, what: string, timeoutMs: number, resourceLimits?: ResourceLimits): Promise<Worker> {
  const worker = new Worker(script, { workerData, ...(resourceLimits ? { resourceLimits } : {}) });
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the ${what} did not start in time`)), timeoutMs);
      worker.once('message', (reply: { op?: string }) => {
        clearTimeout(timer);
        if (reply.op === 'ready') resolve();
        else reject(new Error(`the ${what} did not start`));
      });
      worker.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
    });
  } catch (error) {
    await worker.terminate();
    throw error;
  }
  return worker;
}
