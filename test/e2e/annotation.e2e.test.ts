/// <reference lib="dom" />
// Functions passed to page.evaluate and waitForFunction run in the browser.
import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../db/connection';
import type { ImportReport } from '../../shared/api';
import { awbJson, startServer } from '../helpers/cli';
import { ASQA, tempDir, writeFile } from '../helpers/db';
import { fillInstances, rng } from '../helpers/synthetic';
import { countCalls, openWorkbench, type WorkbenchPage } from './workbench-page';

/**
 * Annotation end to end: a campaign over real ASQA instances judged from the keyboard, an
 * agreement report over simulated judgments of typed instances, adjudication, a new campaign
 * made in the UI and the protocol editor. (The annotator's whole task, pack mode included, is
 * annotator.e2e.test.ts.)
 */

const tmp = tempDir('awb-e2e-annotation-');
const dbFile = tmp.file('annotation.db');
let server: Awaited<ReturnType<typeof startServer>>;
let browser: Browser;
let page: Page;
let ui: WorkbenchPage;
let pageErrors: string[] = [];
let judgingCampaign: number;
let agreementCampaign: number;

interface CampaignJson {
  id: number;
  items: number[];
  assignments: { instance_id: number; annotator: string }[];
}

const RATERS = ['ann', 'bob', 'cid', 'dee', 'eve'];

/** Five raters over 60 typed items: mostly agreeing, one criterion almost always YES. */
function simulatedJudgments(campaign: CampaignJson): string {
  const random = rng(5);
  const lines = ['campaign,instance_id,annotator,criterion,value,comment,created_at'];
  const prevalence: Record<string, number> = { ambiguity: 0.8, long_answer: 0.7 };
  campaign.items.forEach((id, item) => {
    for (const [criterion, p] of Object.entries(prevalence)) {
      const truth = random() < p;
      for (const rater of RATERS) lines.push(`${campaign.id},${id},${rater},${criterion},${truth === random() < 0.85 ? 'yes' : 'no'},,2026-11-01T10:00:00Z`);
    }
    // As in MARCH Table 8: all but two ratings YES, so raw agreement is high and κ is near zero.
    RATERS.forEach((rater, r) => lines.push(`${campaign.id},${id},${rater},clarification,${item < 2 && r === 0 ? 'no' : 'yes'},,2026-11-01T10:00:00Z`));
  });
  return `${lines.join('\n')}\n`;
}

beforeAll(async () => {
  const db = openDatabase(dbFile);
  fillInstances(db, 240, 3);
  db.close();
  const imported = awbJson<ImportReport>(['import', ASQA, '--format', 'asqa', '--dataset', 'ASQA dev (sample)', '--db', dbFile]);
  expect(imported.json.committed).toBe(true);
  judgingCampaign = awbJson<CampaignJson>([
    'campaign', 'create', '--name', 'ASQA check', '--protocol', 'march-validation', '--annotators', 'ann,bob', '--filter', 'dataset=ASQA dev (sample)',
    '--per-type', '6', '--seed', '2', '--db', dbFile,
  ]).json.id;
  const agreement = awbJson<CampaignJson>([
    'campaign', 'create', '--name', 'MARCH-style validation', '--protocol', 'march-validation', '--annotators', 'ann,bob,cid,dee,eve',
    '--filter', 'dataset=synthetic A', '--per-type', '20', '--seed', '9', '--db', dbFile,
  ]).json;
  agreementCampaign = agreement.id;
  const file = writeFile(tmp.file('simulated.csv'), simulatedJudgments(agreement));
  expect(awbJson<{ committed: boolean }>(['judgments', 'import', file, '--campaign', String(agreement.id), '--db', dbFile]).json.committed).toBe(true);

  server = await startServer(['--db', dbFile], { AWB_HOME: tmp.file('home') });
  ({ browser, page, ui, pageErrors } = await openWorkbench(server.url));
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  tmp.cleanup();
});

async function criterionValue(id: string): Promise<string | null> {
  const chosen = page.locator(`[data-criterion="${id}"] .choice.chosen`);
  return (await chosen.count()) ? (await chosen.innerText()).replace(/^\S+\s+/, '') : null;
}

describe('judging', () => {
  it('takes every decision from the keyboard, saves it, undoes and skips', async () => {
    await ui.goto(`/campaigns/${judgingCampaign}`);
    const opening = countCalls(page);
    await page.getByRole('link', { name: 'Judge as ann' }).click();
    await page.getByTestId('judging').waitFor();
    await page.getByText('item 1 of 6').waitFor();
    // The first item, and the next one fetched ahead while the first is read.
    await expect.poll(() => opening.counts['judging:item']).toBe(2);
    opening.stop();
    const judging = countCalls(page);
    // The item on screen (the one a decision moves to is rendered ahead, hidden).
    const question = () => page.locator('[data-testid="judged-item"]:visible').getByTestId('original-question');
    const firstQuestion = await question().innerText();
    expect(await page.locator('[data-criterion="ambiguity"]').getAttribute('aria-current')).toBe('true');
    expect(await page.locator('[data-criterion="ambiguity"] .choice').first().innerText()).toMatch(/Y\s+YES/);

    await page.keyboard.press('y');
    await page.locator('[data-criterion="clarification"][aria-current="true"]').waitFor();
    await page.keyboard.press('n');
    await page.keyboard.press('2'); // 2 means no
    await page.getByText('item 2 of 6').waitFor();
    await page.getByTestId('judge-progress').filter({ hasText: /1\s*\/\s*6 done/ }).waitFor();
    expect(await question().innerText()).not.toBe(firstQuestion);

    await page.keyboard.press('u');
    await page.getByText('item 1 of 6').waitFor();
    await page.getByTestId('judge-notice').filter({ hasText: /Undone: Long answer consistent on item 1/ }).waitFor();
    // One call per decision: the queue's counts follow from the saved items, never fetched again.
    // Besides: item 3 fetched ahead once item 2 showed, and item 1 read back after the undo.
    judging.stop();
    expect(judging.counts).toEqual({ 'judging:decide': 3, 'judging:item': 2, 'judging:undo': 1 });
    expect(await criterionValue('long_answer')).toBeNull();
    expect(await criterionValue('clarification')).toBe('NO');
    expect(await page.locator('[data-criterion="long_answer"]').getAttribute('aria-current')).toBe('true');
    await page.keyboard.press('1');
    await page.getByText('item 2 of 6').waitFor();

    // A comment on the current criterion, from the keyboard.
    await page.keyboard.press('c');
    await page.keyboard.type('Interpretation 2 is a paraphrase of interpretation 1.');
    await page.keyboard.press('Control+Enter');
    await page.getByText('“Interpretation 2 is a paraphrase of interpretation 1.”').waitFor();

    await page.keyboard.press('s');
    await page.getByText('item 3 of 6').waitFor();
    expect(await page.locator('.judge-strip .cell.skipped').count()).toBe(1);
    await page.getByTestId('save-state').filter({ hasText: 'all saved' }).waitFor();
    await ui.screenshot('20-judging');

    // Everything is on disk: a reload shows the same state.
    await page.reload();
    await page.getByText('item 3 of 6').waitFor();
    await page.getByTestId('judge-progress').filter({ hasText: /1\s*\/\s*6 done/ }).waitFor();
    await page.keyboard.press('k');
    await page.getByText('item 2 of 6').waitFor();
    expect(await page.getByText('“Interpretation 2 is a paraphrase of interpretation 1.”').count()).toBe(1);
  });

  it('shows the judging keys and the guidelines', async () => {
    await page.keyboard.press('?');
    await page.getByRole('dialog', { name: 'Judging keys' }).waitFor();
    expect(await page.getByRole('dialog', { name: 'Judging keys' }).innerText()).toMatch(/undo the last decision/);
    await page.keyboard.press('Escape');
    await page.keyboard.press('h');
    const drawer = page.getByRole('dialog', { name: 'Guidelines' });
    await drawer.waitFor();
    expect(await drawer.locator('header h2').innerText()).toMatch(/MARCH validation/);
    await ui.screenshot('21-guidelines');
    await page.keyboard.press('Escape');
    await drawer.waitFor({ state: 'detached' });
  });

  it('shows no stage, trace or automatic check in a blind campaign, which the instance page shows', async () => {
    await ui.goto(`/campaigns/${judgingCampaign}`);
    await page.getByRole('link', { name: 'Judge as bob' }).click();
    await page.getByTestId('judging').waitFor();
    const side = page.locator('[data-testid="judged-item"]:visible');
    await side.getByTestId('instance-head').waitFor();
    const head = await side.getByTestId('instance-head').innerText();
    expect(head).toMatch(/blind review/);
    expect(head).not.toMatch(/stage|trace/);
    expect(await side.getByRole('link', { name: 'trace' }).count()).toBe(0);
    // The long answer and the short answers are judged without the pipeline's own checks beside them.
    await side.getByTestId('long-answer').first().waitFor();
    expect(await side.getByTestId('long-answer-checks').count()).toBe(0);
    expect(await side.locator('.flag-ok, .flag-bad, .flag-warn').count()).toBe(0);
    expect(await side.getByTestId('long-answer').locator('mark, .cite-dot').count()).toBe(0);
    await ui.screenshot('22-blind-judging');
    const id = /#(\d+)/.exec(await side.getByTestId('instance-id').innerText())![1];
    await ui.goto(`/instances/${id}`);
    await page.getByTestId('long-answer-checks').first().waitFor();
    expect(await page.getByTestId('instance-head').innerText()).toMatch(/stage imported/);
  });

  it('reports the campaign progress per annotator', async () => {
    await ui.goto(`/campaigns/${judgingCampaign}`);
    const row = page.getByTestId('campaign-progress').locator('tbody tr').filter({ hasText: /^ann/ });
    await row.waitFor();
    expect(await row.innerText()).toMatch(/1\/6\s+1/);
  });
});

describe('agreement', () => {
  it('lays out YES rates and agreement like the papers, explains the prevalence paradox, and charts each criterion', async () => {
    await ui.goto(`/campaigns/${agreementCampaign}/agreement`);
    const table = page.getByTestId('agreement-table');
    await table.waitFor();
    const text = await table.innerText();
    expect(text).toMatch(/Ambiguous as stated\s+0\.\d{3}\s+\[/);
    expect(await page.getByTestId('validity-table').innerText()).toMatch(/All fields valid/);
    expect(await page.getByTestId('validity-table').locator('th').allInnerTexts()).toEqual(['Criterion', 'constraint', 'semantic', 'syntactic', 'all', "Fleiss' κ"]);
    await page.getByTestId('paradox-note').waitFor();
    expect(await page.getByTestId('paradox-note').innerText()).toMatch(/Interpretations resolve it/);
    expect(await page.getByTestId('criterion-chart').count()).toBe(3);
    expect(await page.getByTestId('criterion-chart').first().locator('.recharts-bar-rectangle').count()).toBeGreaterThan(4);
    await ui.screenshot('22-agreement');

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'LaTeX' }).nth(1).click()]);
    expect(download.suggestedFilename()).toBe(`campaign-${agreementCampaign}-agreement.tex`);
    const latex = fs.readFileSync((await download.path())!, 'utf8');
    expect(latex).toContain('\\begin{tabular}');
    expect(latex).toContain('Ambiguous as stated');
  });

  it('lists disagreements with who said what, and an adjudication takes one off the list', async () => {
    await ui.goto(`/campaigns/${agreementCampaign}/disagreements`);
    const cards = page.getByTestId('disagreement');
    await cards.first().waitFor();
    const before = await cards.count();
    expect(await cards.first().locator('.vote').count()).toBe(5);
    const first = cards.first();
    await first.getByLabel('Final label').selectOption('yes');
    await first.getByLabel('Reason').fill('Majority view; the dissent misread the question');
    await first.getByLabel('Adjudicator').fill('lead');
    await first.getByRole('button', { name: 'Adjudicate' }).click();
    await page.waitForFunction((n) => document.querySelectorAll('[data-testid="disagreement"]').length === n - 1, before);
    await ui.screenshot('23-disagreements');
  });
});

describe('campaigns and protocols in the UI', () => {
  it('creates a stratified campaign from the form, with a live count', async () => {
    await ui.goto('/campaigns/new');
    await page.locator('#campaign-name').fill('Second round');
    await page.locator('#campaign-annotators').fill('ann, bob, cid');
    await page.locator('#campaign-k').fill('2');
    await page.getByLabel('synthetic B').check();
    await page.locator('#campaign-per-type').fill('5');
    await page.getByTestId('campaign-preview').filter({ hasText: /^15 instances \(/ }).waitFor();
    expect(await page.getByTestId('campaign-preview').innerText()).toMatch(/30 judgments of each criterion, about 10 items per annotator/);
    await ui.screenshot('24-new-campaign');
    await page.getByRole('button', { name: 'Create campaign' }).click();
    await page.getByTestId('campaign-name').filter({ hasText: 'Second round' }).waitFor();
    expect(await page.getByTestId('campaign-progress').locator('tbody tr').count()).toBe(3);
    expect(await page.getByTestId('campaign-progress').innerText()).toMatch(/0\/10/);
  });

  it('duplicates a built-in protocol, edits it, and saves it as a new protocol', async () => {
    await ui.goto('/protocols/march-validation');
    await page.getByTestId('protocol-detail').waitFor();
    await page.getByRole('button', { name: 'Duplicate' }).click();
    await page.locator('#protocol-key').fill('march-validation-strict');
    await page.locator('#protocol-name').fill('MARCH validation, strict');
    await page.getByTestId('criterion-editor').nth(2).getByLabel('Scale').selectOption('ordinal');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByTestId('protocol-detail').filter({ hasText: 'MARCH validation, strict' }).waitFor();
    expect(await page.getByTestId('protocol-detail').innerText()).toMatch(/march-validation-strict v1/);
    expect(await page.getByTestId('protocol-detail').innerText()).toMatch(/1–5/);
  });
});

describe('the page', () => {
  it('raised no errors in the page', () => {
    expect(pageErrors, pageErrors.join('\n')).toEqual([]);
  });
});
