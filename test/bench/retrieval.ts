import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { withLargePages } from '../../scripts/large-pages.mjs';
import { openDatabase } from '../../db/connection';
import { findModel, floatTable, toBlob } from '../../db/queries/embeddings';
import { all, sql, type WritableDB } from '../../db/sql';
import { importCorpus } from '../../electron/services/corpus/import-corpus';
import { embedCorpus, embedderFor } from '../../electron/services/retrieval/models';
import { EmbeddedRetriever } from '../../electron/services/retrieval/search';
import type { SearchMode } from '../../shared/api';
import { rng, syllableWord } from '../helpers/synthetic';
import { percentile, sizedId, type BenchContext, type Measurement } from './harness';

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

/**
 * Retrieval at two corpus sizes ten times apart (100,000 and 1,000,000; 2,000 and 20,000 with
 * --quick); the bench reports how each cost grows between them (the exponent b of cost ∝ size^b).
 */
export async function benchRetrieval(ctx: BenchContext): Promise<Measurement[]> {
  const out: Measurement[] = [];
  for (const size of ctx.quick ? [2_000, 20_000] : [100_000, 1_000_000]) out.push(...(await benchSize(ctx, size)));
  return out;
}

function labelOf(size: number): string {
  return size >= 1_000_000 ? `${size / 1_000_000}M` : `${size / 1000}k`;
}

async function time(fn: () => unknown): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

async function benchSize(ctx: BenchContext, size: number): Promise<Measurement[]> {
  const label = labelOf(size);
  const dir = path.join(ctx.dir, `retrieval-${label}`);
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'corpus.jsonl');
  const generated = performance.now();
  writeSyntheticCorpus(file, size);
  ctx.log(`  generated ${size.toLocaleString('en-US')} passages (${(fs.statSync(file).size / 1e6).toFixed(0)} MB) in ${((performance.now() - generated) / 1000).toFixed(0)} s`);

  const dbFile = path.join(dir, 'retrieval.db');
  const db = openDatabase(dbFile);
  const t0 = performance.now();
  const imported = await importCorpus(db, { file, format: 'jsonl', corpus: 'bench' });
  const tText = (performance.now() - t0) / 1000;
  const t1 = performance.now();
  await embedCorpus(db, { corpus: 'bench', provider: 'offline', dimensions: 384 });
  const tVectors = (performance.now() - t1) / 1000;
  ctx.log(`  ${label}: text + FTS5 ${tText.toFixed(0)} s (${imported.passagesCreated.toLocaleString('en-US')} passages), vectors ${tVectors.toFixed(0)} s`);
  fs.rmSync(file);

  const questions = syntheticQuestions(size, 200);
  const questionsFile = path.join(dir, 'questions.json');
  fs.writeFileSync(questionsFile, JSON.stringify(questions));
  // Cold: a fresh process opens the database and asks its first dense question.
  const cold = coldQueries(dbFile, questionsFile);

  const retriever = new EmbeddedRetriever(db);
  const search = (query: string, mode: SearchMode) => retriever.search({ query, mode, k: 10, corpus: 'bench' });
  for (const q of questions.slice(0, 20)) await search(q, 'bm25');
  const bm25: number[] = [];
  for (const q of questions) bm25.push(await time(() => search(q, 'bm25')));
  const firstDense = await time(() => search(questions[0]!, 'dense'));
  for (const q of questions.slice(0, 20)) await search(q, 'dense');
  const dense: number[] = [];
  const denseResults: number[][] = [];
  for (const q of questions) {
    let ids: number[] = [];
    dense.push(await time(async () => (ids = (await search(q, 'dense')).hits.map((h) => h.passage.id))));
    denseResults.push(ids);
  }
  const hybrid: number[] = [];
  for (const q of questions) hybrid.push(await time(() => search(q, 'hybrid')));
  const sameCold = cold.firstHits.join() === denseResults[0]!.join();

  const { exact, recall } = await exactReference(db, questions.slice(0, ctx.quick ? 40 : 60), denseResults);
  db.close();
  const exactP50 = percentile(exact, 50);
  const big = size >= 1_000_000;
  const p50 = { bm25: percentile(bm25, 50), dense: percentile(dense, 50), hybrid: percentile(hybrid, 50) };
  // Per query (flagged if it grows faster than b = 0.5): BM25, whose target is a fixed time at any
  // size. Dense and hybrid queries scan every passage's code, linear by design: their targets are
  // shares of the exact scan, and their growth is reported unflagged.
  const sized = { count: size, of: 'passages' } as const;
  const perQuery = { size: sized, perQuery: true } as const;
  const scan = { size: sized } as const;
  const exactId = sizedId('exact-scan', size);
  return [
    { series: 'ingest', size: sized, name: `ingest ${label} passages: text + FTS5 + 384-d vectors (offline embedder)`, value: (tText + tVectors) / 60, unit: 'min', target: big ? { max: 4 } : undefined },
    { series: 'ingest-text', size: sized, name: '  of which text + FTS5', value: tText, unit: 's' },
    { series: 'ingest-vectors', size: sized, name: '  of which vectors (fit, embed, store float32 + codes)', value: tVectors, unit: 's' },
    { series: 'exact-scan', size: sized, name: `exact float32 sqlite-vec scan, top-10 p50 at ${label} (reference)`, value: exactP50, unit: 'ms' },
    { ...perQuery, series: 'bm25-p50', name: `BM25 question query p50 at ${label}`, value: p50.bm25, unit: 'ms', target: big ? { max: 10 } : undefined },
    { ...perQuery, series: 'bm25-p95', name: '  BM25 p95', value: percentile(bm25, 95), unit: 'ms' },
    { id: sizedId('bm25-over-exact', size), baseline: exactId, name: `  BM25 p50 as a share of the exact scan at ${label}`, value: p50.bm25 / exactP50, unit: '×' },
    { series: 'first-dense-cold', size: sized, name: `first dense query at ${label}, fresh process (opens the database, reads the code blocks)`, value: cold.firstMs / 1000, unit: 's', target: big ? { max: 1 } : undefined },
    { series: 'open-database', size: sized, name: '  of which opening the database', value: cold.openMs / 1000, unit: 's' },
    { id: sizedId('cold-same-hits', size), name: `  same hits as this process's at ${label}: ${sameCold ? 'yes' : 'NO'}`, value: sameCold ? 1 : 0, unit: '', target: { min: 1 } },
    { series: 'cold-rss', size: sized, name: '  fresh process: resident memory after 200 dense and 200 hybrid queries', value: cold.rssMB, unit: 'MB', target: big ? { max: 400 } : undefined },
    { series: 'cold-peak-rss', size: sized, name: '  fresh process: peak resident memory', value: cold.peakMB, unit: 'MB' },
    { ...scan, series: 'cold-dense-p50', name: '  fresh process: dense top-10 p50', value: cold.denseP50, unit: 'ms' },
    { series: 'first-dense-warm', size: sized, name: `first dense query at ${label} in the ingesting process`, value: firstDense / 1000, unit: 's' },
    { ...scan, series: 'dense-p50', name: `dense top-10 p50 at ${label} (sign bits → 2,000 → magnitude planes → 80 → float32)`, value: p50.dense, unit: 'ms' },
    { ...scan, series: 'dense-p95', name: '  dense p95', value: percentile(dense, 95), unit: 'ms' },
    { id: sizedId('dense-over-exact', size), baseline: exactId, name: `  dense p50 as a share of the exact scan at ${label}`, value: p50.dense / exactP50, unit: '×', target: big ? { max: 0.02 } : undefined },
    { id: sizedId('dense-recall', size), size: sized, name: '  dense recall@10 against the exact scan', value: recall, unit: '', target: big ? { min: 0.97 } : undefined },
    { ...scan, series: 'hybrid-p50', name: `hybrid top-10 p50 at ${label} (BM25 + dense + RRF)`, value: p50.hybrid, unit: 'ms' },
    { ...scan, series: 'hybrid-p95', name: '  hybrid p95', value: percentile(hybrid, 95), unit: 'ms' },
    { id: sizedId('hybrid-over-exact', size), baseline: exactId, name: `  hybrid p50 as a share of the exact scan at ${label}`, value: p50.hybrid / exactP50, unit: '×', target: big ? { max: 0.03 } : undefined },
  ];
}

/** The exact reference: every float32 vector scored by a vec0 KNN query; recall of the dense results against it. */
async function exactReference(db: WritableDB, checked: string[], denseResults: number[][]): Promise<{ exact: number[]; recall: number }> {
  const model = findModel(db, 'offline:hashed-tfidf-words-chargrams:384')!;
  db.exec(`CREATE VIRTUAL TABLE exact_vectors USING vec0(embedding float[384] distance_metric=cosine)`);
  db.exec(`INSERT INTO exact_vectors (rowid, embedding) SELECT passage_id, vector FROM ${floatTable(model.id).text}`);
  const embedder = embedderFor(db, model);
  const exact: number[] = [];
  let found = 0;
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
  return { exact, recall: found / (checked.length * 10) };
}

interface ColdRun {
  openMs: number;
  firstMs: number;
  firstHits: number[];
  denseP50: number;
  rssMB: number;
  peakMB: number;
}

/**
 * Runs retrieval-cold.ts in a fresh process on the database (the operating system's file cache is
 * as it is: it cannot be dropped here), with the environment `npm start` gives the app's server
 * (huge pages where glibc can: scripts/large-pages.mjs), since that process is what it stands for.
 */
function coldQueries(dbFile: string, questionsFile: string): ColdRun {
  const script = path.join(path.dirname(fileURLToPath(import.meta.url)), 'retrieval-cold.ts');
  const child = spawnSync(process.execPath, ['--import', 'tsx', script, dbFile, questionsFile], { encoding: 'utf8', maxBuffer: 1 << 24, env: withLargePages(process.env) });
  if (child.status !== 0) throw new Error(`the cold-query process failed (${child.status}): ${child.stderr}`);
  return JSON.parse(child.stdout.trim().split('\n').at(-1)!) as ColdRun;
}
