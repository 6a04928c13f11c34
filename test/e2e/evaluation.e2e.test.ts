/// <reference lib="dom" />
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EvalComparison, EvalRunSummary, ImportReport } from '../../shared/api';
import { awbJson, awbJsonAsync, startServer } from '../helpers/cli';
import { startFakeEndpoint, type FakeEndpoint } from '../../electron/dev/fake-model';
import { ASQA, CONDAMBIGQA, tempDir, writeFile } from '../helpers/db';
import { brain, json, known, questionOf, schemaOf, type Body } from '../helpers/fake-eval';
import { startFakeOpenAI, type FakeOpenAI } from '../helpers/fake-openai';
import { openWorkbench, type WorkbenchPage } from './workbench-page';

/**
 * The researcher's task end to end, by keyboard and mouse, against a fake OpenAI-compatible
 * server: two runs made with the CLI; a third started from the form (which then remembers its model
 * and config), whose model garbles two answers; its failures grouped by reason on the run page and
 * the failure table; two runs ticked in the table and compared with the paired tests (as
 * `awb eval compare --json` computes them); the compare page reached from the palette too; the
 * tables and the by-type chart with its intervals; one run's items and an item's trace.
 */

const tmp = tempDir('awb-e2e-eval-');
let fake: FakeOpenAI;
let server: Awaited<ReturnType<typeof startServer>>;
let browser: Browser;
let page: Page;
let ui: WorkbenchPage;
let pageErrors: string[] = [];
let config: string;
let db: string;
let offline: FakeEndpoint;

beforeAll(async () => {
  fake = await startFakeOpenAI();
  fake.chat = (body) => {
    const b = body as Body;
    const question = questionOf(b);
    // Chain-of-Thought gets no usable answer for the tower and the cup final: those items fail.
    if (schemaOf(b) === 'reasoned_plain_answer' && /tower|cup final/i.test(question)) return { content: 'Sorry, I cannot answer in JSON today.', promptTokens: 50, completionTokens: 10 };
    // NaiveRAG gives one reading of the bridge and none of the cup final, so CLARION beats it.
    if (schemaOf(b) === 'cited_plain_answer' && /bridge|cup final/i.test(question)) {
      const answers = /bridge/i.test(question) ? known(question).slice(0, 1) : [];
      return json({ answer: answers.length ? `It opened in ${answers[0]}.` : 'I do not know.', citations: [1] });
    }
    return brain(b);
  };
  offline = await startFakeEndpoint();
  db = tmp.file('eval.db');
  expect(awbJson<ImportReport>(['import', CONDAMBIGQA, '--format', 'condambigqa', '--dataset', 'cond', '--db', db]).json.committed).toBe(true);
  expect(awbJson<ImportReport>(['import', ASQA, '--format', 'asqa', '--dataset', 'ASQA dev (sample)', '--db', db]).json.committed).toBe(true);
  config = JSON.stringify({ endpoints: { fake: { baseURL: fake.url, apiKeyEnv: 'AWB_TEST_KEY', retries: 0 } }, prices: { gen: { input: 2, output: 8 } } }, null, 2);
  const file = writeFile(tmp.file('config.json'), config);
  for (const method of ['naive-rag', 'clarion']) {
    const run = await awbJsonAsync<EvalRunSummary>(['eval', 'run', '--config', file, '--method', method, '--model', 'fake/gen', '--dataset', 'cond', '--corpus', 'cond', '--judge', 'fake/judge', '--reader-model', 'fake/reader', '--db', db]);
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

describe("the researcher's evaluation", () => {
  it('starts a run from the form, which remembers its model and config; the finished card is dismissed', async () => {
    await ui.goto('/evaluation');
    const runs = page.getByTestId('eval-runs');
    await runs.getByText('CLARION').waitFor();
    const form = page.getByTestId('eval-start');
    await form.locator('#eval-method').selectOption('cot');
    await form.locator('#eval-model').fill('fake/gen');
    await form.locator('#eval-source').selectOption('dataset:cond');
    await form.locator('#eval-judge').fill('fake/judge');
    await form.locator('#eval-config').fill(config);
    await form.getByRole('button', { name: 'Start' }).click();
    const row = runs.locator('tr', { hasText: 'Chain-of-Thought' });
    await row.getByText('done with 2 failed').waitFor({ timeout: 60_000 });
    // One card for the finished job; dismissed, it stays away.
    const cards = page.getByTestId('eval-job');
    await cards.filter({ hasText: 'done with 2 failed' }).waitFor();
    expect(await cards.count()).toBe(1);
    await cards.getByRole('button', { name: /Dismiss/ }).click();
    await cards.first().waitFor({ state: 'detached' });
    // A reload keeps the model, the judge and the config, and not the card.
    await page.reload();
    await runs.getByText('Chain-of-Thought').waitFor();
    expect(await form.locator('#eval-model').inputValue()).toBe('fake/gen');
    expect(await form.locator('#eval-judge').inputValue()).toBe('fake/judge');
    expect(JSON.parse(await form.locator('#eval-config').inputValue())).toEqual(JSON.parse(config));
    expect(await page.getByTestId('eval-job').count()).toBe(0);
  });

  it("groups a run's failures by reason on its page and in its failure table", async () => {
    await page.getByTestId('eval-runs').getByRole('link', { name: '#3' }).click();
    await page.getByTestId('run-status').filter({ hasText: 'done with 2 failed' }).waitFor();
    const reasons = page.getByTestId('failure-reasons');
    await reasons.getByTestId('failure-reason').first().waitFor();
    expect(await reasons.getByTestId('failure-reason').count()).toBe(1);
    expect(await reasons.getByTestId('failure-reason').innerText()).toMatch(/^2 ×\s+eval_cot: the answer is not valid JSON \(no JSON object in the answer\); the repair attempt failed too.* first: item \d+$/);
    // Metric names, not ids, head the run's table.
    const metrics = await page.getByTestId('run-metrics').innerText();
    expect(metrics).toMatch(/STR-EM/);
    expect(metrics).not.toMatch(/str_em|judge_mean|judge_informativeness/);
    await ui.docsScreenshot('evaluation-run', { fullPage: true });
    await reasons.getByRole('link', { name: /all 2 failed items/ }).click();
    await page.waitForURL(/\/evaluation\/3\/items\?status=failed/);
    await ui.waitForRowCount(2);
    await page.getByTestId('failure-table').getByTestId('failure-reasons').getByText(/^2 ×/).waitFor();
  });

  it('ticks two runs and compares them with the paired tests, also from the palette', async () => {
    await ui.goto('/evaluation');
    const runs = page.getByTestId('eval-runs');
    await runs.getByText('CLARION').waitFor();
    await runs.getByLabel('compare run 2').check();
    await runs.getByLabel('compare run 1').check();
    await page.waitForURL(/select=2,1/);
    await page.getByTestId('compare-selected').click();
    await page.waitForURL(/\/evaluation\/compare\?a=2&b=1/);
    const tests = page.getByTestId('paired-tests');
    await tests.getByTestId('paired-table').waitFor();
    const cli = awbJson<EvalComparison>(['eval', 'compare', '2', '1', '--db', db]).json;
    expect(await tests.getByTestId('paired-count').innerText()).toMatch(new RegExp(`^${cli.paired} items both runs finished are paired`));
    const strEm = cli.metrics.find((m) => m.metric === 'str_em')!;
    const row = await tests.getByTestId('paired-table').locator('tr', { hasText: 'STR-EM' }).innerText();
    expect(row).toContain(`${strEm.bootstrap!.difference.toFixed(2)} [${strEm.bootstrap!.ciLow!.toFixed(2)}, ${strEm.bootstrap!.ciHigh!.toFixed(2)}]`);
    expect(row).toContain(`${strEm.mcnemar!.onlyA} / ${strEm.mcnemar!.onlyB}`);
    expect(strEm.bootstrap!.difference).toBeLessThan(0);
    await tests.locator('.recharts-errorBar').first().waitFor();
    // Below the tests, A's items beside B's.
    await ui.waitForRows();
    await ui.docsScreenshot('evaluation-compare');
    // The palette knows the way in too: a picker of two runs.
    await page.keyboard.press('Control+k');
    await page.keyboard.type('compare two');
    await page.keyboard.press('Enter');
    await page.getByTestId('compare-picker').waitFor();
    await page.getByLabel('run A').selectOption('2');
    await page.getByLabel('run B').selectOption('3');
    await page.getByRole('button', { name: 'Compare', exact: true }).click();
    await page.getByTestId('paired-count').filter({ hasText: 'A answered 3, B 1' }).waitFor();
    // Run 3 failed on two items: they count as failures unless left out, and the panel says which.
    await page.getByTestId('paired-count').filter({ hasText: 'A failed 0, B failed 2, both 0' }).waitFor();
    await page.getByTestId('exclude-errors').check();
    await page.getByTestId('paired-count').filter({ hasText: '2 pairs where a run failed are left out' }).waitFor();
  });

  it('shows the method × model and method × type tables, and the by-type chart with intervals', async () => {
    await ui.goto('/evaluation');
    await page.getByTestId('eval-by-model').getByText('Chain-of-Thought').waitFor();
    const byModel = await page.getByTestId('eval-by-model').innerText();
    expect(byModel).toMatch(/STR-EM/);
    expect(byModel).toMatch(/Disambig-F1 \(ASQA\)/);
    expect(byModel).toMatch(/CLARION\s+fake\/gen\s+3\s+83\.33/);
    expect(await page.getByTestId('eval-by-type').innerText()).toMatch(/unspecified/);
    await page.locator('.recharts-bar-rectangle').first().waitFor();
    expect(await page.locator('.recharts-errorBar').count()).toBeGreaterThan(0);
    await ui.docsScreenshot('evaluation');
    await page.locator('.recharts-wrapper').last().scrollIntoViewIfNeeded();
    await ui.docsScreenshot('evaluation-by-type');
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
    await ui.docsScreenshot('evaluation-offline-demo', { fullPage: true });
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
