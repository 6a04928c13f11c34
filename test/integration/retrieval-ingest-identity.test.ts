import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { findCorpusByName } from '../../db/queries/corpora';
import { countEmbeddings, findModel, floatTable, iterateCodes } from '../../db/queries/embeddings';
import { codeBlocksAfter, codeBlockSummary } from '../../db/queries/vector-code-blocks';
import { all, iterate, sql, type WritableDB } from '../../db/sql';
import { importCorpus } from '../../electron/services/corpus/import-corpus';
import { WORKERS_FROM } from '../../electron/services/retrieval/embed-pool';
import { embedCorpus, offlineModelName } from '../../electron/services/retrieval/models';
import { OfflineEmbedder } from '../../electron/services/retrieval/offline-embedder';
import { encodeVector, layoutBlock, type CodeBlock } from '../../shared/retrieval/vector-codes';
import { memoryDb, tempDir } from '../helpers/db';
import { rng, words } from '../helpers/synthetic';

/**
 * Ingest stores exactly what an independent computation says it should: the passages of the
 * files in order, deduplicated; a full-text index equal to one rebuilt from those rows; and for
 * every passage the vector of an embedder fitted on the corpus here, its sign code, and blocks of
 * codes laid out batch by batch. A corpus whose passages are interleaved with another's (two
 * imports with a third between) large enough for worker threads.
 */

const DIMENSIONS = 48;
const BATCH = 3000;

interface Line {
  id: string;
  title: string;
  text: string;
}

function expectedPassages(files: readonly Line[][]): Line[] {
  const seen = new Set<string>();
  return files.flat().filter((l) => {
    const key = `${l.title}\u0000${l.text}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The full-text index, word by word: every (term, passage, column, position) it holds, hashed, and how many. */
function ftsInstances(db: WritableDB): { rows: number; hash: string } {
  const hash = createHash('sha256');
  let rows = 0;
  for (const r of iterate<{ term: string; doc: number; col: string; offset: number }>(db, sql`SELECT term, doc, col, offset FROM temp.fts_instances`)) {
    hash.update(`${r.term}\u0000${r.doc}\u0000${r.col}\u0000${r.offset}\n`);
    rows++;
  }
  return { rows, hash: hash.digest('hex') };
}

const concat = (arrays: readonly (Float32Array | Uint8Array | Buffer)[]) => Buffer.concat(arrays.map((a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength)));

/** Corpus a in two files, the second repeating 50 of the first's passages; corpus b between them. */
async function importInterleaved(db: WritableDB, dir: { file: (name: string) => string }): Promise<{ a: number; b: number; aPassages: { id: number; title: string; text: string }[] }> {
  const random = rng(24);
  const lines: Line[] = Array.from({ length: WORKERS_FROM + 4000 }, (_, i) => ({ id: `p${i}`, title: words(random, 1 + (i % 3)), text: `${words(random, 12 + (i % 9))}.` }));
  const parts = [lines.slice(0, 12_000), lines.slice(12_000, 12_500).map((l) => ({ ...l, title: `b ${l.title}` })), [...lines.slice(12_500), ...lines.slice(100, 150)]];
  for (const [i, part] of parts.entries()) {
    const file = dir.file(`part${i}.jsonl`);
    fs.writeFileSync(file, `${part.map((l) => JSON.stringify(l)).join('\n')}\n`);
    await importCorpus(db, { file, format: 'jsonl', corpus: i === 1 ? 'b' : 'a', batchSize: 2500 });
  }
  const a = findCorpusByName(db, 'a')!.id;
  const b = findCorpusByName(db, 'b')!.id;
  // Passages: ids in file order, a's second file without its repeats, b's ids between a's.
  const expectedA = expectedPassages([parts[0]!, parts[2]!]);
  const stored = all<{ id: number; corpus_id: number; source_id: string; title: string; text: string }>(db, sql`SELECT id, corpus_id, source_id, title, text FROM passages ORDER BY id`);
  const inOrder = [...parts[0]!.map((l) => ({ l, corpus: a })), ...parts[1]!.map((l) => ({ l, corpus: b })), ...expectedA.slice(12_000).map((l) => ({ l, corpus: a }))];
  expect(stored.map((p) => [p.corpus_id, p.source_id, p.title, p.text])).toEqual(inOrder.map(({ l, corpus }) => [corpus, l.id, l.title, l.text]));
  const aPassages = stored.filter((p) => p.corpus_id === a);
  expect(aPassages.length).toBeGreaterThanOrEqual(WORKERS_FROM);
  return { a, b, aPassages };
}

const asBytes = (x: { buffer: ArrayBufferLike; byteOffset: number; byteLength: number }) => new Uint8Array(x.buffer, x.byteOffset, x.byteLength);

/** The vectors of corpus a, their sign codes and their blocks, against an embedder fitted here on a (under 200,000 passages, every passage counts). */
function expectVectors(db: WritableDB, corpus: number, passages: readonly { id: number; title: string; text: string }[]): void {
  const reference = new OfflineEmbedder(DIMENSIONS);
  reference.fit(passages);
  const vectors = passages.map((p) => reference.embedPassage(p));
  const model = findModel(db, offlineModelName(DIMENSIONS))!;
  const floats = all<{ passage_id: number; corpus_id: number; vector: Buffer }>(db, sql`SELECT passage_id, corpus_id, vector FROM ${floatTable(model.id)} ORDER BY passage_id`);
  expect(floats.map((f) => [f.passage_id, f.corpus_id])).toEqual(passages.map((p) => [p.id, corpus]));
  expect(concat(floats.map((f) => f.vector)).equals(concat(vectors))).toBe(true);

  const codes = vectors.map((v) => encodeVector(v));
  const signs = [...iterateCodes(db, model.id, null)].sort((x, y) => Number(x.rowid) - Number(y.rowid));
  expect(signs.map((s) => Number(s.rowid))).toEqual(passages.map((p) => p.id));
  expect(concat(signs.map((s) => s.embedding)).equals(concat(codes.map((c) => c.signs)))).toBe(true);

  // One block of codes per batch of passages, in id order, and none for another corpus.
  const blocks = [...codeBlocksAfter(db, model.id, null, 0)];
  expect(blocks.every((block) => block.size > 0)).toBe(true);
  const expectedBlocks = [];
  for (let i = 0; i < passages.length; i += BATCH) expectedBlocks.push(layoutBlock(DIMENSIONS, passages.slice(i, i + BATCH).map((p) => p.id), codes.slice(i, i + BATCH)));
  expect(blocks.map((block) => block.size)).toEqual(expectedBlocks.map((block) => block.size));
  const bytes = (list: readonly CodeBlock[]) => concat(list.flatMap((x) => [asBytes(x.ids), asBytes(x.head), asBytes(x.tail), x.planes, x.weights]));
  expect(bytes(blocks).equals(bytes(expectedBlocks))).toBe(true);
  expect(countEmbeddings(db, model.id, corpus)).toBe(passages.length);
}

describe('ingest (import, then embedding with worker threads)', () => {
  const tmp = tempDir('awb-ingest-identity-');
  afterAll(() => tmp.cleanup());

  it('stores the passages, full-text index, vectors, codes and code blocks an independent computation gives', async () => {
    const db = memoryDb();
    const { a, aPassages } = await importInterleaved(db, tmp);
    await embedCorpus(db, { corpus: 'a', provider: 'offline', dimensions: DIMENSIONS, batchSize: BATCH });

    // The full-text index holds every word of every passage where a rebuild from the rows puts it.
    db.exec(`CREATE VIRTUAL TABLE temp.fts_instances USING fts5vocab(main, passages_fts, 'instance')`);
    const indexed = ftsInstances(db);
    expect(indexed.rows).toBeGreaterThan(aPassages.length * 12);
    db.exec(`INSERT INTO passages_fts (passages_fts) VALUES ('rebuild')`);
    expect(ftsInstances(db)).toEqual(indexed);

    expectVectors(db, a, aPassages);
  }, 600_000);

  it('stopped mid-way, keeps whole batches of vectors, codes and blocks, and a second run ends as one run would', async () => {
    const db = memoryDb();
    const { a, aPassages } = await importInterleaved(db, tmp);
    const stop = new AbortController();
    const stopped = embedCorpus(db, {
      corpus: 'a',
      provider: 'offline',
      dimensions: DIMENSIONS,
      batchSize: BATCH,
      signal: stop.signal,
      onProgress: (done) => {
        if (done >= 2 * BATCH) stop.abort();
      },
    });
    await expect(stopped).rejects.toThrow(/abort/i);
    // The import and the stopped run each checkpointed less often while they ran, and no longer do.
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    const model = findModel(db, offlineModelName(DIMENSIONS))!;
    const kept = countEmbeddings(db, model.id, a);
    expect(kept % BATCH).toBe(0);
    expect(kept).toBeGreaterThanOrEqual(2 * BATCH);
    expect(kept).toBeLessThan(aPassages.length);
    expect([...iterateCodes(db, model.id, a)].length).toBe(kept);
    expect(codeBlockSummary(db, model.id, a)).toMatchObject({ blocks: kept / BATCH, codes: kept });

    const again = await embedCorpus(db, { corpus: 'a', provider: 'offline', dimensions: DIMENSIONS, batchSize: BATCH });
    expect(again).toMatchObject({ already: kept, embedded: aPassages.length - kept });
    expectVectors(db, a, aPassages);
  }, 600_000);
});
