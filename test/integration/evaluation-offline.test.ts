import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../db/connection';
import type { WritableDB } from '../../db/sql';
import { startFakeEndpoint, type FakeEndpoint } from '../../electron/dev/fake-model';
import { evalItemDetail } from '../../electron/services/evaluation/items';
import { createEvalRun, executeEvalRun } from '../../electron/services/evaluation/run';
import { importFile } from '../../electron/services/import/import-file';
import { embedCorpus } from '../../electron/services/retrieval/models';
import { EvalStartRequest, type EvalRunSummary } from '../../shared/api';
import { EVAL_METHODS } from '../../shared/eval/methods';
import { ASQA, CONDAMBIGQA, ROOT, tempDir } from '../helpers/db';

/**
 * The offline demo evaluates: the bundled fake model (the one `awb pipeline fake-endpoint`
 * serves) answers every method's prompts, the reader's and the judges', through the real
 * `openai` SDK, so each method's run finishes with every item done and scores above zero.
 */

const tmp = tempDir('awb-eval-offline-');
let db: WritableDB;
let endpoint: FakeEndpoint;
let quiet: FakeEndpoint;
const demo = JSON.parse(fs.readFileSync(path.join(ROOT, 'resources', 'eval.offline.json'), 'utf8')) as {
  endpoints: Record<string, Record<string, unknown>>;
  evaluation: { model: string; judge: string; reader: string; dataset: string; corpus: string; retrieval: string; limit: number };
};
const ref = (text: string) => ({ endpoint: text.split('/')[0]!, model: text.split('/').slice(1).join('/') });

function run(method: string, overrides: Record<string, unknown> = {}, url = endpoint.url): Promise<EvalRunSummary> {
  const e = demo.evaluation;
  const condqa = method.startsWith('condqa');
  const request = EvalStartRequest.parse({
    method,
    model: ref(e.model),
    judge: ref(e.judge),
    reader: { kind: 'llm', model: ref(e.reader) },
    config: { endpoints: { fake: { ...demo.endpoints.fake, baseURL: url } } },
    dataset: condqa ? 'cond' : e.dataset,
    ...(condqa ? {} : { corpus: e.corpus, retrieval: e.retrieval }),
    limit: demo.evaluation.limit,
    ...overrides,
  });
  return executeEvalRun(db, createEvalRun(db, request));
}

beforeAll(async () => {
  endpoint = await startFakeEndpoint();
  quiet = await startFakeEndpoint({ script: { noLogprobs: true } });
  db = openDatabase(tmp.file('offline.db'));
  await importFile(db, { file: ASQA, format: 'asqa', dataset: demo.evaluation.dataset });
  await importFile(db, { file: CONDAMBIGQA, format: 'condambigqa', dataset: 'cond' });
  await embedCorpus(db, { corpus: demo.evaluation.corpus, provider: 'offline' });
});
afterAll(async () => {
  db.close();
  await endpoint.close();
  await quiet.close();
  tmp.cleanup();
});

describe('the offline demo', () => {
  it('points at the fake endpoint the CLI serves, on the bundled ASQA sample', () => {
    expect(demo.endpoints.fake!.baseURL).toBe('http://127.0.0.1:8088/v1');
    expect(demo.evaluation).toMatchObject({ dataset: 'ASQA dev (sample)', corpus: 'ASQA dev (sample)', retrieval: 'hybrid' });
  });

  it('runs every method to the end with every item done and scores above zero', async () => {
    const scores: Record<string, Record<string, number | null>> = {};
    for (const method of EVAL_METHODS) {
      const summary = await run(method);
      expect(summary, method).toMatchObject({ status: 'done', failed: 0 });
      expect(summary.done, method).toBe(summary.total);
      scores[method] = Object.fromEntries(Object.entries(summary.metrics).map(([k, v]) => [k, v.value]));
    }
    for (const method of ['naive-rag', 'diva', 'react', 'clarion', 'adf']) expect(scores[method]!.str_em, method).toBeGreaterThan(0);
    for (const method of ['naive-rag', 'clarion']) expect(scores[method]!.disambig_f1, method).toBeGreaterThan(0);
    expect(scores.condqa!.citation_precision).toBeGreaterThan(0);
    expect(scores.condqa!.answer_score).toBeGreaterThan(0);
    expect(scores.condqa!.condqa_combined).toBeGreaterThan(0);
    expect(scores['condqa-oracle']!.answer_score).toBeGreaterThan(0);
  });

  it('grades CondAmbigQA from token probabilities, or by sampling where the endpoint gives none', async () => {
    const withProbabilities = await run('condqa', { limit: 2 });
    const item = evalItemDetail(db, (db.prepare('SELECT id FROM eval_items WHERE run_id = ? ORDER BY position LIMIT 1').get(withProbabilities.id) as { id: number }).id);
    expect(item.metrics).toMatchObject({ condition_score_mode: 'logprobs', answer_score_mode: 'logprobs' });
    const sampled = await run('condqa', { limit: 2, geval: { samples: 3 } }, quiet.url);
    expect(sampled.status).toBe('done');
    expect(sampled.notes).toContain('answer score: sampled scores on 2 items');
  });
});
