import path from 'node:path';
import type { Handlers } from '../../../shared/api';
import { importCorpus } from '../corpus/import-corpus';
import { definedOnly, type Workbench } from '../workbench';
import { listCorpusSummaries } from './corpora';
import { ambiguityCues } from './cues';
import { evaluateRetrieval } from './evaluate';
import { collectEvidence } from './evidence';
import { embedCorpus } from './models';
import { EmbeddedRetriever } from './search';

type RetrievalOperation = 'retrieval:search' | 'retrieval:cues' | 'retrieval:evidence' | 'retrieval:evaluate' | 'corpus:list' | 'corpus:import' | 'corpus:embed';

/** Passage corpora (import, embedding, listing) and retrieval over them: search, cues, evidence and its evaluation. */
export function retrievalHandlers(workbench: Workbench): Pick<Handlers, RetrievalOperation> {
  const db = workbench.db;
  return {
    'retrieval:search': (request) => new EmbeddedRetriever(db).search(request),
    'retrieval:cues': (request) => ambiguityCues(db, new EmbeddedRetriever(db), request),
    'retrieval:evidence': ({ question, subQuestions, ...rest }) =>
      collectEvidence(new EmbeddedRetriever(db), { clarifiedQuestion: question, subQuestions, ...definedOnly(rest) }),
    'retrieval:evaluate': (request) => {
      const file = path.resolve(request.questions);
      return workbench.writerJob('retrieval-eval', `Retrieval quality on ${path.basename(file)} (${request.mode}, k=${request.k})`, 'questions', (writer, control) =>
        evaluateRetrieval(writer, new EmbeddedRetriever(writer), {
          ...definedOnly(request),
          questions: file,
          onProgress: (done, total) => control.progress(done, total),
        }),
      );
    },
    'corpus:list': () => listCorpusSummaries(workbench.reader),
    'corpus:import': (request) => {
      const file = path.resolve(request.path);
      return workbench.writerJob('corpus-import', `Import passages from ${path.basename(file)}`, 'records', (writer, control) =>
        importCorpus(writer, {
          file,
          format: request.format,
          ...(request.corpus ? { corpus: request.corpus } : {}),
          skipInvalid: request.skipInvalid,
          targetWords: request.targetWords,
          signal: control.signal,
          onProgress: (done, total) => control.progress(done, total),
        }),
      );
    },
    'corpus:embed': (request) => {
      const title = `Embed "${request.corpus}" (${request.provider === 'offline' ? 'offline' : request.model})`;
      return workbench.writerJob('embed', title, 'passages', (writer, control) =>
        embedCorpus(writer, {
          corpus: request.corpus,
          provider: request.provider,
          ...(request.model ? { model: request.model } : {}),
          ...(request.baseURL ? { baseURL: request.baseURL } : {}),
          apiKeyEnv: request.apiKeyEnv,
          ...(request.dimensions ? { dimensions: request.dimensions } : {}),
          refit: request.refit,
          signal: control.signal,
          onProgress: (done, total) => control.progress(done, total),
        }),
      );
    },
  };
}
