import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { openDatabase } from '../../db/connection';
import type { WritableDB } from '../../db/sql';
import { evalItemDetail } from '../../electron/services/evaluation/items';
import { createEvalRun, executeEvalRun } from '../../electron/services/evaluation/run';
import { importFile } from '../../electron/services/import/import-file';
import { EvalStartRequest, type EvalItemDetail, type EvalRunSummary } from '../../shared/api';
import { CONDAMBIGQA, tempDir, writeFile } from './db';
import { brain, type Body } from './fake-eval';
import { startFakeOpenAI, type FakeOpenAI, type RecordedRequest } from './fake-openai';

/**
 * What the evaluation tests share: a fake OpenAI-compatible server on 127.0.0.1 answered by the
 * scripted model (each test may script its own), a database holding the CondAmbigQA sample as the
 * dataset and corpus "cond", and runs started the way the app starts them.
 */
export function evalHarness(prefix: string) {
  const tmp = tempDir(prefix);
  const h = {
    fake: undefined as unknown as FakeOpenAI,
    db: undefined as unknown as WritableDB,
    dbFile: '',
    tmp,
    /** The chat requests the fake received since the test began (or since cleared). */
    chats(): RecordedRequest[] {
      return h.fake.requests.filter((r) => r.path.endsWith('/chat/completions'));
    },
    configFile(endpoint: Record<string, unknown> = {}): string {
      return writeFile(
        tmp.file(`config-${Math.random().toString(36).slice(2)}.json`),
        JSON.stringify({ endpoints: { fake: { baseURL: h.fake.url, apiKeyEnv: 'AWB_TEST_KEY', maxInFlight: 8, retries: 0, timeoutMs: 3000, ...endpoint } }, prices: { gen: { input: 2, output: 8 } } }),
      );
    },
    request(overrides: Record<string, unknown> = {}, endpoint: Record<string, unknown> = {}): EvalStartRequest {
      return EvalStartRequest.parse({ method: 'naive-rag', model: { endpoint: 'fake', model: 'gen' }, configPath: h.configFile(endpoint), dataset: 'cond', corpus: 'cond', k: 3, ...overrides });
    },
    async evaluate(overrides: Record<string, unknown> = {}, endpoint: Record<string, unknown> = {}): Promise<EvalRunSummary> {
      const id = createEvalRun(h.db, h.request(overrides, endpoint));
      return executeEvalRun(h.db, id);
    },
    items(runId: number): EvalItemDetail[] {
      return (h.db.prepare('SELECT id FROM eval_items WHERE run_id = ? ORDER BY position').all(runId) as { id: number }[]).map((r) => evalItemDetail(h.db, r.id));
    },
  };
  beforeAll(async () => {
    h.fake = await startFakeOpenAI();
    h.dbFile = tmp.file('eval.db');
    h.db = openDatabase(h.dbFile);
    expect((await importFile(h.db, { file: CONDAMBIGQA, format: 'condambigqa', dataset: 'cond' })).committed).toBe(true);
  });
  afterAll(async () => {
    h.db.close();
    await h.fake.close();
    tmp.cleanup();
  });
  beforeEach(() => {
    h.fake.requests.length = 0;
    h.fake.chat = (body) => brain(body as Body);
  });
  return h;
}
