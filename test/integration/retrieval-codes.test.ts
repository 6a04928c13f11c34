import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../db/connection';
import { findCorpusByName, getOrCreateCorpus } from '../../db/queries/corpora';
import { clearEmbeddings, createModel, exactNeighbours, findModel, getVectors, storeEmbeddings, type EmbeddingModelRow } from '../../db/queries/embeddings';
import { upsertPassage } from '../../db/queries/passages';
import { codeBlockSummary } from '../../db/queries/vector-code-blocks';
import { transaction, type WritableDB } from '../../db/sql';
import { importCorpus } from '../../electron/services/corpus/import-corpus';
import { denseCandidates, loadCodes } from '../../electron/services/retrieval/code-index';
import { embedCorpus, embedderFor, offlineModelName } from '../../electron/services/retrieval/models';
import { EmbeddedRetriever } from '../../electron/services/retrieval/search';
import { memoryDb, tempDir } from '../helpers/db';
import { syntheticQuestions, writeSyntheticCorpus } from '../bench/retrieval';

/**
 * Dense search through the vector codes against the exact scan of the vec0 store on the same
 * data: the codes only choose which vectors are scored exactly, so every hit's score is the exact
 * one, recall@10 is measured against the exact top 10, and every case the codes cannot serve
 * (missing codes, a small corpus, another connection's writes) falls back or reloads correctly.
 */

const SIZE = 8000;
const tmp = tempDir('awb-codes-');
let file: string;
let db: WritableDB;
let model: EmbeddingModelRow;
let corpusId: number;
const questions = syntheticQuestions(SIZE, 40);

beforeAll(async () => {
  const corpus = tmp.file('corpus.jsonl');
  writeSyntheticCorpus(corpus, SIZE);
  file = tmp.file('codes.db');
  db = openDatabase(file);
  await importCorpus(db, { file: corpus, format: 'jsonl', corpus: 'bench' });
  await embedCorpus(db, { corpus: 'bench', provider: 'offline', dimensions: 384 });
  model = findModel(db, offlineModelName(384))!;
  corpusId = findCorpusByName(db, 'bench')!.id;
}, 240_000);
afterAll(() => {
  db.close();
  tmp.cleanup();
});

const dense = (on: WritableDB, query: string) => new EmbeddedRetriever(on).search({ query, mode: 'dense', k: 10, corpus: 'bench' });
const exactTop = async (on: WritableDB, query: string) => exactNeighbours(on, model.id, (await embedderFor(on, model).embedQueries([query]))[0]!, corpusId, 10);

describe('dense search through the vector codes', () => {
  it('scores every hit exactly, finds at least 97% of the exact top 10, and answers the same from a fresh connection', async () => {
    expect(codeBlockSummary(db, model.id, corpusId).codes).toBe(SIZE);
    let found = 0;
    const fresh = openDatabase(file);
    try {
      for (const question of questions) {
        const result = await dense(db, question);
        expect(result.denseMethod).toBe('codes');
        expect(result.notes).toEqual([]);
        const exact = await exactTop(db, question);
        const exactScore = new Map(exact.map((r) => [r.id, 1 - r.distance]));
        for (const hit of result.hits) if (exactScore.has(hit.passage.id)) expect(Math.abs(hit.dense!.score - exactScore.get(hit.passage.id)!)).toBeLessThan(1e-12);
        // Ranked by their exact scores, best first.
        const scores = result.hits.map((h) => h.dense!.score);
        expect(scores).toEqual([...scores].sort((a, b) => b - a));
        found += result.hits.filter((h) => exactScore.has(h.passage.id)).length;
        // Nothing held in the fresh connection: it reads the blocks and answers the same.
        expect((await dense(fresh, question)).hits.map((h) => h.passage.id)).toEqual(result.hits.map((h) => h.passage.id));
      }
    } finally {
      fresh.close();
    }
    expect(found / (questions.length * 10)).toBeGreaterThanOrEqual(0.97);
  });

  it('falls back to the exact scan, and says so, when a block of codes is missing', async () => {
    const copy = tmp.file('missing.db');
    await db.backup(copy);
    const broken = openDatabase(copy);
    try {
      broken.prepare('DELETE FROM vector_code_blocks WHERE id = (SELECT min(id) FROM vector_code_blocks)').run();
      for (const question of questions.slice(0, 5)) {
        const result = await dense(broken, question);
        expect(result.denseMethod).toBe('exact');
        expect(result.notes.join(' ')).toMatch(/codes of some of the 8,000 vectors are missing, so every vector was scored exactly/);
        expect(result.hits.map((h) => h.passage.id)).toEqual((await exactTop(broken, question)).map((r) => r.id));
      }
    } finally {
      broken.close();
    }
  });

  it("reads another connection's new blocks at the next query, and all of them again when earlier ones were rewritten", async () => {
    const copy = tmp.file('shared.db');
    await db.backup(copy);
    const reader = openDatabase(copy);
    // A second connection writes, as another process would.
    const writer = openDatabase(copy);
    try {
      const before = loadCodes(reader, model.id, corpusId);
      const blocks = before.blocks.length;
      // Another process adds a passage whose vector is the query's: the reader's next search finds it first.
      const query = (await embedderFor(reader, model).embedQueries([questions[3]!]))[0]!;
      const id = transaction(writer, () => {
        const passage = upsertPassage(writer, { corpusId, sourceId: null, title: 'twin', text: 'twin', origin: 't' });
        storeEmbeddings(writer, model.id, [{ passageId: passage.id, corpusId, vector: query }]);
        return passage.id;
      });
      expect((await dense(reader, questions[3]!)).hits[0]!.passage.id).toBe(id);
      expect(loadCodes(reader, model.id, corpusId).blocks.length).toBe(blocks + 1);
      // The writer rewrites the first block under a new id (as a compaction would): the count no longer adds up, so all are read again.
      writer.exec(`INSERT INTO vector_code_blocks (model_id, corpus_id, size, ids, head, tail, planes, weights)
                   SELECT model_id, corpus_id, size, ids, head, tail, planes, weights FROM vector_code_blocks WHERE id = (SELECT min(id) FROM vector_code_blocks);
                   DELETE FROM vector_code_blocks WHERE id = (SELECT min(id) FROM vector_code_blocks);`);
      const reloaded = loadCodes(reader, model.id, corpusId);
      expect(reloaded.blocks.length).toBe(blocks + 1);
      expect(reloaded.codes).toBe(SIZE + 1);
      // The same answers as the writer's connection, which has read nothing before.
      for (const question of questions.slice(0, 5)) {
        expect((await dense(reader, question)).hits.map((h) => h.passage.id)).toEqual((await dense(writer, question)).hits.map((h) => h.passage.id));
      }
    } finally {
      writer.close();
      reader.close();
    }
  });
});

describe('dense search after another process rewrote every code', () => {
  it('reads the new codes, though there are as many blocks as before and the table was emptied first (a refit)', async () => {
    const copy = tmp.file('refit.db');
    await db.backup(copy);
    const reader = openDatabase(copy);
    const writer = openDatabase(copy);
    try {
      const question = questions[7]!;
      const query = (await embedderFor(reader, model).embedQueries([question]))[0]!;
      const before = await dense(reader, question);
      const old = loadCodes(writer, model.id, corpusId);
      // The passage least like the query: after the rewrite its vector is the query's.
      const target = Number(old.blocks.at(-1)!.ids.at(-1));
      expect(before.hits.map((h) => h.passage.id)).not.toContain(target);
      const batches = old.blocks.map((block) => Array.from(block.ids));
      const vectors = getVectors(writer, model.id, batches.flat());
      transaction(writer, () => {
        clearEmbeddings(writer, model.id);
        for (const batch of batches) {
          storeEmbeddings(writer, model.id, batch.map((id) => ({ passageId: id, corpusId, vector: id === target ? query : vectors.get(id)! })));
        }
      });
      // As many blocks and codes as before: only their ids can tell the reader they changed.
      expect(codeBlockSummary(writer, model.id, corpusId)).toMatchObject({ blocks: old.blocks.length, codes: SIZE });
      const after = await dense(reader, question);
      expect(after.denseMethod).toBe('codes');
      expect(after.hits[0]!.passage.id).toBe(target);
    } finally {
      writer.close();
      reader.close();
    }
  });
});

describe('dense search on small corpora', () => {
  it('scores a corpus of one passage exactly, and finds no candidates where there are no codes', () => {
    const small = memoryDb();
    const corpus = getOrCreateCorpus(small, 'one');
    const m = transaction(small, () => createModel(small, { name: 'm', provider: 'offline', model: 'm', dimensions: 24, lexical: true, config: {} }));
    const query = Float32Array.from({ length: 24 }, (_, i) => Math.sin(i + 1));
    expect(denseCandidates(small, m, query, corpus, 10, 0)).toEqual([]);
    const { id } = upsertPassage(small, { corpusId: corpus, sourceId: null, title: 'only', text: 'only', origin: 't' });
    transaction(small, () => storeEmbeddings(small, m.id, [{ passageId: id, corpusId: corpus, vector: query.map((v) => -v) }]));
    expect(denseCandidates(small, m, query, corpus, 10, 1)).toEqual([id]);
    // More vectors than codes (none were written for the second): no candidates, the caller scans exactly.
    expect(denseCandidates(small, m, query, corpus, 10, 2)).toBeNull();
    expect(exactNeighbours(small, m.id, query, corpus, 10).map((r) => r.id)).toEqual([id]);
  });
});
