/// <reference lib="dom" />
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ImportReport } from '../../shared/api';
import { awbJson, startServer } from '../helpers/cli';
import { tempDir, writeFile } from '../helpers/db';
import { startFakeOpenAI, type FakeOpenAI } from '../helpers/fake-openai';
import { pipelineBrain, SPRINGFIELD_RECORDS } from '../helpers/fake-pipeline';
import { openWorkbench, type WorkbenchPage } from './workbench-page';

/**
 * The pipeline page end to end: a run started from the UI against a fake OpenAI-compatible
 * server, watched to the end, then its funnel, a failed item's trace, and a prompt edited into a
 * new version.
 */

const tmp = tempDir('awb-e2e-pipeline-');
let fake: FakeOpenAI;
let server: Awaited<ReturnType<typeof startServer>>;
let browser: Browser;
let page: Page;
let ui: WorkbenchPage;
let pageErrors: string[] = [];

beforeAll(async () => {
  const db = tmp.file('pipeline.db');
  const data = writeFile(tmp.file('springfields.json'), JSON.stringify(SPRINGFIELD_RECORDS));
  expect(awbJson<ImportReport>(['import', data, '--format', 'musique', '--dataset', 'Springfields', '--db', db]).json.committed).toBe(true);
  expect(awbJson<{ embedded: number }>(['corpus', 'embed', '--corpus', 'Springfields', '--dimensions', '256', '--db', db]).status).toBe(0);
  fake = await startFakeOpenAI();
  // The non-ambiguous question's constraint detector answers garbage twice: that item fails.
  const brain = pipelineBrain({
    ambiguous: (q) => q.includes('Springfield'),
    override: (schema, body) => (schema === 'detect_constraint' && JSON.stringify(body.messages).includes('Hampden') && body.model === 'det-b' ? { content: 'no idea' } : undefined),
  });
  fake.chat = (body, index) => ({ ...brain(body, index), delayMs: 15 });
  server = await startServer(['--db', db], { AWB_HOME: tmp.file('home') });
  ({ browser, page, ui, pageErrors } = await openWorkbench(server.url));
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await fake?.close();
  tmp.cleanup();
});

describe('the pipeline page', () => {
  it('checks the config as it is typed, runs every stage with progress, and reports the run', async () => {
    await ui.goto('/pipeline');
    const editor = page.locator('#pipeline-config');
    await editor.waitFor();
    await page.getByTestId('config-check').filter({ hasText: /^Valid: 4 detectors, 3 filters/ }).waitFor();
    await editor.fill('{"endpoints": {}}');
    await page.getByTestId('config-check').filter({ hasText: /Pipeline config/ }).waitFor();
    const config = {
      endpoints: { fake: { baseURL: fake.url, maxInFlight: 4 } },
      detectors: ['det-a', 'det-b', 'det-c', 'det-d'].map((model) => ({ endpoint: 'fake', model })),
      generator: { endpoint: 'fake', model: 'gen' },
      filters: ['fil-a', 'fil-b', 'fil-c'].map((model) => ({ endpoint: 'fake', model })),
      retrieval: { corpus: 'Springfields', mode: 'hybrid', k: 3 },
      prices: { gen: { input: 2, output: 8 } },
    };
    await editor.fill(JSON.stringify(config, null, 2));
    await page.getByTestId('config-check').filter({ hasText: /^Valid: 4 detectors, 3 filters, endpoints fake/ }).waitFor();
    await page.getByRole('button', { name: 'Start' }).click();
    await page.getByTestId('pipeline-jobs').getByTestId('job').waitFor();
    await ui.screenshot('30-pipeline-running');
    const result = page.getByTestId('pipeline-result');
    await result.waitFor({ timeout: 60_000 });
    // Only the generator has a price: the run's cost is a floor, and says how many calls it leaves out.
    expect(await result.innerText()).toMatch(/Run #1 done, 1 failed: \d+ calls, 0 from the cache, ≥ \$0\.\d{4}, \d+ calls unpriced\./);
    await page.reload();
    await page.getByTestId('stage-status').locator('tbody tr').first().waitFor();
    const stageRows = await page.getByTestId('stage-status').locator('tbody tr').allInnerTexts();
    expect(stageRows[0]).toMatch(/^detect\s+1\s+1\s+2$/);
    // In the order a run takes the stages (merge after shortening and collisions, as early exit runs it).
    expect(stageRows.map((r) => r.split(/\s/)[0])).toEqual(['detect', 'clarify', 'decompose', 'retrieve', 'answer', 'shorten', 'collide', 'merge', 'filter']);
    expect(stageRows.at(-1)).toMatch(/^filter\s+1\s+0\s+1$/);
    await page.getByTestId('runs').locator('tr.clickable').first().click();
    const runs = await page.getByTestId('runs').innerText();
    expect(runs).toMatch(/clarify\s+1\s+1\s+0\s+0\s+1/);
    // Detectors have no price: their cost is unknown, never $0; the run's total is a floor.
    expect(runs).toMatch(/detect\s+2\s+1\s+0\s+1\s+\d+\s+\d+\s+unknown/);
    expect(runs).toMatch(/#1\s+done[^\n]*≥\$0\.\d{4}/);
    await page.getByTestId('run-detail-1').getByTestId('cost-per-kept').waitFor();
    await ui.screenshot('31-pipeline-run');
  });

  it('opens the instance the run built: each interpretation with ranked evidence and its answer marked in its passage', async () => {
    await ui.goto('/instances/1');
    const interpretations = page.getByTestId('interpretation');
    await interpretations.first().waitFor();
    expect(await interpretations.count()).toBe(2);
    for (const [i, river] of [[0, 'Sangamon River'], [1, 'Connecticut River']] as const) {
      const interpretation = interpretations.nth(i);
      expect(await interpretation.getByTestId('short-answer').innerText()).toMatch(new RegExp(`^${river}[\\s\\S]*✓ verbatim span of its passage`));
      const ranks = await interpretation.getByTestId('evidence').locator('.rank').allInnerTexts();
      expect(ranks.length).toBeGreaterThan(0);
      expect(ranks).toEqual(ranks.map((_, n) => `#${n + 1}`));
      expect(await interpretation.locator('.passage.answer-source mark').allInnerTexts()).toEqual([river]);
    }
    const long = page.getByTestId('long-answer');
    expect(await long.locator('mark').allInnerTexts()).toEqual(expect.arrayContaining(['Sangamon River', 'Connecticut River']));
    expect(await page.getByTestId('missing-answer').count()).toBe(0);
    await ui.screenshot('34-pipeline-instance');
    await ui.goto('/pipeline');
  });

  it('shows the funnel per ambiguity type', async () => {
    await page.getByRole('tab', { name: 'Funnel' }).click();
    const funnel = page.getByTestId('funnel');
    await funnel.waitFor();
    expect(await funnel.locator('th').allInnerTexts()).toEqual(['Step', 'semantic', 'total']);
    expect(await funnel.innerText()).toMatch(/kept by the filter\s+1\s+1/);
    expect(await page.locator('.recharts-bar-rectangle').count()).toBeGreaterThan(3);
    // What the kept instance cost, per stage: tokens always, dollars unknown (only the generator has a price).
    const cost = page.getByTestId('cost-per-kept');
    expect(await cost.innerText()).toMatch(/all stages\s+[\d,]+\s+unknown/);
    expect(await cost.locator('tbody tr').first().innerText()).toMatch(/^detect\s+[\d,]+/);
    await ui.screenshot('32-pipeline-funnel');
    await cost.scrollIntoViewIfNeeded();
    await ui.screenshot('35-pipeline-cost');
  });

  it("lists the failed item and opens its trace, with the model's raw answer", async () => {
    await page.getByRole('tab', { name: 'Failures' }).click();
    const row = page.getByTestId('failures').locator('tbody tr').first();
    await row.waitFor();
    expect(await row.innerText()).toMatch(/bq:2\s+detect\s+Who founded the Hampden County Museum\?\s+the answer is not valid JSON/);
    await row.click();
    const trace = page.getByTestId('trace');
    await trace.waitFor();
    await trace.locator('details.call').filter({ hasText: 'fake/det-b' }).filter({ hasText: 'error' }).first().click();
    expect(await trace.innerText()).toContain('no idea');
    await ui.screenshot('33-pipeline-trace');
  });

  it('saves an edited prompt as a new version', async () => {
    await page.getByRole('tab', { name: 'Prompts' }).click();
    await page.getByRole('link', { name: /^filter v1/ }).click();
    // The editor shows the filter prompt before it is edited.
    await page.getByTestId('prompt-editor').getByText(/^filter v1 /).waitFor();
    const system = page.locator('#prompt-system');
    await system.fill(`${await system.inputValue()} Be strict.`);
    await page.getByRole('button', { name: 'Save as v2' }).click();
    await page.getByRole('link', { name: /^filter v2/ }).waitFor();
    // The history loads after the editor: wait for it rather than read it once.
    await page.getByTestId('prompt-editor').getByText(/History: v2 .*, v1 /).waitFor();
  });

  it('raised no errors in the page', () => {
    expect(pageErrors, pageErrors.join('\n')).toEqual([]);
  });
});
