import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../db/connection';
import { saveEvalRunSummary } from '../../db/queries/eval-runs';
import type { WritableDB } from '../../db/sql';
import { createHandlers, Workbench } from '../../electron/services';
import { suggestTags } from '../../electron/services/failures/handlers';
import { evalItemDetail } from '../../electron/services/evaluation/items';
import { compareEvalRuns, createEvalRun, evalRunSummary, evalTables, executeEvalRun } from '../../electron/services/evaluation/run';
import { importFile } from '../../electron/services/import/import-file';
import { dispatch, EvalStartRequest, type FailureItemView } from '../../shared/api';
import { awbAsync, awbJsonAsync } from '../helpers/cli';
import { CONDAMBIGQA, tempDir, writeFile } from '../helpers/db';
import { seedEvalRun, type FixtureItem } from '../helpers/eval-fixture';
import { brain, type Body } from '../helpers/fake-eval';
import { startFakeOpenAI, type FakeOpenAI } from '../helpers/fake-openai';

/**
 * Tables and comparisons that add up: n is the items scored, failed items are counted beside it
 * (tables) or count as failures (comparisons, unless excluded), a run's status says when items
 * failed, a reader that times out or errs leaves Disambig-F1 out with the reason, and the rules
 * of MARCH appendix G tag what methods recorded.
 */

const tmp = tempDir('awb-honest-');
let db: WritableDB;
afterAll(() => {
  db?.close();
  tmp.cleanup();
});
beforeAll(() => {
  db = openDatabase(tmp.file('honest.db'));
});

const two = (q: string, a: string, b: string) => [
  { question: `${q} (first sense)?`, answers: [a] },
  { question: `${q} (second sense)?`, answers: [b] },
];

/** 38 items, all answered (STR-EM 1) by A; B fails on 37 of them (all but k0). */
function seedPair(): { a: number; b: number; bItems: Map<string, number> } {
  const items = (fail: boolean) =>
    Array.from({ length: 38 }, (_, i): FixtureItem => {
      const base = { key: `k${i}`, instanceId: null, interpretations: two(`Q${i}`, `A${i}`, `B${i}`) };
      return fail && i > 0 ? { ...base, error: 'gen: the endpoint answered 500' } : { ...base, answer: `A${i} or B${i}`, strEm: 1 };
    });
  const b = seedEvalRun(db, { method: 'react', items: items(true) });
  return { a: seedEvalRun(db, { method: 'naive-rag', items: items(false) }).runId, b: b.runId, bItems: b.itemIds };
}

describe('n, failed and the status of a run', () => {
  it('counts a run with 1 answered and 37 failed items as n 1 · failed 37, "done with 37 failed"', () => {
    const { b } = seedPair();
    const run = evalRunSummary(db, b);
    expect(run).toMatchObject({ status: 'done', done: 1, failed: 37, total: 38, statusLabel: 'done with 37 failed' });
    const tables = evalTables(db, [b]);
    expect(tables.byModel).toEqual([expect.objectContaining({ runId: b, n: 1, failed: 37, errorsPolicy: 'excluded' })]);
    // Per type the counts add up to the run's.
    expect(tables.byType.reduce((s, r) => s + r.n + r.failed, 0)).toBe(38);
  });

  it('labels a run scored before these conventions until it is run again', () => {
    const { b } = seedPair();
    expect(evalRunSummary(db, b).notes.join(' ')).not.toMatch(/before issue 19/);
    saveEvalRunSummary(db, b, { metrics: {} });
    expect(evalRunSummary(db, b).notes.join(' ')).toMatch(/Scored under the metric conventions before issue 19/);
  });

  it('says when every item failed, and still shows the run in the tables with n 0', () => {
    const run = seedEvalRun(db, { items: [0, 1, 2].map((i) => ({ key: `f${i}`, instanceId: null, interpretations: two('Q', 'a', 'b'), error: 'gen: timeout' })) });
    expect(evalRunSummary(db, run.runId).statusLabel).toBe('failed: all 3 items failed');
    expect(evalTables(db, [run.runId]).byModel[0]).toMatchObject({ n: 0, failed: 3 });
  });
});

describe('comparisons count an item one run failed on', () => {
  it('as a failure by default: McNemar 37 against 0, chi-square 36²/37 (p 3.25e-9)', () => {
    const { a, b } = seedPair();
    const c = compareEvalRuns(db, a, b, 0.5, 200);
    expect(c).toMatchObject({ paired: 38, errorsPolicy: 'fail', failedA: 0, failedB: 37, failedBoth: 0, excluded: 0 });
    const strEm = c.metrics.find((m) => m.metric === 'str_em')!;
    expect(strEm.meanA).toBe(100);
    expect(strEm.meanB).toBeCloseTo(100 / 38, 9);
    expect(strEm.mcnemar).toMatchObject({ onlyA: 37, onlyB: 0, method: 'chi-square with continuity correction' });
    // p = erfc(√(χ²/2)) for one degree of freedom, χ² = (|37 − 0| − 1)² / 37 (worked in Python).
    expect(strEm.mcnemar!.pValue).toBeCloseTo(3.251606e-9, 13);
  });

  it('or leaves the pairs out, saying how many', async () => {
    const { a, b } = seedPair();
    const c = compareEvalRuns(db, a, b, 0.5, 200, 'exclude');
    expect(c).toMatchObject({ paired: 1, errorsPolicy: 'exclude', excluded: 37 });
    expect(c.metrics.find((m) => m.metric === 'str_em')!.mcnemar).toMatchObject({ onlyA: 0, onlyB: 0 });
    // Through the operation (what `awb eval compare --exclude-errors` sends).
    const workbench = new Workbench({ databasePath: tmp.file('honest.db'), mode: 'browser', version: '0.1.0' });
    try {
      const result = await dispatch(createHandlers(workbench), 'evaluation:compare', { a, b, errors: 'exclude', resamples: 100 });
      expect(result.ok && result.value).toMatchObject({ paired: 1, excluded: 37 });
    } finally {
      workbench.close();
    }
  });
});

describe('the CLI says the same', () => {
  it('`awb eval compare --exclude-errors`, `awb eval show` and `awb eval table` state the failures', async () => {
    const { a, b } = seedPair();
    const file = tmp.file('honest.db');
    const compared = await awbAsync(['eval', 'compare', String(a), String(b), '--resamples', '100', '--db', file]);
    expect(compared.stdout).toMatch(/38 paired items; A failed on 0, B on 37 \(both on 0\); a failed item scores 0 and counts as incorrect/);
    const excluded = await awbJsonAsync<{ paired: number; excluded: number; errorsPolicy: string }>(['eval', 'compare', String(a), String(b), '--exclude-errors', '--resamples', '100', '--json', '--db', file]);
    expect(excluded.json).toMatchObject({ paired: 1, excluded: 37, errorsPolicy: 'exclude' });
    const shown = await awbAsync(['eval', 'show', String(b), '--db', file]);
    expect(shown.stdout).toMatch(/: done with 37 failed/);
    expect(shown.stdout).toMatch(/scored \(n\) 1, failed 37/);
    const table = await awbAsync(['eval', 'table', '--runs', `${a},${b}`, '--format', 'csv', '--db', file]);
    const lines = table.stdout.trim().split('\n');
    expect(lines[0]).toBe('method,model,run,n,failed');
    expect(lines.slice(1)).toEqual([`NaiveRAG,fake-model,#${a},38,0`, `ReAct,fake-model,#${b},1,37`]);
    expect((await awbAsync(['eval', 'table', '--format', 'pdf', '--db', file])).stderr).toMatch(/Allowed choices are markdown, csv, latex/);
  });
});

describe('the appendix-G tags', () => {
  it('are suggested from what a method recorded: a detection miss, an unrecovered hop failure, an interpretation left for the user', async () => {
    const { runId, itemIds } = seedEvalRun(db, {
      method: 'clarion',
      items: ['d0', 'd1', 'd2', 'd3'].map((key) => ({ key, instanceId: null, interpretations: two(key, 'x', 'y'), answer: 'x', strEm: 0.5 })),
    });
    const record = (key: string, metrics: Record<string, unknown>) =>
      db.prepare('UPDATE eval_items SET metrics = json_patch(metrics, ?) WHERE id = ?').run(JSON.stringify(metrics), itemIds.get(key));
    record('d0', { detected_ambiguous: false });
    record('d1', { detected_ambiguous: true, hop_verdicts: { pass: 1, fail: 1, blocked: 0, recovered: 0 } });
    record('d2', { detected_ambiguous: true, hop_verdicts: { pass: 1, fail: 1, blocked: 1, recovered: 1 } });
    record('d3', { detected_ambiguous: true, hop_verdicts: { pass: 2, fail: 0, blocked: 0, recovered: 0 } });
    const added = suggestTags(db, runId);
    expect(added).toMatchObject({ 'detection-miss': 1, 'hop-inconsistency': 1, 'needs-clarification': 1 });
    const tagsOf = (key: string) => (db.prepare('SELECT f.key FROM eval_item_tags t JOIN failure_tags f ON f.id = t.tag_id WHERE t.item_id = ? AND t.removed_at IS NULL ORDER BY f.key').pluck().all(itemIds.get(key)) as string[]).filter((t) => t !== 'collapsed');
    expect(tagsOf('d0')).toEqual(['detection-miss']);
    expect(tagsOf('d1')).toEqual(['hop-inconsistency']);
    expect(tagsOf('d2')).toEqual(['needs-clarification']);
    expect(tagsOf('d3')).toEqual([]);
  });

  it('say "no answer (error)" for a failed item instead of calling it collapsed', async () => {
    const { bItems } = seedPair();
    const workbench = new Workbench({ databasePath: tmp.file('honest.db'), mode: 'browser', version: '0.1.0' });
    try {
      const result = await dispatch(createHandlers(workbench), 'failure:item', { id: bItems.get('k1')! });
      expect(result.ok).toBe(true);
      const view = (result as { value: FailureItemView }).value;
      expect(view.item).toMatchObject({ status: 'failed', collapsed: null, error: 'gen: the endpoint answered 500' });
      expect(view.coverage.verdict).toBe('error');
    } finally {
      workbench.close();
    }
  });
});

describe('a reader that times out or errs', () => {
  let fake: FakeOpenAI;
  let server: http.Server;
  let url = '';
  const asked: string[] = [];
  beforeAll(async () => {
    fake = await startFakeOpenAI();
    fake.chat = (body) => brain(body as Body);
    expect((await importFile(db, { file: CONDAMBIGQA, format: 'condambigqa', dataset: 'cond' })).committed).toBe(true);
    // Hangs on the antenna-tip reading (past the timeout), answers 500 on the women's final, reads the rest.
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        const { question, context } = JSON.parse(body) as { question: string; context: string };
        asked.push(question);
        if (/tip of its antenna/.test(question)) return;
        if (/women/.test(question)) {
          res.writeHead(500).end();
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ answer: context.includes('1883') ? '1883' : '' }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/read`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    server.close();
    await fake.close();
  });

  it("leaves the item's Disambig-F1 out with the reason, counts it on the run and in the tables", async () => {
    const config = writeFile(tmp.file('config.json'), JSON.stringify({ endpoints: { fake: { baseURL: fake.url, apiKeyEnv: 'AWB_TEST_KEY', retries: 0, timeoutMs: 3000 } } }));
    const id = createEvalRun(db, EvalStartRequest.parse({ method: 'no-retrieval', model: { endpoint: 'fake', model: 'gen' }, configPath: config, dataset: 'cond', reader: { kind: 'http', url }, readerTimeoutMs: 300 }));
    const run = await executeEvalRun(db, id);
    expect(run).toMatchObject({ status: 'done', done: 3, failed: 0, readerErrors: 2, statusLabel: 'done' });
    const items = (db.prepare('SELECT id FROM eval_items WHERE run_id = ? ORDER BY position').pluck().all(id) as number[]).map((i) => evalItemDetail(db, i));
    const [bridge, cup, tower] = items;
    expect(bridge!.disambigF1).not.toBeNull();
    expect(bridge!.metrics.reader_errors).toBeUndefined();
    expect(cup!.disambigF1).toBeNull();
    expect(cup!.metrics).toMatchObject({ reader_errors: 1, reader_error: `the reader at ${url} answered HTTP 500` });
    expect(cup!.notes).toContain(`reader failed on 1 of 2 clarified questions: the reader at ${url} answered HTTP 500; Disambig-F1 left out for this item`);
    expect(tower!.metrics).toMatchObject({ reader_errors: 1, reader_error: `the reader at ${url} did not answer within 0.3 s` });
    // Each failing question was tried twice.
    expect(asked.filter((q) => /women/.test(q))).toHaveLength(2);
    expect(asked.filter((q) => /tip of its antenna/.test(q))).toHaveLength(2);
    expect(run.metrics.disambig_f1!.n).toBe(1);
    // DR needs ROUGE-L too, which CondAmbigQA (no reference long answers) does not have: no item has both.
    expect(run.metrics.dr).toMatchObject({ value: null, n: 0 });
    expect(evalTables(db, [id]).byModel[0]).toMatchObject({ n: 3, failed: 0, readerErrors: 2 });
  });
});
