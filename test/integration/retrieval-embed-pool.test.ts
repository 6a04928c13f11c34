import { describe, expect, it, onTestFinished } from 'vitest';
import { findCorpusByName } from '../../db/queries/corpora';
import { findModel, getVectors } from '../../db/queries/embeddings';
import { passagesAfter } from '../../db/queries/passages';
import { codeBlockSummary } from '../../db/queries/vector-code-blocks';
import { importCorpus } from '../../electron/services/corpus/import-corpus';
import { inThread, startEmbedWork, WORKERS_FROM } from '../../electron/services/retrieval/embed-pool';
import { embedCorpus, offlineModelName } from '../../electron/services/retrieval/models';
import { OfflineEmbedder } from '../../electron/services/retrieval/offline-embedder';
import { encodeVector } from '../../shared/retrieval/vector-codes';
import { memoryDb, tempDir } from '../helpers/db';
import { rng, words } from '../helpers/synthetic';
import { writeSyntheticCorpus } from '../bench/retrieval';

/** The offline embedder in worker threads against the calling thread, on the same passages: the same bits. */

const random = rng(9);
const PASSAGES = [
  ...Array.from({ length: 200 }, (_, i) => ({ title: words(random, 1 + (i % 3)), text: words(random, 20 + (i % 40)) })),
  { title: 'Café Müller', text: 'Ñandú über straße — 東京 😀' },
  { title: '', text: '' },
];

describe('the offline embedder in worker threads', () => {
  it('gives the same vectors and codes in worker threads as in the calling thread', async () => {
    const fitted = new OfflineEmbedder(96);
    fitted.fit(PASSAGES);
    const local = inThread(96);
    await local.use(fitted.getState());
    const work = await startEmbedWork(96, WORKERS_FROM);
    try {
      expect(work.threads).toBeGreaterThan(0);
      const counted = await work.count(PASSAGES);
      expect(counted.documents).toBe(PASSAGES.length);
      expect(Buffer.from(counted.df.buffer).equals(Buffer.from(fitted.getState().df.buffer))).toBe(true);
      await work.use(fitted.getState());
      const [threaded, here] = await Promise.all([work.embed(PASSAGES), local.embed(PASSAGES)]);
      expect(Buffer.from(threaded.vectors.buffer).equals(Buffer.from(here.vectors.buffer))).toBe(true);
      expect(threaded.signs).toEqual(here.signs);
      expect(threaded.planes).toEqual(here.planes);
      expect(threaded.weights).toEqual(here.weights);
      // And the codes are those of the vectors.
      const code = encodeVector(fitted.embedPassage(PASSAGES[7]!));
      expect(here.signs.subarray(7 * code.signs.length, 8 * code.signs.length)).toEqual(code.signs);
    } finally {
      await work.close();
    }
  });

  it('refuses to embed before it is given a fit, in a thread or not', async () => {
    await expect(inThread(32).embed(PASSAGES.slice(0, 1))).rejects.toThrow(/no fit yet/);
    const work = await startEmbedWork(32, WORKERS_FROM);
    try {
      await expect(work.embed(PASSAGES.slice(0, 1))).rejects.toThrow(/embedding worker failed: the embedder has no fit yet/);
    } finally {
      await work.close();
    }
  });

  it('embeds a corpus large enough for threads exactly as one thread fits and embeds it, codes included', async () => {
    // Removed when this test finishes (an afterAll registered inside a test never ran).
    const tmp = tempDir('awb-embed-pool-');
    onTestFinished(() => tmp.cleanup());
    const file = tmp.file('corpus.jsonl');
    writeSyntheticCorpus(file, WORKERS_FROM);
    const db = memoryDb();
    await importCorpus(db, { file, format: 'jsonl', corpus: 'c' });
    await embedCorpus(db, { corpus: 'c', provider: 'offline', dimensions: 48 });
    const corpusId = findCorpusByName(db, 'c')!.id;
    const model = findModel(db, offlineModelName(48))!;
    const passages = passagesAfter(db, corpusId, 0, WORKERS_FROM);
    const reference = new OfflineEmbedder(48);
    reference.fit(passages);
    expect(codeBlockSummary(db, model.id, corpusId).codes).toBe(WORKERS_FROM);
    const sample = passages.filter((_, i) => i % 97 === 0);
    const stored = getVectors(db, model.id, sample.map((p) => p.id));
    for (const passage of sample) expect(stored.get(passage.id)).toEqual(reference.embedPassage(passage));
  }, 300_000);
});

