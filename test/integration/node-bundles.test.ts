import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bundlesAreCurrent, cliBundle, currentBundle } from '../../bin/bundles.mjs';
import { openDatabase } from '../../db/connection';
import { ROOT, tempDir } from '../helpers/db';
import { encodeInWorker } from '../helpers/release-encoder';
import { fillInstances } from '../helpers/synthetic';

const tmp = tempDir('awb-node-bundles-');
afterAll(() => tmp.cleanup());

/**
 * The repository's own bundles (bin/bundles.mjs; its unit test covers when they are made and
 * used): the release encoder's bundle encodes the same bytes as its sources through tsx.
 */
describe('the CLI and worker bundles under plain Node', () => {
  it('a release encoder from its bundle gives the same part, byte for byte, as from its sources', async () => {
    expect(await cliBundle()).toMatch(/dist[\\/]node[\\/][^\\/]+[\\/]awb\.cjs$/);
    expect(bundlesAreCurrent()).toBe(true);
    const bundle = currentBundle('release-encoder');
    expect(bundle).toMatch(/release-encoder\.cjs$/);

    const file = tmp.file('encode.db');
    const db = openDatabase(file);
    fillInstances(db, 40);
    const ids = db.prepare('SELECT id FROM instances ORDER BY id LIMIT 12').pluck().all() as number[];
    db.close();
    const bundled = await encodeInWorker(bundle!, file, ids);
    const launcher = path.join(ROOT, 'electron', 'services', 'release', 'encoder-worker.mjs');
    const fromSource = await encodeInWorker(launcher, file, ids, { env: { ...process.env, AWB_FROM_SOURCE: '1' } });
    for (const run of [bundled, fromSource]) {
      expect(run.replies.map((reply) => reply.op)).toEqual(['ready', 'part', 'checkpointed']);
      expect(run.part.keys).toHaveLength(12);
    }
    expect(Buffer.from(bundled.part.jsonl).equals(Buffer.from(fromSource.part.jsonl))).toBe(true);
    expect(Buffer.from(bundled.part.group.bytes).equals(Buffer.from(fromSource.part.group.bytes))).toBe(true);
    expect(bundled.part.hashes).toEqual(fromSource.part.hashes);
    expect(bundled.part.keys).toEqual(fromSource.part.keys);
  });

  it('bundles only the sources that read import.meta.url as paths.ts does (the build points it at paths.ts)', () => {
    const listed = JSON.parse(fs.readFileSync(path.join(ROOT, 'dist', 'node', 'current.json'), 'utf8')) as { files: Record<string, unknown> };
    const readers = Object.keys(listed.files).filter((file) => /\.(ts|mjs|js)$/.test(file) && fs.existsSync(path.join(ROOT, file)) && fs.readFileSync(path.join(ROOT, file), 'utf8').includes('import.meta.url'));
    expect(readers.filter((file) => file !== 'bin/bundles.mjs')).toEqual(['electron/services/paths.ts']);
  });
});
