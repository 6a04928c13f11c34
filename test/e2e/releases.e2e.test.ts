/// <reference lib="dom" />
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ImportReport, ReleaseSummary } from '../../shared/api';
import { awbJson, startServer } from '../helpers/cli';
import { ROOT, tempDir, writeFile } from '../helpers/db';
import { richRecord } from '../helpers/release-fixture';
import { openWorkbench, type WorkbenchPage } from './workbench-page';

/**
 * The Releases page end to end: a release made with the CLI, then one made in the create dialog
 * (live counts, the gate's checks, the card before publishing), listed, downloaded as a zip in
 * browser mode, and compared with the first.
 */

const tmp = tempDir('awb-e2e-release-');
let server: Awaited<ReturnType<typeof startServer>>;
let browser: Browser;
let page: Page;
let ui: WorkbenchPage;
let pageErrors: string[] = [];

beforeAll(async () => {
  const db = tmp.file('release.db');
  const data = writeFile(tmp.file('rich.jsonl'), `${Array.from({ length: 24 }, (_, i) => JSON.stringify(richRecord(i))).join('\n')}\n`);
  expect(awbJson<ImportReport>(['import', data, '--format', 'awb', '--db', db]).json.committed).toBe(true);
  // A validation campaign over every instance, three annotators, with their judgments as a CSV file.
  const campaign = awbJson<{ id: number; assignments: { instanceId: number; annotator: string }[] }>(['campaign', 'create', '--name', 'Rivers check', '--protocol', 'march-validation', '--annotators', 'ann,bob,cid', '--filter', 'dataset=Rich', '--db', db]);
  expect(campaign.status).toBe(0);
  const rows = campaign.json.assignments.flatMap((a, n) =>
    ['ambiguity', 'clarification', 'long_answer'].map((criterion) => `${campaign.json.id},${a.instanceId},${a.annotator},${criterion},${n % 7 === 3 && criterion === 'ambiguity' ? 'no' : 'yes'},,`),
  );
  const csv = writeFile(tmp.file('judgments.csv'), `campaign,instance_id,annotator,criterion,value,comment,created_at\n${rows.join('\n')}\n`);
  expect(awbJson<{ committed: boolean }>(['judgments', 'import', csv, '--campaign', String(campaign.json.id), '--db', db]).json.committed).toBe(true);
  const first = awbJson<ReleaseSummary>(['release', 'create', 'Rivers', '1.0.0', '--dataset', 'Rich', '--type', 'semantic', '--out', tmp.file('rivers-1.0.0'), '--db', db]);
  expect(first.status).toBe(0);
  server = await startServer(['--db', db], { AWB_HOME: tmp.file('home') });
  ({ browser, page, ui, pageErrors } = await openWorkbench(server.url));
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  tmp.cleanup();
});

describe('the releases page', () => {
  it('creates a release in the dialog with live counts, gate checks and the card, then lists it', async () => {
    await ui.goto('/releases');
    await page.getByTestId('releases').getByText('Rivers 1.0.0').waitFor();
    await page.getByTestId('new-release').click();
    const dialog = page.getByTestId('release-dialog');
    await dialog.locator('#release-name').fill('Rivers');
    await dialog.locator('#release-version').fill('1.1.0');
    await dialog.getByLabel('Rich').check();
    await dialog.locator('#gate-judgments').fill('1');
    // No campaign linked: a judgments threshold cannot be measured, so the gate refuses.
    await page.getByTestId('release-gate').filter({ hasText: 'judgments per instance' }).waitFor();
    expect(await page.getByTestId('release-gate').innerText()).toMatch(/judgments per instance\s+≥ 1\s+—\s+fail/);
    expect(await page.getByTestId('release-publish').isDisabled()).toBe(true);
    // With the campaign linked, every check can be measured and passes.
    await dialog.locator('#release-campaign').selectOption({ index: 1 });
    await dialog.locator('#gate-judgments').fill('3');
    await dialog.locator('#gate-yes').fill('0.8');
    await page.getByTestId('release-gate').filter({ hasText: 'YES rate: long_answer' }).waitFor();
    expect(await page.getByTestId('release-gate').innerText()).toMatch(/judgments per instance\s+≥ 3\s+3\s+pass/);
    expect(await page.getByTestId('release-gate').innerText()).not.toMatch(/fail/);
    await page.getByTestId('release-counts').filter({ hasText: '24 instances' }).waitFor();
    expect(await page.getByTestId('release-counts').innerText()).toMatch(/train 20 · test 4/);
    const card = page.getByTestId('release-card');
    await card.getByRole('heading', { name: 'Rivers 1.1.0' }).waitFor();
    expect(await card.innerText()).toMatch(/Interpretations per instance/);
    await card.getByRole('heading', { name: 'Human validation' }).waitFor();
    await dialog.locator('#release-out').fill(tmp.file('rivers-1.1.0'));
    await ui.screenshot('40-release-dialog');
    fs.mkdirSync(path.join(ROOT, 'docs', 'screenshots'), { recursive: true });
    await page.screenshot({ path: path.join(ROOT, 'docs', 'screenshots', 'releases.png') });
    await page.getByTestId('release-publish').click();
    await page.getByTestId('release-title').filter({ hasText: 'Rivers 1.1.0' }).waitFor({ timeout: 30_000 });
    expect(fs.readdirSync(tmp.file('rivers-1.1.0')).sort()).toEqual(['README.md', 'checksums.sha256', 'data', 'release.json']);
    expect(await page.getByTestId('release-files').innerText()).toMatch(/data\/train-00000-of-00001\.parquet\s+20/);
    const download = page.waitForEvent('download');
    await page.getByTestId('release-zip').click();
    expect((await download).suggestedFilename()).toBe('Rivers-1.1.0.zip');
    await ui.goto('/releases');
    await page.getByTestId('releases').getByText('Rivers 1.1.0').waitFor();
    expect(await page.getByTestId('releases').locator('tbody tr').count()).toBe(2);
  });

  it('shows what changed between two versions', async () => {
    await page.getByLabel('Before').selectOption({ label: 'Rivers 1.0.0' });
    await page.getByLabel('After').selectOption({ label: 'Rivers 1.1.0' });
    await page.getByRole('button', { name: 'Show differences' }).click();
    await page.getByTestId('release-diff-summary').waitFor();
    expect(await page.getByTestId('release-diff-summary').innerText()).toMatch(/12 added\s+0 removed\s+0 changed\s+12 unchanged/);
    expect(await page.getByTestId('release-diff').locator('tbody tr').count()).toBe(12);
    await ui.screenshot('41-release-diff');
    expect(pageErrors).toEqual([]);
  });
});
