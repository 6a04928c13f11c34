import fs from 'node:fs';
import { openDatabase } from '../../db/connection';
import { EmbeddedRetriever } from '../../electron/services/retrieval/search';
import { percentile } from './harness';

/**
 * The retrieval bench's fresh process (retrieval.ts starts it): opens the database, times its
 * first dense query from nothing held in memory, then asks every question in dense and hybrid
 * mode, and prints what it saw as one line of JSON, resident memory included.
 */
const [dbFile, questionsFile] = process.argv.slice(2) as [string, string];
const questions = JSON.parse(fs.readFileSync(questionsFile, 'utf8')) as string[];
const t0 = performance.now();
const db = openDatabase(dbFile);
const retriever = new EmbeddedRetriever(db);
const t1 = performance.now();
const first = await retriever.search({ query: questions[0]!, mode: 'dense', k: 10, corpus: 'bench' });
const t2 = performance.now();
const dense: number[] = [];
for (const query of questions) {
  const t = performance.now();
  await retriever.search({ query, mode: 'dense', k: 10, corpus: 'bench' });
  dense.push(performance.now() - t);
}
for (const query of questions) await retriever.search({ query, mode: 'hybrid', k: 10, corpus: 'bench' });
const peak = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync('/proc/self/status', 'utf8'));
const rss = process.memoryUsage().rss;
db.close();
console.log(
  JSON.stringify({
    openMs: t1 - t0,
    firstMs: t2 - t1 + (t1 - t0),
    firstHits: first.hits.map((h) => h.passage.id),
    denseP50: percentile(dense, 50),
    rssMB: rss / 2 ** 20,
    peakMB: peak ? Number(peak[1]) / 1024 : NaN,
  }),
);
