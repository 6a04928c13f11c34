import { spawn } from 'node:child_process';
import fs from 'node:fs';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createModel, findModel, floatTable, storeEmbeddings } from '../../db/queries/embeddings';
import { getOrCreateCorpus } from '../../db/queries/corpora';
import { upsertPassage } from '../../db/queries/passages';
import { all, get, sql, transaction, type WritableDB } from '../../db/sql';
import { importCorpus } from '../../electron/services/corpus/import-corpus';
import { constraintCues } from '../../electron/services/retrieval/cues';
import { collectEvidence } from '../../electron/services/retrieval/evidence';
import { embedCorpus, offlineModelName } from '../../electron/services/retrieval/models';
import { bm25Query, EmbeddedRetriever } from '../../electron/services/retrieval/search';
import type { SearchResult } from '../../shared/api';
import { AWB, awbJson } from '../helpers/cli';
import { MUSIQUE, ROOT, memoryDb, readJson, tempDir, writeFile } from '../helpers/db';
import { startFakeOpenAI, type FakeOpenAI } from '../helpers/fake-openai';
import { rng, words } from '../helpers/synthetic';

const tmp = tempDir('awb-retrieval-');
afterAll(() => tmp.cleanup());

const count = (db: WritableDB, q: ReturnType<typeof sql>) => get<{ n: number }>(db, q)!.n;

describe('corpus import', () => {
  it('imports MuSiQue paragraphs, deduplicated, indexed for BM25, with file and line', async () => {
    const db = memoryDb();
    const report = await importCorpus(db, { file: MUSIQUE, format: 'musique', corpus: 'musique' });
    const records = readJson<{ paragraphs: { title: string; paragraph_text: string }[] }[]>(MUSIQUE);
    const distinct = new Set(records.flatMap((r) => r.paragraphs.map((p) => `${p.title}\u0000${p.paragraph_text}`))).size;
    expect(report).toMatchObject({ committed: true, records: 100, passagesRead: 2000, passagesCreated: distinct, duplicates: 2000 - distinct, rejected: 0 });
    expect(count(db, sql`SELECT count(*) AS n FROM passages_fts WHERE passages_fts MATCH 'psychotherapy'`)).toBeGreaterThan(0);
    const row = get<{ origin: string; source_line: number }>(db, sql`SELECT origin, source_line FROM passages ORDER BY id LIMIT 1`)!;
    expect(row).toEqual({ origin: 'musique_ans_train_sample100.json', source_line: 1 });
    // Importing again adds nothing.
    const again = await importCorpus(db, { file: MUSIQUE, format: 'musique', corpus: 'musique' });
    expect(again).toMatchObject({ committed: true, passagesCreated: 0 });
    expect(count(db, sql`SELECT count(*) AS n FROM passages`)).toBe(distinct);
  });

  it('reads DPR TSV with quoted fields and a header', async () => {
    const file = writeFile(
      tmp.file('psgs.tsv'),
      'id\ttext\ttitle\n1\t"Aaron ( or ; ""Ahärôn"") is a prophet."\tAaron\n2\tThe second passage, plain.\tSecond\n',
    );
    const db = memoryDb();
    const report = await importCorpus(db, { file, format: 'dpr-tsv', corpus: 'dpr' });
    expect(report).toMatchObject({ committed: true, records: 2, passagesCreated: 2 });
    const rows = all<{ source_id: string; title: string; text: string; source_line: number }>(db, sql`SELECT source_id, title, text, source_line FROM passages ORDER BY id`);
    expect(rows).toEqual([
      { source_id: '1', title: 'Aaron', text: 'Aaron ( or ; "Ahärôn") is a prophet.', source_line: 2 },
      { source_id: '2', title: 'Second', text: 'The second passage, plain.', source_line: 3 },
    ]);
  });

  it('reports a DPR row with too few or too many fields by its line; --skip-invalid imports the rest', async () => {
    const file = writeFile(tmp.file('short.tsv'), 'id\ttext\ttitle\n1\tFirst passage.\tOne\n2\tno title here\n3\tThird passage.\tThree\n4\ta\tb\tc\n');
    const db = memoryDb();
    const refused = await importCorpus(db, { file, format: 'dpr-tsv', corpus: 'dpr' });
    expect(refused.committed).toBe(false);
    expect(refused.errors.map((e) => `${e.location}: ${e.message}`)).toEqual([
      'short.tsv: line 3: has 2 tab-separated fields where the header has 3 (id, text, title)',
      'short.tsv: line 5: has 4 tab-separated fields where the header has 3 (id, text, title)',
    ]);
    expect(count(db, sql`SELECT count(*) AS n FROM passages`)).toBe(0);
    const skipped = await importCorpus(db, { file, format: 'dpr-tsv', corpus: 'dpr', skipInvalid: true });
    expect(skipped).toMatchObject({ committed: true, passagesCreated: 2 });
    expect(all<{ title: string }>(db, sql`SELECT title FROM passages ORDER BY id`)).toEqual([{ title: 'One' }, { title: 'Three' }]);
  });

  it('chunks Wikipedia articles into ~100-word passages that point back into the article', async () => {
    const random = rng(8);
    const article = Array.from({ length: 40 }, () => `${words(random, 1).replace(/^./, (c) => c.toUpperCase())} ${words(random, 14)}.`).join(' ');
    const file = writeFile(tmp.file('wiki.jsonl'), `${JSON.stringify({ id: 'A1', title: 'Article one', text: article })}\n`);
    const db = memoryDb();
    const report = await importCorpus(db, { file, format: 'wikipedia-jsonl', corpus: 'wiki' });
    expect(report.passagesCreated).toBeGreaterThan(4);
    const rows = all<{ source_id: string; text: string; char_start: number; char_end: number }>(db, sql`SELECT source_id, text, char_start, char_end FROM passages ORDER BY id`);
    rows.forEach((r, i) => {
      expect(r.source_id).toBe(`A1#${i}`);
      expect(article.slice(r.char_start, r.char_end)).toBe(r.text);
    });
  });

  it('refuses a file with broken lines, naming them, and builds nothing; --skip-invalid leaves them out', async () => {
    const file = writeFile(tmp.file('broken.jsonl'), '{"id": 1, "title": "A", "text": "Alpha text."}\n{"id": 2, "title": "B", "text": \n{"id": 3, "title": "C"}\n{"id": 4, "title": "D", "text": "Delta."}\n');
    const db = memoryDb();
    const report = await importCorpus(db, { file, format: 'jsonl', corpus: 'broken' });
    expect(report).toMatchObject({ committed: false, rejected: 2, passagesCreated: 0 });
    expect(report.errors.map((e) => [e.location, e.field])).toEqual([
      ['broken.jsonl: line 2', ''],
      ['broken.jsonl: line 3, element [2]'.replace(', element [2]', ''), 'text'],
    ]);
    expect(count(db, sql`SELECT count(*) AS n FROM passages`)).toBe(0);
    expect(count(db, sql`SELECT count(*) AS n FROM corpora`)).toBe(0);
    const skipped = await importCorpus(db, { file, format: 'jsonl', corpus: 'broken', skipInvalid: true });
    expect(skipped).toMatchObject({ committed: true, rejected: 2, passagesCreated: 2 });
  });

  it('resumes after a kill -9, adding each passage once', async () => {
    const db = tmp.file('resume.db');
    const random = rng(12);
    const file = tmp.file('many.jsonl');
    const lines: string[] = [];
    for (let i = 0; i < 60_000; i++) lines.push(JSON.stringify({ id: `p${i}`, title: words(random, 2), text: `${words(random, 60)}.` }));
    fs.writeFileSync(file, `${lines.join('\n')}\n`);
    const distinct = new Set(lines.map((l) => {
      const r = JSON.parse(l) as { title: string; text: string };
      return `${r.title}\u0000${r.text}`;
    })).size;

    const child = spawn(process.execPath, [AWB, 'corpus', 'import', file, '--format', 'jsonl', '--corpus', 'many', '--db', db], { cwd: ROOT, stdio: 'ignore' });
    await new Promise<void>((resolve, reject) => {
      const started = Date.now();
      const poll = setInterval(() => {
        try {
          if (fs.existsSync(db)) {
            const reader = new Database(db, { readonly: true, fileMustExist: true });
            const row = reader.prepare('SELECT records_done FROM corpus_imports').get() as { records_done: number } | undefined;
            reader.close();
            if (row && row.records_done > 4000) {
              clearInterval(poll);
              resolve();
              return;
            }
          }
        } catch {
          // the schema may not exist yet
        }
        if (child.exitCode !== null || Date.now() - started > 60_000) {
          clearInterval(poll);
          reject(new Error('the import ended before it could be killed'));
        }
      }, 25);
    });
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));

    const resumed = awbJson<{ resumedFrom: number; passagesCreated: number; committed: boolean }>(['corpus', 'import', file, '--format', 'jsonl', '--corpus', 'many', '--db', db]);
    expect(resumed.status).toBe(0);
    expect(resumed.json.committed).toBe(true);
    expect(resumed.json.resumedFrom).toBeGreaterThan(4000);
    expect(resumed.json.resumedFrom).toBeLessThan(60_000);
    const reader = new Database(db, { readonly: true });
    expect((reader.prepare('SELECT count(*) AS n FROM passages').get() as { n: number }).n).toBe(distinct);
    // Every passage is in the full-text index exactly once (the FTS5 integrity check compares).
    const writer = new Database(db);
    writer.prepare("INSERT INTO passages_fts (passages_fts, rank) VALUES ('integrity-check', 1)").run();
    writer.close();
    expect(reader.pragma('integrity_check', { simple: true })).toBe('ok');
    reader.close();
  });
});

describe('search', () => {
  let db: WritableDB;
  let retriever: EmbeddedRetriever;
  beforeAll(async () => {
    db = memoryDb();
    await importCorpus(db, { file: MUSIQUE, format: 'musique', corpus: 'musique' });
    await embedCorpus(db, { corpus: 'musique', provider: 'offline' });
    retriever = new EmbeddedRetriever(db);
  });

  it('ranks with BM25, dense and hybrid, reporting every mode\'s rank and score', async () => {
    const query = 'Who was the first president of the association which published Journal of Psychotherapy Integration?';
    const bm25 = await retriever.search({ query, mode: 'bm25', k: 10, corpus: 'musique' });
    expect(bm25.hits[0]!.passage.title).toBe('Journal of Psychotherapy Integration');
    expect(bm25.hits.every((h) => h.bm25 !== null && h.dense === null)).toBe(true);
    expect(bm25.hits.map((h) => h.score)).toEqual([...bm25.hits.map((h) => h.score)].sort((a, b) => b - a));
    const dense = await retriever.search({ query, mode: 'dense', k: 10, corpus: 'musique' });
    expect(dense.model).toBe(offlineModelName(768));
    expect(dense.lexicalModel).toBe(true);
    expect(dense.hits.map((h) => h.passage.title)).toContain('Journal of Psychotherapy Integration');
    const hybrid = await retriever.search({ query, mode: 'hybrid', k: 10, corpus: 'musique' });
    expect(hybrid.hits.some((h) => h.bm25 && h.dense)).toBe(true);
    const top = hybrid.hits[0]!;
    expect(top.score).toBeCloseTo((top.bm25 ? 1 / (60 + top.bm25.rank) : 0) + (top.dense ? 1 / (60 + top.dense.rank) : 0), 12);
    const sharper = await retriever.search({ query, mode: 'hybrid', k: 10, corpus: 'musique', rrfK: 1 });
    expect(sharper.hits[0]!.score).toBeGreaterThan(top.score);
  });

  it('uses a HyDE passage as the dense query', async () => {
    const plain = await retriever.search({ query: 'Who founded it?', mode: 'dense', k: 5 });
    const hyde = await retriever.search({ query: 'Who founded it?', mode: 'dense', k: 5, hyde: 'The Journal of Psychotherapy Integration is published by the American Psychological Association.' });
    expect(hyde.hits[0]!.passage.title).toBe('Journal of Psychotherapy Integration');
    expect(hyde.hits.map((h) => h.passage.id)).not.toEqual(plain.hits.map((h) => h.passage.id));
  });

  it('is safe for any text, leaves out words too frequent to matter, and refuses an empty query', async () => {
    for (const query of ['NEAR(a b) OR AND NOT', 'title:Journal', 'Zürich 日本語 ☃', 'a" OR 1=1; --']) {
      await expect(retriever.search({ query, mode: 'bm25', k: 5 })).resolves.toBeDefined();
    }
    await expect(retriever.search({ query: '   ', mode: 'bm25', k: 5 })).rejects.toThrow(/empty/);
    // Nothing to rank by: a clear error in every mode, never passages at random with a perfect score.
    for (const query of ['"', '*', '((( ))) ^^^', 'the of and', '!!!']) {
      for (const mode of ['bm25', 'dense', 'hybrid'] as const) {
        await expect(retriever.search({ query, mode, k: 3 })).rejects.toThrow(/has no words to search for: only stopwords, punctuation or symbols/);
      }
    }
    await expect(retriever.search({ query: 'founder', hyde: '!!!', mode: 'dense', k: 3 })).rejects.toThrow(/empty vector/);

    // A word in every passage is left out of the query once the corpus is large enough.
    const big = memoryDb();
    const corpus = getOrCreateCorpus(big, 'big');
    transaction(big, () => {
      for (let i = 0; i < 6000; i++) upsertPassage(big, { corpusId: corpus, sourceId: null, title: `T${i}`, text: `common filler ${i % 7 === 0 ? 'rareword' : 'other'} ${i}`, origin: 't' });
    });
    const q = bm25Query(big, 'common rareword');
    expect(q.terms).toEqual(['rareword']);
    expect(q.dropped).toEqual(['common']);
    const result = await new EmbeddedRetriever(big).search({ query: 'common rareword', mode: 'bm25', k: 3 });
    expect(result.notes[0]).toMatch(/left out of the BM25 query.*common/);
    expect(result.hits).toHaveLength(3);
  });

  it('confines a search to one corpus', async () => {
    const other = getOrCreateCorpus(db, 'other');
    upsertPassage(db, { corpusId: other, sourceId: null, title: 'Journal of Psychotherapy Integration', text: 'A copy in another corpus about psychotherapy integration.', origin: 't' });
    const one = await retriever.search({ query: 'psychotherapy integration', mode: 'bm25', k: 20, corpus: 'other' });
    expect(one.hits.map((h) => h.passage.corpus)).toEqual(['other']);
    const all = await retriever.search({ query: 'psychotherapy integration', mode: 'bm25', k: 20 });
    expect(new Set(all.hits.map((h) => h.passage.corpus))).toEqual(new Set(['other', 'musique']));
    await expect(retriever.search({ query: 'x', mode: 'dense', k: 3, corpus: 'other' })).rejects.toMatchObject({
      message: expect.stringMatching(/The corpus "other" has no vectors yet: embed it first/),
      hint: { kind: 'operation', operation: 'corpus:embed', input: { corpus: 'other', provider: 'offline' } },
    });
    // Partly embedded: the search says how much is covered.
    upsertPassage(db, { corpusId: getOrCreateCorpus(db, 'musique'), sourceId: null, title: 'New', text: 'A passage added after embedding.', origin: 't' });
    expect((await retriever.search({ query: 'passage added', mode: 'dense', k: 3, corpus: 'musique' })).notes).toEqual([
      expect.stringMatching(/vectors cover \d+ of \d+ passages; embedding the corpus again finishes the rest/),
    ]);
  });

  it('collects MARCH evidence: pooled per sub-question, back-filled, re-ranked by the clarified question', async () => {
    const passages = await collectEvidence(retriever, {
      clarifiedQuestion: 'Who was the first president of the American Psychological Association?',
      subQuestions: ['What company published Journal of Psychotherapy Integration?', 'Who was the first president of American Psychological Association?'],
      k: 3,
      mode: 'bm25',
      corpus: 'musique',
    });
    expect(passages.length).toBeGreaterThanOrEqual(3);
    expect(passages.length).toBeLessThanOrEqual(6);
    expect(passages.map((p) => p.score)).toEqual([...passages.map((p) => p.score)].sort((a, b) => b - a));
    expect(passages.every((p) => p.origins.every((o) => /^sub-question [12]$/.test(o)))).toBe(true);
    expect(passages.map((p) => p.rank)).toEqual(passages.map((_, i) => i + 1));

    const backfilled = await collectEvidence(retriever, { clarifiedQuestion: 'Journal of Psychotherapy Integration publisher', subQuestions: ['zzzz qqqq'], k: 4, mode: 'bm25', corpus: 'musique' });
    expect(backfilled).toHaveLength(4);
    expect(backfilled.every((p) => p.origins.includes('back-fill'))).toBe(true);
  });

  it('computes constraint cues: hits, KL divergence and the relax-delta ratio', () => {
    const corpus = getOrCreateCorpus(db, 'cues');
    transaction(db, () => {
      for (let i = 0; i < 40; i++) upsertPassage(db, { corpusId: corpus, sourceId: null, title: `Festival ${i}`, text: `A film won the festival award in ${1990 + (i % 20)}.`, origin: 't' });
    });
    const cues = constraintCues(db, 'Which film won the festival award in 1998?', corpus, 10);
    expect(cues.totalHits).toBe(2);
    expect(cues.constraints).toEqual([{ kind: 'date', text: '1998', hits_without: 40 }]);
    expect(cues.relaxDeltaRatio).toBe(20);
    expect(cues.klDivergence).toBeGreaterThan(0);
    const plain = constraintCues(db, 'Which film won the festival award?', corpus, 10);
    expect(plain.relaxDeltaRatio).toBe(1);
    expect(plain.totalHits).toBe(40);
    // No hits with the constraint and none without it: no increase, so 1 (not 0).
    const nowhere = constraintCues(db, 'Which film won the zzqqxx award in 1998?', corpus, 10);
    expect(nowhere.totalHits).toBe(0);
    expect(nowhere.constraints).toEqual([{ kind: 'date', text: '1998', hits_without: 0 }]);
    expect(nowhere.relaxDeltaRatio).toBe(1);
  });

  it("re-ranks evidence with the model that holds the corpus's vectors, even when another model has more", async () => {
    const bulk = getOrCreateCorpus(db, 'bulk');
    const random = rng(5);
    transaction(db, () => {
      for (let i = 0; i < 2500; i++) upsertPassage(db, { corpusId: bulk, sourceId: null, title: `Bulk ${i}`, text: words(random, 40), origin: 't' });
    });
    await embedCorpus(db, { corpus: 'bulk', provider: 'offline', dimensions: 256 });
    const passages = await collectEvidence(retriever, {
      clarifiedQuestion: 'Who was the first president of the American Psychological Association?',
      subQuestions: ['Who was the first president of American Psychological Association?'],
      k: 3,
      mode: 'bm25',
      corpus: 'musique',
    });
    expect(passages.length).toBeGreaterThan(0);
    expect(passages.every((p) => p.score > 0)).toBe(true);
    const direct = await retriever.similarity('Who was the first president of the American Psychological Association?', [passages[0]!.passage.id], { corpus: 'musique' });
    expect(direct.get(passages[0]!.passage.id)).toBeCloseTo(passages[0]!.score, 6);
  });
});

describe('vectors', () => {
  it('refuses to refit an offline model whose fit other corpora share, keeping their vectors', async () => {
    const db = memoryDb();
    for (const name of ['first', 'second']) {
      const corpus = getOrCreateCorpus(db, name);
      transaction(db, () => {
        for (let i = 0; i < 30; i++) upsertPassage(db, { corpusId: corpus, sourceId: null, title: `${name} ${i}`, text: `The ${name} corpus, passage ${i} about rivers and towns ${i * 7}.`, origin: 't' });
      });
      await embedCorpus(db, { corpus: name, provider: 'offline', dimensions: 64 });
    }
    const model = findModel(db, offlineModelName(64))!;
    const vectors = () => count(db, sql`SELECT count(*) AS n FROM ${floatTable(model.id)}`);
    expect(vectors()).toBe(60);
    await expect(embedCorpus(db, { corpus: 'second', provider: 'offline', dimensions: 64, refit: true })).rejects.toThrow(
      /A refit of offline:.*:64 would discard the vectors of "first" \(30\), which share its fit\. Embed this corpus with other dimensions/,
    );
    expect(vectors()).toBe(60);
    // Alone in its model, a corpus can be refitted.
    const alone = memoryDb();
    const corpus = getOrCreateCorpus(alone, 'alone');
    transaction(alone, () => upsertPassage(alone, { corpusId: corpus, sourceId: null, title: 'A', text: 'A lone passage about a river.', origin: 't' }));
    await embedCorpus(alone, { corpus: 'alone', provider: 'offline', dimensions: 64 });
    await expect(embedCorpus(alone, { corpus: 'alone', provider: 'offline', dimensions: 64, refit: true })).resolves.toMatchObject({ embedded: 1 });
  });

  it('refuses vectors of the wrong dimension', () => {
    const db = memoryDb();
    const corpus = getOrCreateCorpus(db, 'c');
    const { id } = upsertPassage(db, { corpusId: corpus, sourceId: null, title: 't', text: 'x', origin: 't' });
    const model = transaction(db, () => createModel(db, { name: 'm', provider: 'offline', model: 'm', dimensions: 16, lexical: true, config: {} }));
    expect(() => storeEmbeddings(db, model.id, [{ passageId: id, corpusId: corpus, vector: new Float32Array(8) }])).toThrow(/CHECK constraint/);
    expect(() => transaction(db, () => createModel(db, { name: 'bad', provider: 'offline', model: 'm', dimensions: 12, lexical: true, config: {} }))).toThrow(/CHECK/);
  });
});

describe('embedding through an OpenAI-compatible endpoint', () => {
  let fake: FakeOpenAI;
  beforeAll(async () => {
    fake = await startFakeOpenAI({ dimensions: 64 });
  });
  afterAll(() => fake.close());

  async function corpusDb() {
    const db = memoryDb();
    const corpus = getOrCreateCorpus(db, 'remote');
    transaction(db, () => {
      for (let i = 0; i < 30; i++) upsertPassage(db, { corpusId: corpus, sourceId: null, title: `Title ${i}`, text: `Passage number ${i} about topic ${i % 3}.`, origin: 't' });
    });
    return db;
  }

  it('embeds in batches with the real SDK, caches by text, and never sends the same text twice', async () => {
    const db = await corpusDb();
    fake.requests.length = 0;
    const report = await embedCorpus(db, { corpus: 'remote', provider: 'openai', model: 'fake-embed', baseURL: fake.url, batchSize: 10 });
    expect(report).toMatchObject({ embedded: 30, total: 30, dimensions: 64, model: 'openai:fake-embed' });
    const embeddingCalls = fake.requests.filter((r) => r.path.endsWith('/embeddings'));
    expect(embeddingCalls.length).toBeGreaterThanOrEqual(4);
    expect(embeddingCalls.every((r) => r.body.encoding_format === 'float' && r.body.model === 'fake-embed')).toBe(true);
    expect(embeddingCalls[0]!.headers.authorization).toMatch(/^Bearer /);
    // Re-embedding the corpus under a fresh model row goes to the cache, not the network.
    db.exec(`DELETE FROM embeddings_${findModel(db, 'openai:fake-embed')!.id}`);
    fake.requests.length = 0;
    await embedCorpus(db, { corpus: 'remote', provider: 'openai', model: 'fake-embed', baseURL: fake.url });
    expect(fake.requests).toHaveLength(0);
    const result = await new EmbeddedRetriever(db).search({ query: 'Passage number 7 about topic 1.', mode: 'dense', k: 3 });
    expect(result.hits).toHaveLength(3);
    expect(result.lexicalModel).toBe(false);
  });

  it('waits out a 429 with retry-after and goes on', async () => {
    const db = await corpusDb();
    fake.embeddingFaults.push({ kind: 'status', status: 429, retryAfter: 0, times: 2 });
    const report = await embedCorpus(db, { corpus: 'remote', provider: 'openai', model: 'fake-embed-429', baseURL: fake.url });
    expect(report.embedded).toBe(30);
  });

  it('refuses wrong dimensions, NaN, undecodable data and HTML pages, storing nothing from that batch', async () => {
    for (const [fault, message] of [
      [{ kind: 'dimensions', dimensions: 32 }, /returned vectors of 32 dimensions, but this model's index holds 64/],
      [{ kind: 'nan' }, /NaN or infinite/],
      [{ kind: 'garbage' }, /without a list of numbers/],
      [{ kind: 'html', times: 10 }, /failed \(HTTP 502\)/],
    ] as const) {
      const db = await corpusDb();
      // The model exists (created on a clean probe), then the endpoint misbehaves.
      await embedCorpus(db, { corpus: 'remote', provider: 'openai', model: 'fake-embed-bad', baseURL: fake.url, batchSize: 10 });
      const model = findModel(db, 'openai:fake-embed-bad')!;
      db.exec(`DELETE FROM embeddings_${model.id}; DELETE FROM vec_${model.id}; DELETE FROM embedding_cache;`);
      fake.embeddingFaults.length = 0;
      fake.embeddingFaults.push(fault);
      await expect(embedCorpus(db, { corpus: 'remote', provider: 'openai', model: 'fake-embed-bad', baseURL: fake.url, batchSize: 10 })).rejects.toThrow(message);
      fake.embeddingFaults.length = 0;
      expect(count(db, sql`SELECT count(*) AS n FROM ${floatTable(model.id)}`)).toBe(0);
      expect(count(db, sql`SELECT count(*) AS n FROM ${sql.id(`vec_${model.id}`)}`)).toBe(0);
    }
  });
});

describe('retrieval evaluation', () => {
  it('reports recall@k and nDCG@k for BM25, dense and hybrid on the MuSiQue sample; hybrid beats BM25', () => {
    const db = tmp.file('eval.db');
    const run = (mode: string) =>
      awbJson<{ mode: string; k: number; questions: number; recallAtK: number; ndcgAtK: number; subquestionRecallAtK: number }>([
        'retrieval-eval', '--questions', MUSIQUE, '--mode', mode, '--k', '10', '--build-corpus', '--db', db,
      ]).json;
    const bm25 = run('bm25');
    expect(bm25).toMatchObject({ mode: 'bm25', k: 10, questions: 100 });
    expect(bm25.recallAtK).toBeGreaterThan(0.55);
    expect(bm25.recallAtK).toBeLessThan(0.7);
    expect(bm25.subquestionRecallAtK).toBeGreaterThan(bm25.recallAtK);
    const dense = run('dense');
    const hybrid = run('hybrid');
    expect(dense.recallAtK).toBeGreaterThan(0.4);
    expect(hybrid.recallAtK).toBeGreaterThan(bm25.recallAtK);
    expect(hybrid.subquestionRecallAtK).toBeGreaterThanOrEqual(bm25.subquestionRecallAtK);
  });

  it('answers awb search --json with each mode\'s rank and score', () => {
    const db = tmp.file('eval.db');
    const result = awbJson<SearchResult>(['search', '--query', 'Journal of Psychotherapy Integration', '--mode', 'hybrid', '--k', '5', '--db', db]).json;
    expect(result.hits).toHaveLength(5);
    expect(result.hits[0]).toMatchObject({ rank: 1, bm25: { rank: expect.any(Number) }, passage: { title: expect.any(String) } });
  });
});
