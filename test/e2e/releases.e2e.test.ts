/// <reference lib="dom" />
import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../db/connection';
import type { ImportReport, ReleaseDiff, ReleaseSummary } from '../../shared/api';
import { awbJson, startServer } from '../helpers/cli';
import { tempDir, writeFile } from '../helpers/db';
import { richRecord } from '../helpers/release-fixture';
import { openWorkbench, type WorkbenchPage } from './workbench-page';

/**
 * The maintainer's task end to end, by keyboard and mouse in browser mode: a first release made
 * with the CLI; then half the instances validated in a campaign and one question edited; then the
 * second version made from the first ("New version…": everything carried over, the folder following
 * name and version), the gate showing its coverage and refusing until only validated instances are
 * kept, the reason Publish is blocked in the footer, published with Ctrl+Enter, downloaded as a zip,
 * and compared with the first: split moves named and counted first (as `awb release diff --json`
 * counts them), filtered by kind, and a changed question shown before and after.
 */

const tmp = tempDir('awb-e2e-release-');
const db = tmp.file('release.db');
let server: Awaited<ReturnType<typeof startServer>>;
let browser: Browser;
let page: Page;
let ui: WorkbenchPage;
let pageErrors: string[] = [];
let campaignId: number;
let first: ReleaseSummary;
let campaignItems: number;
let rejected: number;

beforeAll(async () => {
  const data = writeFile(tmp.file('rich.jsonl'), `${Array.from({ length: 24 }, (_, i) => JSON.stringify(richRecord(i))).join('\n')}\n`);
  expect(awbJson<ImportReport>(['import', data, '--format', 'awb', '--db', db]).json.committed).toBe(true);
  first = awbJson<ReleaseSummary>(['release', 'create', 'Rivers', '1.0.0', '--dataset', 'Rich', '--out', tmp.file('rivers-1.0.0'), '--db', db]).json;
  expect(first.counts).toEqual({ train: 20, test: 4 });
  // After 1.0.0: a validation campaign over half the instances (6 per type), three annotators; a
  // NO majority on every fourth item, which the second release leaves out.
  const campaign = awbJson<{ id: number; assignments: { instanceId: number; annotator: string }[] }>(['campaign', 'create', '--name', 'Rivers check', '--protocol', 'march-validation', '--annotators', 'ann,bob,cid', '--filter', 'dataset=Rich', '--per-type', '6', '--db', db]);
  expect(campaign.status).toBe(0);
  campaignId = campaign.json.id;
  const instances = [...new Set(campaign.json.assignments.map((a) => a.instanceId))];
  campaignItems = instances.length;
  const no = (instanceId: number, annotator: string) => instances.indexOf(instanceId) % 4 === 1 && annotator !== 'cid';
  rejected = instances.filter((_, k) => k % 4 === 1).length;
  const rows = campaign.json.assignments.flatMap((a) => ['ambiguity', 'clarification', 'long_answer'].map((criterion) => `${campaignId},${a.instanceId},${a.annotator},${criterion},${no(a.instanceId, a.annotator) ? 'no' : 'yes'},,`));
  const csv = writeFile(tmp.file('judgments.csv'), `campaign,instance_id,annotator,criterion,value,comment,created_at\n${rows.join('\n')}\n`);
  expect(awbJson<{ committed: boolean }>(['judgments', 'import', csv, '--campaign', String(campaignId), '--db', db]).json.committed).toBe(true);
  // And a question corrected (an instance the campaign kept).
  const edit = openDatabase(db);
  edit.prepare('UPDATE base_questions SET question = ? WHERE id = (SELECT base_question_id FROM instances WHERE id = ?)').run('Which river runs past the old mill town in Kent, England?', instances[0]);
  edit.close();
  server = await startServer(['--db', db], { AWB_HOME: tmp.file('home') });
  ({ browser, page, ui, pageErrors } = await openWorkbench(server.url));
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  tmp.cleanup();
});

describe("the maintainer's second release", () => {
  it('starts a new version from the last release with everything carried over and the folder following name and version', async () => {
    await ui.goto('/releases');
    await page.getByTestId('releases').getByRole('link', { name: 'Rivers 1.0.0' }).click();
    await page.getByTestId('release-title').filter({ hasText: 'Rivers 1.0.0' }).waitFor();
    expect(await page.getByTestId('release-detail-gate').innerText()).toMatch(/not checked[\s\S]*No campaign linked/);
    await page.getByTestId('new-version').click();
    await page.waitForURL(/\/releases\/new\?from=/);
    const dialog = page.getByTestId('release-dialog');
    await dialog.getByTestId('release-based-on').waitFor();
    expect(await dialog.locator('#release-name').inputValue()).toBe('Rivers');
    expect(await dialog.locator('#release-version').inputValue()).toBe('1.1.0');
    expect(await dialog.getByLabel('Rich').isChecked()).toBe(true);
    expect(await dialog.getByLabel('Split fractions').inputValue()).toBe('train=0.8,test=0.2');
    // Browser mode: no server path to type; the folder follows name and version.
    expect(await dialog.getByTestId('release-folder').innerText()).toMatch(/releases\/Rivers-1\.1\.0/);
    await dialog.locator('#release-version').fill('1.2.0');
    await dialog.getByTestId('release-folder').filter({ hasText: 'Rivers-1.2.0' }).waitFor();
    await dialog.locator('#release-version').fill('1.1.0');
    await page.getByTestId('release-counts').filter({ hasText: '24 instances' }).waitFor();
  });

  it('shows the gate refusing with its coverage, the reason in the footer, until only validated instances are kept', async () => {
    const dialog = page.getByTestId('release-dialog');
    await dialog.locator('#release-campaign').selectOption({ index: 1 });
    // Keyboard: into the judgments threshold, type it.
    await dialog.locator('#gate-judgments').focus();
    await page.keyboard.type('3');
    const gate = page.getByTestId('release-gate');
    await gate.filter({ hasText: 'judgments per instance' }).waitFor();
    expect(await page.getByTestId('release-gate-coverage').innerText()).toBe(`Coverage: campaign ${campaignId} judged ${campaignItems} of 24 selected instances (${Math.round((100 * campaignItems) / 24)}%)`);
    expect(await gate.innerText()).toMatch(new RegExp(`judgments per instance\\s+≥ 3\\s+0\\s+fail · ${24 - campaignItems} selected instances have no judgment`));
    expect(await gate.getByTestId('gate-verdict').innerText()).toBe('refused');
    const blocked = page.getByTestId('release-blocked');
    expect(await blocked.innerText()).toMatch(/The gate refuses: judgments per instance 0\. Give a reason to publish anyway/);
    expect(await page.getByTestId('release-publish').isDisabled()).toBe(true);
    // The footer stays in sight however long the form is.
    expect(await page.getByTestId('release-footer').isVisible()).toBe(true);
    await dialog.getByLabel('only instances with a positive verdict').check();
    await page.getByTestId('release-counts').filter({ hasText: `${campaignItems - rejected} instances` }).waitFor();
    await gate.getByTestId('gate-verdict').filter({ hasText: 'passed' }).waitFor();
    expect(await page.getByTestId('release-gate-coverage').innerText()).toMatch(new RegExp(`judged ${campaignItems - rejected} of ${campaignItems - rejected} selected instances \\(100%\\)`));
    await blocked.waitFor({ state: 'detached' });
    expect(await page.getByTestId('release-card').getByRole('heading', { name: 'Rivers 1.1.0' }).isVisible()).toBe(true);
    await ui.docsScreenshot('releases');
    // Typing a description: the card shows it (the preview reuses its plan, with the new text).
    await dialog.locator('#release-description').fill('Rivers of the north, checked twice.');
    await page.getByTestId('release-card').filter({ hasText: 'Rivers of the north, checked twice.' }).waitFor();
    expect(await page.getByTestId('release-counts').innerText()).toMatch(new RegExp(`${campaignItems - rejected} instances`));
  });

  it('publishes with Ctrl+Enter, downloads the zip, and compares with the previous version: split moves first', async () => {
    await page.getByTestId('release-dialog').locator('#release-description').focus();
    await page.keyboard.press('Control+Enter');
    await page.getByTestId('release-title').filter({ hasText: 'Rivers 1.1.0' }).waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('release-detail-gate').getByTestId('gate-verdict').innerText()).toBe('passed');
    const download = page.waitForEvent('download');
    await page.getByTestId('release-zip').click();
    expect((await download).suggestedFilename()).toBe('Rivers-1.1.0.zip');
    expect(fs.readdirSync(tmp.file('releases/Rivers-1.1.0')).sort()).toEqual(['README.md', 'checksums.sha256', 'data', 'release.json']);

    await page.getByTestId('compare-previous').click();
    await page.getByTestId('release-diff-moves').waitFor();
    const cli = awbJson<ReleaseDiff>(['release', 'diff', String(first.id), String(first.id! + 1), '--db', db]).json;
    expect(cli.moved).toBeGreaterThan(0);
    expect(await page.getByTestId('release-diff-moves').innerText()).toContain(`${cli.moved} instance${cli.moved === 1 ? '' : 's'} moved between splits: ${cli.moves.map((m) => `${m.count} ${m.from} → ${m.to}`).join(', ')}`);
    expect(await page.getByTestId('release-diff-summary').innerText()).toMatch(new RegExp(`${cli.moved} moved between splits\\s+0 added\\s+${cli.removed} removed\\s+${cli.changed} changed`));
    expect(cli.removed).toBe(24 - (campaignItems - rejected));
    const splits = await page.getByTestId('release-diff-splits').innerText();
    expect(splits).toMatch(/test[\s\S]*train/);
    // The moved rows come first; pressing "moved" shows only them.
    expect(await page.getByTestId('release-diff').locator('tbody tr').first().locator('td').first().innerText()).toBe('moved');
    await page.getByRole('button', { name: /moved between splits/ }).click();
    await page.waitForURL(/kind=moved/);
    await expect.poll(() => page.getByTestId('release-diff').locator('tbody tr').count()).toBe(cli.moved);
    // The corrected question, before and after, under whichever kind it landed.
    await page.getByRole('button', { name: /moved between splits/ }).click();
    await page.waitForURL((url) => !url.search.includes('kind='));
    const edited = page.getByTestId('release-diff').locator('tr', { hasText: 'in Kent, England?' });
    await edited.getByRole('button', { name: 'before / after' }).click();
    const changes = page.getByTestId('field-changes');
    expect(await changes.innerText()).toMatch(/base_question\.question\s+Which river \d+ runs past the old mill town\?\s+Which river runs past the old mill town in Kent, England\?/);
    expect(await edited.getByRole('link').getAttribute('href')).toMatch(/^\/instances\/\d+$/);
    await ui.docsScreenshot('release-diff', { fullPage: true });
    expect(pageErrors).toEqual([]);
  });
});
