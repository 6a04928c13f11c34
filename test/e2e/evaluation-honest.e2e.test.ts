/// <reference lib="dom" />
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../db/connection';
import { startServer } from '../helpers/cli';
import { tempDir } from '../helpers/db';
import { seedEvalRun, type FixtureItem } from '../helpers/eval-fixture';
import { openWorkbench, type WorkbenchPage } from './workbench-page';

/**
 * The Evaluation page with a run that failed on most of its items: the runs list and the run's
 * page say "done with 37 failed", the method × model table shows n 1 · 37 failed, and a failed
 * item opens as "no answer (error)" rather than as a collapsed answer.
 */

const tmp = tempDir('awb-e2e-honest-');
let server: Awaited<ReturnType<typeof startServer>>;
let browser: Browser;
let page: Page;
let ui: WorkbenchPage;
let pageErrors: string[] = [];
let runB = 0;
let failedItem = 0;

beforeAll(async () => {
  const file = tmp.file('honest.db');
  const db = openDatabase(file);
  const items = (fail: boolean) =>
    Array.from({ length: 38 }, (_, i): FixtureItem => {
      const base = { key: `k${i}`, instanceId: null, question: `Which bridge is meant in question ${i}?`, interpretations: [{ question: `Q${i} (old)?`, answers: [`A${i}`] }, { question: `Q${i} (new)?`, answers: [`B${i}`] }] };
      return fail && i > 0 ? { ...base, error: 'gen: the endpoint answered 500' } : { ...base, answer: `A${i} or B${i}`, strEm: 1 };
    });
  seedEvalRun(db, { method: 'naive-rag', items: items(false) });
  const b = seedEvalRun(db, { method: 'react', items: items(true) });
  runB = b.runId;
  failedItem = b.itemIds.get('k1')!;
  db.close();
  server = await startServer(['--db', file], { AWB_HOME: tmp.file('home') });
  ({ browser, page, ui, pageErrors } = await openWorkbench(server.url));
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  tmp.cleanup();
});

describe('a run that failed on most items, shown honestly', () => {
  it('says "done with 37 failed" and n 1 · 37 failed', async () => {
    await ui.goto('/evaluation');
    const runs = page.getByTestId('eval-runs');
    await runs.getByText('done with 37 failed').waitFor();
    const byModel = page.getByTestId('eval-by-model');
    await byModel.getByText('37 failed').waitFor();
    expect(await byModel.innerText()).toMatch(/ReAct\s+fake-model\s+1 · 37 failed/);
    await ui.screenshot('61-evaluation-failed-run');
    await ui.goto(`/evaluation/${runB}`);
    expect(await page.getByTestId('run-status').innerText()).toBe('done with 37 failed');
  });

  it('opens a failed item as "no answer (error)"', async () => {
    await ui.goto(`/evaluation/${runB}/items/${failedItem}`);
    await page.getByTestId('verdict').getByText('no answer (error)').waitFor();
    expect(await page.getByTestId('item-error').innerText()).toMatch(/endpoint answered 500/);
    expect(await page.getByTestId('collapsed').count()).toBe(0);
    await ui.screenshot('62-failure-item-error');
    expect(pageErrors).toEqual([]);
  });
});
