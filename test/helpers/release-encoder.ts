import { Worker } from 'node:worker_threads';
import type { EncodedPart } from '../../electron/services/release/encode';
import type { EncoderReply } from '../../electron/services/release/encoder-pool';

/**
 * Starts a release encoder from `script` (a bundle or a launcher) on the database `file`, asks it
 * to encode `ids` as task `seq`, then to checkpoint the file; gives every reply and the part. An
 * error reply or a failed worker fails it at once, at either step.
 */
export async function encodeInWorker(script: string, file: string, ids: number[], options: { seq?: number; env?: NodeJS.ProcessEnv } = {}): Promise<{ replies: EncoderReply[]; part: EncodedPart }> {
  const worker = new Worker(script, { workerData: { file }, ...(options.env ? { env: options.env } : {}) });
  const replies: EncoderReply[] = [];
  let part: EncodedPart | null = null;
  try {
    await new Promise<void>((resolve, reject) => {
      worker.on('error', reject);
      worker.on('exit', (code) => reject(new Error(`the encoder stopped (exit ${code})`)));
      worker.on('message', (reply: EncoderReply) => {
        replies.push(reply);
        if (reply.op === 'ready') worker.postMessage({ seq: options.seq ?? 0, ids: Float64Array.from(ids), types: Uint8Array.from(ids.map(() => 0)) });
        else if (reply.op === 'part') {
          part = reply.part;
          // The checkpoint it runs after a release, from a connection of its own that can write.
          worker.postMessage({ op: 'checkpoint' });
        } else if (reply.op === 'checkpointed') resolve();
        else reject(new Error(reply.message));
      });
    });
    return { replies, part: part! };
  } finally {
    await worker.terminate();
  }
}
