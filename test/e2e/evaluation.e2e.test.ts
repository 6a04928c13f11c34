/// <reference lib="dom" />
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EvalRunSummary, ImportReport } from '../../shared/api';
import { awbJson, awbJsonAsync, startServer } from '../helpers/cli';
import { startFakeEndpoint, type FakeEndpoint } from '../../electron/dev/fake-model';
import { ASQA, CONDAMBIGQA, ROOT, tempDir, writeFile } from '../helpers/db';
import { brain, type Body } from '../helpers/fake-eval';
import { startFakeOpenAI, type FakeOpenAI } from '../helpers/fake-openai';
import { openWorkbench, type WorkbenchPage } from './workbench-page';

/**
 * The Evaluation page end to end: two runs made with the CLI against a fake OpenAI-compatible
 * server, a third started from the page's form (progress, then listed), the method × model and
 * method × type tables with the chart, and one run's items with an item's trace.
 */

const tmp = tempDir('awb-e2e-eval-');
let fake: FakeOpenAI;
let offline: FakeEndpoint;
let server: Awaited<ReturnType<typeof startServer>>;
let browser: Browser;
let page: Page;
let ui: WorkbenchPage;
let pageErrors: string[] = [];
let config: string;

beforeAll(async () => {
  fake = await startFakeOpenAI();
  fake.chat = (body) => brain(body as Body);
  offline = await startFakeEndpoint();
  const db = tmp.file('eval.db');
  expect(awbJson<ImportReport>(['import', CONDAMBIGQA, '--format', 'condambigqa', '--dataset', 'cond', '--db', db]).json.committed).toBe(true);
  expect(awbJson<ImportReport>(['import', ASQA, '--format', 'asqa', '--dataset', 'ASQA dev (sample)', '--db', db]).json.committed).toBe(true);
  config = JSON.stringify({ endpoints: { fake: { baseURL: fake.url, apiKeyEnv: 'AWB_TEST_KEY', retries: 0 } }, prices: { gen: { input: 2, output: 8 } } });
  const file = writeFile(tmp.file('config.json'), config);
  for (const method of ['naive-rag', 'clarion']) {
    const run = await awbJsonAsync<EvalRunSummary>([
      'eval',
      'run',
      '--config',
      file,
      '--method',
      method,
      '--model',
      'fake/gen',
      '--dataset',
      'cond',
      '--corpus',
      'cond',
      '--judge',
      'fake/judge',
      '--reader-model',
      'fake/reader',
      '--db',
      db,
    ]);
    expect(run.status).toBe(0);
    expect(run.json.done).toBe(3);
  }
  server = await startServer(['--db', db], { AWB_HOME: tmp.file('home') });
  ({ browser, page, ui, pageErrors } = await openWorkbench(server.url));
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await fake?.close();
  await offline?.close();
  tmp.cleanup();
});

describe('the evaluation page', () => {
  it('lists runs, starts one from the form, and shows the method × model and method × type tables', async () => {
    await ui.goto('/evaluation');
    const runs = page.getByTestId('eval-runs');
    await runs.getByText('CLARION').waitFor();
    expect(await runs.innerText()).toMatch(/NaiveRAG/);
    // Start Chain-of-Thought from the form.
    const form = page.getByTestId('eval-start');
    await form.locator('#eval-method').selectOption('cot');
    await form.locator('#eval-model').fill('fake/gen');
    await form.locator('#eval-source').selectOption('dataset:cond');
    await form.locator('#eval-judge').fill('fake/judge');
    await form.locator('#eval-config').fill(config);
    await form.getByRole('button', { name: 'Start' }).click();
    await runs.getByText('Chain-of-Thought').waitFor();
    await page.getByTestId('eval-by-model').getByText('Chain-of-Thought').waitFor();
    const byModel = await page.getByTestId('eval-by-model').innerText();
    expect(byModel).toMatch(/STR-EM/);
    expect(byModel).toMatch(/CLARION\s+fake\/gen\s+3\s+83\.33/);
    expect(await page.getByTestId('eval-by-type').innerText()).toMatch(/unspecified/);
    await page.locator('.recharts-bar-rectangle').first().waitFor();
    fs.mkdirSync(path.join(ROOT, 'docs', 'screenshots'), { recursive: true });
    await page.screenshot({ path: path.join(ROOT, 'docs', 'screenshots', 'evaluation.png'), fullPage: true });
  });

  it('loads the offline demo into the form, and the demo run finishes with scores', async () => {
    await ui.goto('/evaluation');
    const form = page.getByTestId('eval-start');
    await form.getByRole('button', { name: 'Load the offline demo' }).click();
    expect(await form.locator('#eval-model').inputValue()).toBe('fake/fake-generator');
    expect(await form.locator('#eval-judge').inputValue()).toBe('fake/fake-judge');
    expect(await form.locator('#eval-reader').inputValue()).toBe('fake/fake-reader');
    expect(await form.locator('#eval-source').inputValue()).toBe('dataset:ASQA dev (sample)');
    expect(await form.locator('#eval-corpus').inputValue()).toBe('ASQA dev (sample)');
    expect(await form.locator('#eval-mode').inputValue()).toBe('hybrid');
    const demoConfig = await form.locator('#eval-config').inputValue();
    expect(demoConfig).toContain('http://127.0.0.1:8088/v1');
    // The demo expects `awb pipeline fake-endpoint` on port 8088; this test's fake model listens elsewhere.
    await form.locator('#eval-config').fill(demoConfig.replace('http://127.0.0.1:8088/v1', offline.url));
    await form.getByTestId('method-paper').locator('summary').click();
    expect(await form.getByTestId('method-paper').innerText()).toMatch(/Cut at 1,200|cut in the prompt/i);
    await page.screenshot({ path: path.join(ROOT, 'docs', 'screenshots', 'evaluation-offline-demo.png'), fullPage: true });
    await form.getByRole('button', { name: 'Start' }).click();
    const byModel = page.getByTestId('eval-by-model');
    await byModel.getByText('fake/fake-generator').waitFor({ timeout: 60_000 });
    expect(await byModel.innerText()).toMatch(/NaiveRAG\s+fake\/fake-generator\s+20\s+\d/);
  });

  it("opens a run's items and an item's trace", async () => {
    await ui.goto('/evaluation/2');
    const items = page.getByTestId('eval-items');
    await items.getByText('How tall is the tower?').waitFor();
    expect(await items.innerText()).toMatch(/collapsed/);
    await items.getByText('When did the bridge open?').click();
    const item = page.getByTestId('eval-item');
    await item.getByText('detect and type').waitFor();
    expect(await item.innerText()).toMatch(/clarify \(semantic\)/);
    expect(await item.innerText()).toMatch(/Covers the interpretations it names/);
    await ui.screenshot('60-evaluation-run');
    expect(pageErrors).toEqual([]);
  });
});
