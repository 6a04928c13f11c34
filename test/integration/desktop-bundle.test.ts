import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../db/connection';
import type { EncodedPart } from '../../electron/services/release/encode';
import type { EncoderReply } from '../../electron/services/release/encoder-pool';
import { tempDir } from '../helpers/db';
import { fillInstances } from '../helpers/synthetic';

/**
 * The desktop bundle (scripts/build-electron.mjs, what `npm run make` packages) carries every
 * worker thread the app starts; the release encoder from it runs under Node here, as Electron
 * cannot be downloaded on this machine, and encodes a task from a database file.
 */

const ROOT = path.resolve(__dirname, '../..');
const tmp = tempDir('awb-bundle-');

describe('the desktop bundle', () => {
  it('builds the main process, preload and every worker, and its release encoder encodes', async () => {
    const built = spawnSync(process.execPath, ['scripts/build-electron.mjs'], { cwd: ROOT, encoding: 'utf8' });
    expect(built.stderr).toBe('');
    expect(built.status).toBe(0);
    const dist = path.join(ROOT, 'dist/electron');
    for (const name of ['main', 'preload', 'worker', 'retrieval-worker', 'release-encoder']) expect(fs.existsSync(path.join(dist, `${name}.cjs`))).toBe(true);

    const file = tmp.file('bundle.db');
    const db = openDatabase(file);
    fillInstances(db, 20);
    const ids = (db.prepare('SELECT id FROM instances ORDER BY id LIMIT 5').pluck().all() as number[]);
    db.close();
    const worker = new Worker(path.join(dist, 'release-encoder.cjs'), { workerData: { file } });
    try {
      const replies: EncoderReply[] = [];
      const part = await new Promise<EncodedPart>((resolve, reject) => {
        worker.on('error', reject);
        worker.on('message', (reply: EncoderReply) => {
          replies.push(reply);
          if (reply.op === 'ready') worker.postMessage({ seq: 7, ids: Float64Array.from(ids), types: Uint8Array.from(ids.map(() => 0)) });
          else if (reply.op === 'part') resolve(reply.part);
          else reject(new Error(reply.message));
        });
      });
      expect(replies[0]).toEqual({ op: 'ready' });
      expect(part.seq).toBe(7);
      expect(part.keys).toHaveLength(5);
      expect(part.hashes.every((h) => /^[0-9a-f]{64}$/.test(h))).toBe(true);
      expect(Buffer.from(part.jsonl).toString('utf8').trim().split('\n')).toHaveLength(5);
      expect(part.group.rows).toBe(5);
      expect(part.frozen.map((f) => f.records)).toEqual([5]);
    } finally {
      await worker.terminate();
    }
  });
});
