import path from 'node:path';
import { findCorpusByName } from '../../../db/queries/corpora';
import { findPassageId } from '../../../db/queries/passages';
import type { WritableDB } from '../../../db/sql';
import { AppError, type RetrievalEvalReport, type SearchMode } from '../../../shared/api';
import { ndcgAtK, recallAtK } from '../../../shared/retrieval/metrics';
import { meanOfDefined } from '../../../shared/statistics';
import { importCorpus } from '../corpus/import-corpus';
import { FORMATS } from '../import/formats';
import { parseRecord } from '../import/json-record';
import { readRecords } from '../import/json-stream';
import { defaultModelFor, embedCorpus } from './models';
import type { Retriever } from './search';

/**
 * Retrieval evaluation on MuSiQue questions: for each question, are its supporting paragraphs in
 * the top k (recall@k) and how high (nDCG@k, binary relevance)? And for each gold sub-question
 * (with `#1`, `#2` replaced by the earlier hops' answers, `>>` read as a space), is its one
 * supporting paragraph in the top k? Run over a corpus built from those questions' paragraphs.
 */

export interface RetrievalEvalOptions {
  questions: string;
  mode: SearchMode;
  k: number;
  corpus?: string;
  model?: string;
  buildCorpus?: boolean;
  limit?: number;
  onProgress?: (done: number, total: number) => void;
}

export type { RetrievalEvalReport };

interface MusiqueForEval {
  id: string;
  question: string;
  paragraphs: { idx: number; title: string; paragraph_text: string; is_supporting: boolean }[];
  question_decomposition: { question: string; answer?: string | null; paragraph_support_idx?: number | null }[];
}

/** A gold sub-question as a standalone query. */
export function standaloneSubQuestion(step: string, answers: readonly (string | null | undefined)[]): string {
  return step.replace(/#(\d+)/g, (whole, n: string) => answers[Number(n) - 1] ?? whole).replace(/>>/g, ' ');
}

export async function evaluateRetrieval(db: WritableDB, retriever: Retriever, options: RetrievalEvalOptions): Promise<RetrievalEvalReport> {
  const started = performance.now();
  const corpusName = options.corpus ?? `eval: ${path.basename(options.questions).replace(/\.(jsonl|json)$/i, '')}`;
  if (options.buildCorpus) {
    const report = await importCorpus(db, { file: options.questions, format: 'musique', corpus: corpusName });
    if (!report.committed) throw new AppError('invalid_input', `Could not build the corpus: ${report.errors[0]?.message ?? 'invalid file'}`);
  }
  const corpus = findCorpusByName(db, corpusName);
  if (!corpus) throw new AppError('not_found', `No corpus named "${corpusName}": build it from the questions' paragraphs first.`, undefined, { kind: 'field', field: 'buildCorpus' });
  if (options.mode !== 'bm25' && !defaultModelFor(db, corpus.id, options.model)) {
    if (!options.buildCorpus) throw new AppError('conflict', `The corpus "${corpusName}" has no vectors: embed it first.`, undefined, { kind: 'operation', operation: 'corpus:embed', input: { corpus: corpusName } });
    await embedCorpus(db, { corpus: corpusName, provider: 'offline' });
  }

  const records: MusiqueForEval[] = [];
  for await (const raw of readRecords(options.questions, { maxRecordBytes: 16 << 20 })) {
    const parsed = parseRecord(raw, 16 << 20);
    if (!parsed.ok) throw new AppError('invalid_input', `${raw.location}: ${parsed.message}`);
    const checked = FORMATS.musique.schema.safeParse(parsed.value);
    if (!checked.success) throw new AppError('invalid_input', `${raw.location}: not a MuSiQue record (${checked.error.issues[0]?.message})`);
    records.push(checked.data as MusiqueForEval);
    if (options.limit && records.length >= options.limit) break;
  }

  const passageId = (title: string, text: string): number | undefined =>
    findPassageId(db, corpus.id, title, text);
  const recalls: (number | null)[] = [];
  const ndcgs: (number | null)[] = [];
  const subRecalls: (number | null)[] = [];
  let modelName: string | null = null;
  for (const [i, record] of records.entries()) {
    const gold = new Set(
      record.paragraphs.filter((p) => p.is_supporting).flatMap((p) => {
        const id = passageId(p.title, p.paragraph_text);
        return id === undefined ? [] : [id];
      }),
    );
    const result = await retriever.search({ query: record.question, mode: options.mode, k: options.k, corpus: corpusName, model: options.model });
    modelName = result.model;
    const ranked = result.hits.map((h) => h.passage.id);
    recalls.push(recallAtK(ranked, gold, options.k));
    ndcgs.push(ndcgAtK(ranked, gold, options.k));
    const answers = record.question_decomposition.map((s) => s.answer);
    for (const step of record.question_decomposition) {
      if (step.paragraph_support_idx === null || step.paragraph_support_idx === undefined) continue;
      const paragraph = record.paragraphs.find((p) => p.idx === step.paragraph_support_idx);
      const id = paragraph ? passageId(paragraph.title, paragraph.paragraph_text) : undefined;
      if (id === undefined) continue;
      const sub = await retriever.search({ query: standaloneSubQuestion(step.question, answers), mode: options.mode, k: options.k, corpus: corpusName, model: options.model });
      subRecalls.push(recallAtK(sub.hits.map((h) => h.passage.id), new Set([id]), options.k));
    }
    options.onProgress?.(i + 1, records.length);
  }
  const round = (v: number | null) => (v === null ? null : Number(v.toFixed(4)));
  return {
    mode: options.mode,
    k: options.k,
    corpus: corpusName,
    model: options.mode === 'bm25' ? null : modelName,
    questions: records.length,
    recallAtK: round(meanOfDefined(recalls)),
    ndcgAtK: round(meanOfDefined(ndcgs)),
    subquestions: subRecalls.length,
    subquestionRecallAtK: round(meanOfDefined(subRecalls)),
    seconds: Number(((performance.now() - started) / 1000).toFixed(3)),
  };
}
