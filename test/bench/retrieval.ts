import fs from 'node:fs';
import path from 'node:path';
import { openDatabase } from '../../db/connection';
import { findModel, floatTable, toBlob } from '../../db/queries/embeddings';
import { findCorpusByName } from '../../db/queries/corpora';
import { all, sql } from '../../db/sql';
import { importCorpus } from '../../electron/services/corpus/import-corpus';
import { warmDenseIndex } from '../../electron/services/retrieval/code-index';
import { embedCorpus, embedderFor } from '../../electron/services/retrieval/models';
import { EmbeddedRetriever } from '../../electron/services/retrieval/search';
import { rng, syllableWord } from '../helpers/synthetic';
import { percentile, type BenchContext, type Measurement } from './harness';

/**
 * Retrieval targets (issue 4): a synthetic corpus of passages of about 100 words, shaped like
 * encyclopedia text: every passage is about one of 20,000 topics (one per 50 passages), and half its words come from
 * that topic's own 40-word vocabulary, the other half from a 300,000-word vocabulary by a Zipf
 * law (s ≈ 1, as in English), so postings lists are as long as a real corpus's and passages on
 * one topic resemble each other. Ingest (text, FTS5 and 384-dimensional vectors from the
 * offline embedder), then BM25, dense and hybrid queries built from a passage's topic words,
 * each also as a ratio to an exact float32 sqlite-vec scan measured in the same run.
 */

const VOCABULARY = 300_000;
const SYLLABLES = ['ka', 'lo', 'mi', 'ra', 'te', 'do', 've', 'an', 'is', 'pu', 'shi', 'go', 'el', 'ny', 'tra', 'bo', 'qui', 'za', 'fe', 'ul', 'sa', 'ri', 'mo', 'ne'];

const words = Array.from({ length: VOCABULARY }, (_, i) => syllableWord(i, SYLLABLES));

/** Zipf(s = 1) by inverse transform: P(rank ≤ r) ≈ ln r / ln N. */
function zipfWord(random: () => number): string {
  return words[Math.min(VOCABULARY - 1, Math.floor(Math.exp(random() * Math.log(VOCABULARY))) - 1)]!;
}

const TOPIC_WORDS = 40;

/** A topic's own words: drawn from the less frequent part of the vocabulary. */
function topicVocabulary(topic: number): string[] {
  const random = rng(topic * 7919 + 13);
  return Array.from({ length: TOPIC_WORDS }, () => words[1000 + Math.floor(random() * (VOCABULARY - 1000))]!);
}

function passage(random: () => number, topic: string[], n: number): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(random() < 0.5 ? topic[Math.floor(random() * topic.length)]! : zipfWord(random));
  return out.join(' ');
}

/** About 50 passages per topic, as at 1,000,000 passages over 20,000 topics. */
function topicOf(i: number, size: number): number {
  const topics = Math.max(100, Math.round(size / 50));
  return (i * 2654435761) % topics;
}

export function writeSyntheticCorpus(file: string, size: number): void {
  const random = rng(31);
  const out = fs.openSync(file, 'w');
  let buffer: string[] = [];
  for (let i = 0; i < size; i++) {
    const topic = topicVocabulary(topicOf(i, size));
    buffer.push(JSON.stringify({ id: `p${i}`, title: `${topic[0]} ${topic[1]} ${i % 97}`, text: `${passage(random, topic, 90 + (i % 21))}.` }));
    if (buffer.length === 10_000) {
      fs.writeSync(out, `${buffer.join('\n')}\n`);
      buffer = [];
    }
  }
  if (buffer.length) fs.writeSync(out, `${buffer.join('\n')}\n`);
  fs.closeSync(out);
}

/** Questions about a topic: a few of its words wrapped in question words. */
export function syntheticQuestions(size: number, count: number): string[] {
  const queryRandom = rng(77);
  return Array.from({ length: count }, (_, i) => {
    const topic = topicVocabulary(topicOf(i * 4999 + 3, size));
    const picked = Array.from({ length: 5 + Math.floor(queryRandom() * 4) }, () => topic[Math.floor(queryRandom() * topic.length)]!);
    return `What is the ${picked.slice(0, 3).join(' ')} of the ${picked.slice(3).join(' ')}?`;
  });
}

export async function benchRetrieval(ctx: BenchContext): Promise<Measurement[]> {
  const size = ctx.quick ? 5_000 : 1_000_000;
  const label = size >= 1_000_000 ? `${size / 1_000_000}M` : `${size / 1000}k`;
  const file = path.join(ctx.dir, 'corpus.jsonl');
  const generated = performance.now();
  writeSyntheticCorpus(file, size);
  ctx.log(`  generated ${size.toLocaleString('en-US')} passages (${(fs.statSync(file).size / 1e6).toFixed(0)} MB) in ${((performance.now() - generated) / 1000).toFixed(0)} s`);

  const db = openDatabase(path.join(ctx.dir, 'retrieval.db'));
  const t0 = performance.now();
  const imported = await importCorpus(db, { file, format: 'jsonl', corpus: 'bench' });
  const tText = (performance.now() - t0) / 1000;
  const t1 = performance.now();
  await embedCorpus(db, { corpus: 'bench', provider: 'offline', dimensions: 384 });
  const tVectors = (performance.now() - t1) / 1000;
  ctx.log(`  text + FTS5 ${tText.toFixed(0)} s (${imported.passagesCreated.toLocaleString('en-US')} passages), vectors ${tVectors.toFixed(0)} s`);
  fs.rmSync(file);

  const model = findModel(db, 'offline:hashed-tfidf-words-chargrams:384')!;
  const retriever = new EmbeddedRetriever(db);

  const questions = syntheticQuestions(size, 200);
  const time = async (fn: () => unknown) => {
    const t = performance.now();
    await fn();
    return performance.now() - t;
  };

  for (const q of questions.slice(0, 20)) await retriever.search({ query: q, mode: 'bm25', k: 10, corpus: 'bench' });
  const bm25 = [];
  for (const q of questions) bm25.push(await time(() => retriever.search({ query: q, mode: 'bm25', k: 10, corpus: 'bench' })));
  const dense = [];
  const hybrid = [];
  // The first large dense query loads the binary codes; the int8 copies then build in the background.
  const firstDense = await time(() => retriever.search({ query: questions[0]!, mode: 'dense', k: 10, corpus: 'bench' }));
  const corpusId = findCorpusByName(db, 'bench')!.id;
  const warmUp = await time(() => warmDenseIndex(db, model, corpusId));
  const rss = process.memoryUsage().rss / 2 ** 20;
  for (const q of questions.slice(0, 20)) await retriever.search({ query: q, mode: 'dense', k: 10, corpus: 'bench' });
  const denseResults: number[][] = [];
  for (const q of questions) {
    let ids: number[] = [];
    dense.push(
      await time(async () => {
        ids = (await retriever.search({ query: q, mode: 'dense', k: 10, corpus: 'bench' })).hits.map((h) => h.passage.id);
      }),
    );
    denseResults.push(ids);
  }
  for (const q of questions) hybrid.push(await time(() => retriever.search({ query: q, mode: 'hybrid', k: 10, corpus: 'bench' })));

  // The exact reference: every float32 vector scored, by a vec0 KNN query.
  db.exec(`CREATE VIRTUAL TABLE exact_vectors USING vec0(embedding float[384] distance_metric=cosine)`);
  db.exec(`INSERT INTO exact_vectors (rowid, embedding) SELECT passage_id, vector FROM ${floatTable(model.id).text}`);
  const embedder = embedderFor(db, model);
  const exact: number[] = [];
  let found = 0;
  const checked = questions.slice(0, ctx.quick ? 40 : 60);
  for (const [i, q] of checked.entries()) {
    const [vector] = await embedder.embedQueries([q]);
    let truth: number[] = [];
    exact.push(
      await time(() => {
        truth = all<{ rowid: number }>(db, sql`SELECT rowid FROM exact_vectors WHERE embedding MATCH ${toBlob(vector!)} AND k = 10`).map((r) => Number(r.rowid));
      }),
    );
    found += denseResults[i]!.filter((id) => truth.includes(id)).length;
  }
  db.close();
  const recall = found / (checked.length * 10);
  const exactP50 = percentile(exact, 50);
  const big = size >= 1_000_000;
  return [
    { name: `ingest ${label} passages: text + FTS5 + 384-d vectors (offline embedder)`, value: (tText + tVectors) / 60, unit: 'min', target: big ? { max: 10 } : undefined },
    { name: '  of which text + FTS5', value: tText, unit: 's' },
    { name: '  of which vectors (fit, embed, store float32 + bit index)', value: tVectors, unit: 's' },
    { name: `exact float32 sqlite-vec scan, top-10 p50 at ${label} (reference)`, value: exactP50, unit: 'ms' },
    { name: `BM25 question query p50 at ${label}`, value: percentile(bm25, 50), unit: 'ms', target: big ? { max: 10 } : undefined },
    { name: '  BM25 p95', value: percentile(bm25, 95), unit: 'ms' },
    { name: '  BM25 p50 as a share of the exact scan', value: percentile(bm25, 50) / exactP50, unit: '×' },
    { name: `first dense query at ${label} (loads the binary codes)`, value: firstDense / 1000, unit: 's' },
    { name: `  int8 copies built in the background after it`, value: warmUp / 1000, unit: 's' },
    { name: '  process resident memory with codes and int8 copies held', value: rss, unit: 'MB' },
    { name: `dense top-10 p50 at ${label} (codes → 1,000 → int8 → 40 → float32)`, value: percentile(dense, 50), unit: 'ms', target: big ? { max: 60 } : undefined },
    { name: '  dense p95', value: percentile(dense, 95), unit: 'ms' },
    { name: '  dense p50 as a share of the exact scan', value: percentile(dense, 50) / exactP50, unit: '×' },
    { name: '  dense recall@10 against the exact scan', value: recall, unit: '', target: big ? { min: 0.95 } : undefined },
    { name: `hybrid top-10 p50 at ${label} (BM25 + dense + RRF)`, value: percentile(hybrid, 50), unit: 'ms', target: big ? { max: 80 } : undefined },
    { name: '  hybrid p95', value: percentile(hybrid, 95), unit: 'ms' },
    { name: '  hybrid p50 as a share of the exact scan', value: percentile(hybrid, 50) / exactP50, unit: '×' },
  ];
}
