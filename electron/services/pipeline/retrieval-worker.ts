import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from '../../../db/connection';
import { AppError } from '../../../shared/api';
import { constraintCues } from '../retrieval/cues';
import { EmbeddedRetriever } from '../retrieval/search';
import { evidenceRows, type RetrievalReply, type RetrievalRequest } from './retrieval-work';

/**
 * The pipeline's retrieval worker (see retrieval-work.ts): its own connection to the database
 * file, answering cues and evidence requests. Requests are answered as they finish.
 */

const port = parentPort!;
const db = openDatabase((workerData as { file: string }).file, { migrate: false });
const retriever = new EmbeddedRetriever(db);

port.on('message', (request: RetrievalRequest) => {
  void (async () => {
    let reply: RetrievalReply;
    try {
      const value = request.kind === 'cues' ? constraintCues(db, request.question, request.corpusId, request.k) : await evidenceRows(retriever, request.request);
      reply = { type: 'reply', id: request.id, ok: true, value };
    } catch (error) {
      reply = { type: 'reply', id: request.id, ok: false, code: error instanceof AppError ? error.code : 'internal', message: (error as Error).message };
    }
    port.postMessage(reply);
  })();
});
port.postMessage({ type: 'ready' } satisfies RetrievalReply);
