/// <reference lib="dom" />
// Functions passed to page.evaluate and waitForFunction run in the browser.
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ImportReport } from '../../shared/api';
import { awbJson, startServer } from '../helpers/cli';
import { ROOT, tempDir, writeFile } from '../helpers/db';
import { EVIDENCE_PER_INTERPRETATION, judgingFixture } from '../helpers/judging-fixture';
import { countCalls, openWorkbench, type WorkbenchPage } from './workbench-page';

/**
 * The annotator's task, done as an annotator does it, by keyboard and mouse in Chromium: a
 * campaign made in the form (MARCH validation by default), five instances shaped like the
 * pipeline's (ten passages of evidence per interpretation), judged with keys and clicks, with a
 * skip, an undo, a comment, the guidelines open, to the completion card and back to the
 * campaign; then the same work from an offline pack, in the pack's own shell. Screenshots for
 * docs/ are taken on the way.
 */

const tmp = tempDir('awb-e2e-annotator-');
const dbFile = tmp.file('annotator.db');
const DOCS = path.join(ROOT, 'docs', 'screenshots');
let server: Awaited<ReturnType<typeof startServer>>;
let browser: Browser;
let page: Page;
let ui: WorkbenchPage;
let pageErrors: string[] = [];
let campaignId = 0;

beforeAll(async () => {
  const file = writeFile(tmp.file('demo.jsonl'), judgingFixture(5));
  expect(awbJson<ImportReport>(['import', file, '--format', 'awb', '--db', dbFile]).json.committed).toBe(true);
  server = await startServer(['--db', dbFile], { AWB_HOME: tmp.file('home') });
  ({ browser, page, ui, pageErrors } = await openWorkbench(server.url));
  fs.mkdirSync(DOCS, { recursive: true });
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  tmp.cleanup();
});

/** The item on screen (the next one is rendered ahead, hidden). */
const shown = () => page.locator('[data-testid="judged-item"]:visible');
const position = async () => Number(await shown().getAttribute('data-position'));

async function box(locator: Locator): Promise<{ x: number; y: number; width: number; height: number }> {
  const b = await locator.boundingBox();
  if (!b) throw new Error('not on screen');
  return b;
}

describe("the annotator's task", () => {
  it('makes a campaign in the form, MARCH validation unless another protocol is chosen', async () => {
    await ui.goto('/campaigns/new');
    await page.locator('#campaign-protocol option').first().waitFor({ state: 'attached' });
    expect(await page.locator('#campaign-protocol').inputValue()).toBe('march-validation');
    await page.locator('#campaign-name').fill('Demo check');
    await page.locator('#campaign-annotators').fill('ann');
    await page.getByLabel('Ambiguity demo').check();
    await page.getByTestId('campaign-preview').filter({ hasText: /^5 instances/ }).waitFor();
    await page.getByRole('button', { name: 'Create campaign' }).click();
    await page.getByTestId('campaign-name').filter({ hasText: 'Demo check' }).waitFor();
    campaignId = Number(/\/campaigns\/(\d+)/.exec(page.url())![1]);
    expect(await page.getByTestId('campaign-name').locator('xpath=..').innerText()).toMatch(/MARCH validation/);
  });

  it('shows what is judged first, evidence cut to the top three, and keys that jump between sections', async () => {
    await page.getByRole('link', { name: 'Judge as ann' }).click();
    await page.getByText('item 1 of 5').waitFor();
    await page.screenshot({ path: path.join(DOCS, 'judging.png') });
    // The short answers and the long answer are on the first screen, above the evidence.
    for (const answer of await shown().getByTestId('short-answer').all()) expect((await box(answer)).y + (await box(answer)).height).toBeLessThan(900);
    const long = await box(shown().getByTestId('long-answer'));
    expect(long.y + long.height).toBeLessThan(900);
    const evidence = shown().locator('[data-section="evidence"]');
    expect((await box(evidence)).y).toBeGreaterThan(long.y);
    // Three passages per interpretation, then "show more".
    const support = shown().getByTestId('interpretation-support');
    expect(await support.count()).toBe(2);
    expect(await support.first().getByTestId('evidence').count()).toBe(3);
    await support.first().getByTestId('more-evidence').click();
    expect(await support.first().getByTestId('evidence').count()).toBe(EVIDENCE_PER_INTERPRETATION);
    expect(await support.nth(1).getByTestId('evidence').count()).toBe(3);
    await ui.screenshot('annotator-first-item');
    // e jumps to the evidence, a back to the answers.
    const scroller = page.getByTestId('judge-instance');
    await page.keyboard.press('e');
    await page.waitForFunction(() => document.querySelector('[data-testid="judge-instance"]')!.scrollTop > 0);
    expect(Math.abs((await box(evidence)).y - (await box(scroller)).y)).toBeLessThan(40);
    await page.keyboard.press('a');
    await page.waitForFunction(() => document.querySelector('[data-testid="judge-instance"]')!.scrollTop === 0);
  });

  it('opens the guidelines in a drawer that keeps the interpretations side by side', async () => {
    const columns = shown().getByTestId('interpretation');
    const [before1, before2] = [await box(columns.nth(0)), await box(columns.nth(1))];
    await page.keyboard.press('g');
    const drawer = page.getByRole('dialog', { name: 'Guidelines' });
    await drawer.waitFor();
    const [after1, after2] = [await box(columns.nth(0)), await box(columns.nth(1))];
    expect(after1).toEqual(before1);
    expect(after2).toEqual(before2);
    expect(after2.x).toBeGreaterThan(after1.x + after1.width - 1);
    // Over the instance side, not over the criteria.
    const criteria = await box(page.getByRole('complementary', { name: 'Criteria' }));
    expect((await box(drawer)).x + (await box(drawer)).width).toBeLessThanOrEqual(criteria.x + 1);
    await ui.screenshot('annotator-guidelines');
    await page.screenshot({ path: path.join(DOCS, 'judging-guidelines.png') });
    await page.keyboard.press('g');
    await drawer.waitFor({ state: 'detached' });
  });

  it('judges by keys and mouse, one call per decision, with toasts that move nothing', async () => {
    const calls = countCalls(page);
    for (const key of ['y', 'y', 'y']) await page.keyboard.press(key);
    await page.getByText('item 2 of 5').waitFor();
    // Skipping shows a toast; the criteria and the columns stay where they were.
    const card = page.locator('[data-criterion="ambiguity"]');
    const before = await box(card);
    const first = await box(shown().getByTestId('interpretation').first());
    await page.keyboard.press('s');
    await page.getByTestId('judge-notice').filter({ hasText: 'Skipped item 2' }).waitFor();
    await page.getByText('item 3 of 5').waitFor();
    expect(await box(card)).toEqual(before);
    expect(await box(shown().getByTestId('interpretation').first())).toEqual(first);
    // Undo takes back the last decision, on item 1.
    await page.keyboard.press('u');
    await page.getByText('item 1 of 5').waitFor();
    await page.getByTestId('judge-notice').filter({ hasText: /Undone: Long answer consistent on item 1/ }).waitFor();
    expect(await box(card)).toEqual(before);
    await page.keyboard.press('n');
    // Item 2 was skipped: the queue goes on to item 3. Its decisions by mouse, with a comment.
    await page.getByText('item 3 of 5').waitFor();
    await page.keyboard.press('c');
    await page.keyboard.type('Both readings are common.');
    await page.keyboard.press('Control+Enter');
    await page.getByText('“Both readings are common.”').waitFor();
    for (const criterion of ['ambiguity', 'clarification', 'long_answer']) await page.locator(`[data-criterion="${criterion}"] .choice.yes`).click();
    await page.getByText('item 4 of 5').waitFor();
    for (const key of ['y', 'n', 'y', '1', '1', '1']) await page.keyboard.press(key);
    await page.getByTestId('completion').waitFor();
    await page.getByTestId('save-state').filter({ hasText: 'all saved' }).waitFor();
    calls.stop();
    // 3 + 1 (again, after the undo) + 1 comment + 3 + 6 decisions; the skip and the undo; items fetched ahead and read back.
    expect(calls.counts['judging:decide']).toBe(14);
    expect(calls.counts['judging:skip']).toBe(1);
    expect(calls.counts['judging:undo']).toBe(1);
    expect(calls.counts['judging:queue']).toBeUndefined();
  });

  it('ends on a completion card with the skipped and commented items, and the way back to the campaign', async () => {
    const completion = page.getByTestId('completion');
    expect(await completion.locator('h2').innerText()).toBe('4 of 5 items judged; 1 item skipped');
    expect(await page.getByTestId('completion-skipped').innerText()).toMatch(/item 2/);
    expect(await page.getByTestId('completion-commented').innerText()).toMatch(/item 3/);
    await ui.screenshot('annotator-completion');
    await page.getByTestId('completion-skipped').getByRole('button', { name: 'item 2' }).click();
    await page.getByText('item 2 of 5').waitFor();
    expect(await position()).toBe(1);
    for (const key of ['y', 'y', 'y']) await page.keyboard.press(key);
    await completion.filter({ hasText: 'All 5 items judged' }).waitFor();
    await page.getByTestId('save-state').filter({ hasText: 'all saved' }).waitFor();
    await page.screenshot({ path: path.join(DOCS, 'judging-done.png') });
    await completion.getByRole('link', { name: 'Back to the campaign' }).click();
    const row = page.getByTestId('campaign-progress').locator('tbody tr').filter({ hasText: /^ann/ });
    await row.filter({ hasText: '5/5' }).waitFor();
  });

  it('keeps a rating scale from 0 to 5 on one row, and judges in the dark theme', async () => {
    const made = awbJson<{ id: number }>(['campaign', 'create', '--name', 'Quality', '--protocol', 'long-answer-quality', '--annotators', 'ann', '--filter', 'dataset=Ambiguity demo', '--db', dbFile]).json;
    await ui.goto(`/judge?campaign=${made.id}&annotator=ann`);
    await page.getByText('item 1 of 5').waitFor();
    const points = page.locator('[data-criterion="relevance"] .choice');
    expect((await points.allInnerTexts()).map((t) => t.trim())).toEqual(['0', '1', '2', '3', '4', '5']);
    const tops = new Set(await Promise.all((await points.all()).map(async (p) => Math.round((await box(p)).y))));
    expect(tops.size).toBe(1);
    await page.getByTestId('theme-toggle').click();
    await page.waitForFunction(() => document.documentElement.dataset.theme === 'dark');
    await page.keyboard.press('4');
    await page.locator('[data-criterion="faithfulness"][aria-current="true"]').waitFor();
    await page.screenshot({ path: path.join(DOCS, 'judging-dark.png') });
    // Back to following the system, for the tests after this one.
    await page.getByTestId('theme-toggle').click();
    await page.getByTestId('theme-toggle').click();
    await page.getByRole('button', { name: 'Theme: system' }).waitFor();
  });
});

describe('pack mode', () => {
  it('shows only the judging shell, and ends by saying where the results are', async () => {
    const pack = tmp.file('ann.awbpack');
    expect(awbJson<{ items: number }>(['pack', 'export', '--campaign', String(campaignId), '--annotator', 'ann', '--out', pack, '--db', dbFile]).json.items).toBe(5);
    const annotator = await startServer(['--db', tmp.file('empty.db'), '--pack', pack], { AWB_HOME: tmp.file('pack-home') });
    try {
      await page.goto(annotator.url);
      await page.getByTestId('pack-shell').waitFor();
      await page.getByText('item 1 of 5').waitFor();
      // No views of a database the annotator does not have, and no database path.
      expect(await page.getByRole('navigation', { name: 'Views' }).count()).toBe(0);
      expect(await page.getByTestId('statusbar').count()).toBe(0);
      expect(await page.locator('body').innerText()).not.toContain('empty.db');
      await page.screenshot({ path: path.join(DOCS, 'pack-mode.png') });
      for (let item = 1; item <= 5; item++) {
        await page.getByText(`item ${item} of 5`).waitFor();
        for (const key of ['y', 'y', 'n']) await page.keyboard.press(key);
      }
      await page.getByTestId('completion').filter({ hasText: 'All 5 items judged' }).waitFor();
      expect(await page.getByTestId('completion-results').innerText()).toContain(`${pack}.results.jsonl`);
      expect(await page.getByTestId('completion').getByRole('link', { name: 'Back to the campaign' }).count()).toBe(0);
      await page.getByTestId('save-state').filter({ hasText: 'all saved' }).waitFor();
      const lines = fs.readFileSync(`${pack}.results.jsonl`, 'utf8').trim().split('\n');
      expect(lines.filter((l) => (JSON.parse(l) as { type?: string }).type === 'judgment')).toHaveLength(15);
    } finally {
      // Leave the page first: stopping a server under an open event stream is a page error.
      await page.goto('about:blank');
      await annotator.stop();
    }
    // Back with the maintainer: the results file merges into the campaign, all 15 decisions.
    const merged = awbJson<{ imported: number }>(['pack', 'import', pack, '--db', dbFile]);
    expect(merged.json.imported).toBe(15);
  });

  it('raised no errors in the page', () => {
    expect(pageErrors, pageErrors.join('\n')).toEqual([]);
  });
});
