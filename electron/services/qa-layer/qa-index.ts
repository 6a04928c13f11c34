import { countCorpusPassages, findCorpusByName, getOrCreateQaLayer, qaLayerOf } from '../../../db/queries/corpora';
import { markItem } from '../../../db/queries/pipeline-items';
import { upsertPassage } from '../../../db/queries/passages';
import { insertQaPair, passagesWithoutPairs, qaLayerCounts } from '../../../db/queries/qa-pairs';
import { insertRun } from '../../../db/queries/runs';
import { transaction, type ReadableDB, type WritableDB } from '../../../db/sql';
import { AppError, type QaIndexReport, type QaIndexView } from '../../../shared/api';
import { locateAnswer } from '../../../shared/checks';
import type { ConstructionConfig } from '../../../shared/construction';
import { askPrompt, eachItem, llmProvenance, promptContext, promptRun, type PromptContext } from '../pipeline/prompt-call';
import { defaultModelFor, embedCorpus, OFFLINE_DIMENSIONS } from '../retrieval/models';

/**
 * URASys's ask-and-augment (paper 004, §2.6, phase 2): for each passage of a corpus, the
 * generator writes m question-answer pairs grounded in it, then k rephrasings of each question
 * that share its answer. Every pair and rephrasing becomes a row of the corpus's QA layer (a
 * corpus of kind 'qa' named "<corpus> · QA": title = question, text = answer), so full-text and
 * vector search index it like passages; `qa_pairs` keeps each row's source passage, its canonical
 * pair, whether the answer was found in the source, and its provenance. Passages already done
 * are passed over, so a build resumes. Phase 1 (re-chunking and titling) is not done here: the
 * corpus's passages are used as they are.
 */

export interface QaIndexRequest {
  corpus: string;
  config: ConstructionConfig;
  limit?: number | undefined;
  noCache: boolean;
}

interface Made {
  pairs: { question: string; answer: string; paraphrases: string[]; grounded: boolean }[];
  create: { prompt: string; callId: number };
  expand: { prompt: string; callId: number } | null;
}

export async function buildQaIndex(
  db: WritableDB,
  request: QaIndexRequest,
  options: { signal?: AbortSignal | undefined; keys?: Readonly<Record<string, string>> | undefined; onProgress?: (done: number, total: number, detail: string) => void },
): Promise<QaIndexReport> {
  const corpus = findCorpusByName(db, request.corpus);
  if (!corpus) throw new AppError('not_found', `No corpus named "${request.corpus}"`);
  const layerName = `${request.corpus} · QA`;
  const layerId = transaction(db, () => getOrCreateQaLayer(db, corpus.id, layerName));
  const sources = passagesWithoutPairs(db, corpus.id, request.limit ?? 1_000_000_000);
  const runId = insertRun(db, 'pipeline', { kind: 'qa-index', corpus: request.corpus, qaIndex: request.config.qaIndex });
  const ctx = promptContext(db, request.config, { runId, signal: options.signal, keys: options.keys, ...(request.noCache ? { noCache: new Set(['qa_index']) } : {}) });
  const report: QaIndexReport = { corpus: request.corpus, layer: layerName, runId, passages: 0, pairs: 0, paraphrases: 0, grounded: 0, failed: 0, failures: [], costUsd: 0, embedded: 0 };
  let done = 0;
  await promptRun(
    ctx,
    options.signal,
    () =>
      eachItem(sources, request.config.concurrency, options.signal, async (source) => {
        const made = await pairsFor(ctx, request.config, source);
        if ('reason' in made) {
          markItem(db, 'qa_index', `qa:${source.id}`, 'failed', runId, made.reason, made.raw);
          report.failed++;
          report.failures.push({ item: `qa:${source.id}`, reason: made.reason });
        } else writePairs(ctx, request.config, layerId, source.id, made, report);
        options.onProgress?.(++done, sources.length, `${report.pairs} pairs, ${report.paraphrases} rephrasings · $${ctx.llm.stats.costUsd.toFixed(4)}`);
      }),
    () => {
      report.costUsd = ctx.llm.stats.costUsd;
      return `QA layer of "${request.corpus}": ${report.pairs} pairs, ${report.paraphrases} rephrasings from ${report.passages} passages`;
    },
  );
  report.embedded = await embedLayer(db, corpus.id, layerName, options.signal);
  return report;
}

/** The layer gets vectors from the offline embedder at the size its corpus uses (so hybrid search covers it). */
async function embedLayer(db: WritableDB, corpusId: number, layerName: string, signal: AbortSignal | undefined): Promise<number> {
  const own = defaultModelFor(db, corpusId);
  const dimensions = own?.provider === 'offline' ? own.dimensions : OFFLINE_DIMENSIONS;
  const embedded = await embedCorpus(db, { corpus: layerName, provider: 'offline', dimensions, ...(signal ? { signal } : {}) });
  return embedded.embedded;
}

async function pairsFor(ctx: PromptContext, config: ConstructionConfig, source: { id: number; title: string; text: string }): Promise<Made | { reason: string; raw: string | null }> {
  const item = `qa:${source.id}`;
  const created = await askPrompt(ctx, 'qa_create', 'qa_index', item, config.generator, { title: source.title || '(untitled)', passage: source.text, count: config.qaIndex.perPassage });
  if (!created.ok) return { reason: `qa_create: ${created.reason}`, raw: created.raw };
  const pairs = created.value.pairs;
  let paraphrases: string[][] = pairs.map(() => []);
  let expand: Made['expand'] = null;
  if (config.qaIndex.paraphrases > 0 && pairs.length) {
    const expanded = await askPrompt(ctx, 'qa_expand', 'qa_index', item, config.generator, { questions: pairs.map((p, i) => `${i + 1}. ${p.question}`).join('\n'), count: config.qaIndex.paraphrases });
    if (!expanded.ok) return { reason: `qa_expand: ${expanded.reason}`, raw: expanded.raw };
    if (expanded.value.paraphrases.length !== pairs.length) {
      return { reason: `qa_expand: ${expanded.value.paraphrases.length} lists of rephrasings for ${pairs.length} questions`, raw: JSON.stringify(expanded.value) };
    }
    paraphrases = expanded.value.paraphrases.map((list) => list.slice(0, config.qaIndex.paraphrases));
    expand = { prompt: expanded.prompt, callId: expanded.callId };
  }
  return {
    pairs: pairs.map((p, i) => ({ ...p, paraphrases: paraphrases[i]!, grounded: locateAnswer(source.text, p.answer) !== null })),
    create: { prompt: created.prompt, callId: created.callId },
    expand,
  };
}

function writePairs(ctx: PromptContext, config: ConstructionConfig, layerId: number, sourceId: number, made: Made, report: QaIndexReport): void {
  transaction(ctx.db, () => {
    const createdBy = llmProvenance(ctx, 'qa_index', config.generator, made.create.prompt, made.create.callId);
    const expandedBy = made.expand ? llmProvenance(ctx, 'qa_index', config.generator, made.expand.prompt, made.expand.callId) : null;
    let position = 0;
    const row = (question: string, answer: string) =>
      upsertPassage(ctx.db, { corpusId: layerId, sourceId: `qa:${sourceId}:${position}`, title: question, text: answer, origin: 'qa-index', sourceLine: null, charStart: null, charEnd: null }).id;
    for (const pair of made.pairs) {
      const canonical = row(pair.question, pair.answer);
      if (!insertQaPair(ctx.db, { passageId: canonical, sourcePassageId: sourceId, canonicalId: null, position: position++, grounded: pair.grounded, provenanceId: createdBy })) continue;
      report.pairs++;
      if (pair.grounded) report.grounded++;
      for (const paraphrase of pair.paraphrases) {
        const id = row(paraphrase, pair.answer);
        if (insertQaPair(ctx.db, { passageId: id, sourcePassageId: sourceId, canonicalId: canonical, position: position++, grounded: pair.grounded, provenanceId: expandedBy })) report.paraphrases++;
      }
    }
    report.passages++;
    markItem(ctx.db, 'qa_index', `qa:${sourceId}`, 'done', ctx.runId, `${made.pairs.length} pairs`);
  });
}

export function qaIndexView(db: ReadableDB, corpus: string): QaIndexView {
  const row = findCorpusByName(db, corpus);
  if (!row) throw new AppError('not_found', `No corpus named "${corpus}"`);
  const layer = qaLayerOf(db, row.id);
  const counts = layer ? qaLayerCounts(db, layer.id) : { sources: 0, pairs: 0, paraphrases: 0, grounded: 0, prompts: null };
  const passages = countCorpusPassages(db, row.id);
  return {
    corpus,
    layer: layer?.name ?? null,
    passages,
    sources: counts.sources,
    pairs: counts.pairs,
    paraphrases: counts.paraphrases,
    grounded: counts.grounded,
    promptVersions: counts.prompts ? counts.prompts.split(',').sort() : [],
  };
}
