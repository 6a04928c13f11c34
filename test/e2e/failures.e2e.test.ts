/// <reference lib="dom" />
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../db/connection';
import type { ImportReport } from '../../shared/api';
import { awbJson, startServer } from '../helpers/cli';
import { ASQA, tempDir } from '../helpers/db';
import { seedFailureDemo } from '../helpers/failure-demo';
import { openWorkbench, type WorkbenchPage } from './workbench-page';

/**
 * The failure inspector end to end: a run's failure table opened with filters in the URL, an
 * item opened from it, j/k through the filtered items, a tag added with the keyboard, and the
 * instance flagged for review.
 */

const tmp = tempDir('awb-e2e-failures-');
let server: Awaited<ReturnType<typeof startServer>>;
let browser: Browser;
let page: Page;
let ui: WorkbenchPage;
let pageErrors: string[] = [];
let runA = 0;
let runB = 0;
let longTraceItem = 0;

beforeAll(async () => {
  const file = tmp.file('failures.db');
  expect(awbJson<ImportReport>(['import', ASQA, '--format', 'asqa', '--db', file]).json.committed).toBe(true);
  const db = openDatabase(file);
  const seeded = seedFailureDemo(db);
  db.close();
  ({ runA, runB } = seeded);
  longTraceItem = seeded.itemIds.get(seeded.longTraceKey)!;
  server = await startServer(['--db', file], { AWB_HOME: tmp.file('home') });
  ({ browser, page, ui, pageErrors } = await openWorkbench(server.url));
  await page.addInitScript(() => localStorage.setItem('awb.who', 'ines'));
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  tmp.cleanup();
});

describe('the failure inspector', () => {
  it('opens a run’s failure table with filters from the URL and sorts by a metric', async () => {
    await ui.goto(`/evaluation/${runA}/items?collapsed=1&below.str_em=0.6&sort=rouge_l`);
    await ui.waitForRows();
    const count = await ui.rowCount();
    expect(count).toBeGreaterThan(0);
    expect(count).toBeLessThan(40);
    expect(await page.getByTestId('filter-collapsed').inputValue()).toBe('1');
    expect(await page.getByLabel('STR-EM below').inputValue()).toBe('60');
    // Rows are sorted by ROUGE-L, lowest first, and every one is collapsed.
    const rouge: number[] = [];
    for (let i = 0; i < Math.min(count, 6); i++) rouge.push(Number(await ui.cellText(i, 5)));
    expect(rouge).toEqual([...rouge].sort((a, b) => a - b));
    expect(await ui.cellText(0, 8)).toMatch(/collapsed/);
    await page.getByTestId('tag-chart').getByText('Collapsed interpretations').waitFor();
    await ui.docsScreenshot('failures');
  });

  it('opens an item, moves through the filtered items with j/k, tags it and flags its instance', async () => {
    await page.keyboard.press('Enter');
    await page.locator('[data-testid="failure-item"]:not([data-item=""])').waitFor();
    const first = await page.getByTestId('failure-item').getAttribute('data-item');
    // j/k follow the filtered list the item was opened from, once it is known.
    await page.locator('[data-testid="next-item"]:not([disabled])').waitFor();
    expect(page.url()).toMatch(/collapsed=1/);
    // Collapsed (G.1) is the item's flag; the coverage verdict says how much of the gold it covers.
    await page.getByTestId('collapsed').waitFor();
    expect(await page.getByTestId('verdict').innerText()).toMatch(/^(partial|missed)$/);
    expect(await page.locator('[data-testid="gold-interpretation"][data-found="no"]').count()).toBeGreaterThan(0);
    await page.keyboard.press('j');
    await page.waitForFunction((id) => document.querySelector('[data-testid="failure-item"]')?.getAttribute('data-item') !== id, first);
    await page.getByTestId('collapsed').waitFor();
    await page.locator('[data-testid="previous-item"]:not([disabled])').waitFor();
    await page.keyboard.press('k');
    await page.waitForFunction((id) => document.querySelector('[data-testid="failure-item"]')?.getAttribute('data-item') === id, first);

    await page.keyboard.press('t');
    await page.getByLabel('tag to add').selectOption('factual-error');
    await page.keyboard.press('Enter');
    await page.getByTestId('item-tag').filter({ hasText: 'Factual error' }).waitFor();
    expect(await page.getByTestId('tags').innerText()).toMatch(/Factual error\s+by ines/);
    expect(await page.getByTestId('tags').innerText()).toMatch(/Collapsed interpretations\s+suggested by rule:collapsed/);

    await page.keyboard.press('f');
    await page.getByLabel('reason').fill('The second interpretation’s short answer looks wrong.');
    await page.keyboard.press('Enter');
    await page.getByTestId('flag').filter({ hasText: 'looks wrong' }).waitFor();

    await page.keyboard.press('?');
    await page.getByRole('dialog', { name: 'Failure view' }).getByText('next item').waitFor();
    expect(await page.getByRole('dialog').count()).toBe(1);
    await page.keyboard.press('Escape');
  });

  it('shows a 30-step trace collapsed, each call opening to its prompt and raw output', async () => {
    await ui.goto(`/evaluation/${runA}/items/${longTraceItem}`);
    await page.getByTestId('trace').waitFor();
    expect(await page.getByTestId('trace-step').count()).toBe(30);
    expect(await page.locator('.step-body').count()).toBe(0);
    await page.getByTestId('trace-step').nth(2).locator('.step-head').click();
    expect(await page.locator('.step-body').innerText()).toMatch(/Question:[\s\S]*raw output[\s\S]*"step": ?3/);
    await page.getByTestId('trace-step').nth(2).locator('.step-head').click();
    await ui.docsScreenshot('failure-item');
  });

  it('puts two runs side by side', async () => {
    await ui.goto(`/evaluation/compare?a=${runA}&b=${runB}`);
    await page.waitForURL(/vs=/);
    await ui.waitForRows();
    const aRight = await ui.rowCount();
    await page.getByLabel('side by side').selectOption('a-wrong-b-right');
    await page.waitForURL(/mode=a-wrong-b-right/);
    await ui.waitForRows();
    expect(aRight + (await ui.rowCount())).toBeGreaterThan(0);
    expect(page.url()).toMatch(new RegExp(`a=${runA}&b=${runB}`));
    expect(pageErrors).toEqual([]);
  });
});
