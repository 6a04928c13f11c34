/// <reference lib="dom" />
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeItem } from '../../electron/dev/fake-model';
import { createHandlers, Workbench } from '../../electron/services';
import type { CampaignView } from '../../shared/api';
import { answerAsFakeModel, api, prizeRecord, reviewCampaign } from '../helpers/construction';
import { tempDir, writeFile } from '../helpers/db';
import { startFakeOpenAI, type FakeOpenAI } from '../helpers/fake-openai';
import { serveAndOpen, type WorkbenchPage } from './workbench-page';

/**
 * The construction rounds screen: ten questions drafted by the fake model over three rounds (right
 * from round 1: 4, round 2: 3, round 3: 2, never: 1), reviewed by a scripted reviewer, then shown
 * at /rounds/prizes as a table and charts of acceptance, cost and time per round.
 */

const tmp = tempDir('awb-e2e-rounds-');
let fake: FakeOpenAI;
let close: (() => Promise<void>) | undefined;
let page: Page;
let ui: WorkbenchPage;
let pageErrors: string[] = [];

async function buildRounds(db: string): Promise<void> {
  const items: FakeItem[] = [];
  answerAsFakeModel(fake, items);
  const lines = [...Array(10).keys()].map((i) => {
    const { record, item } = prizeRecord('prizes', i);
    item.rounds = i < 4 ? 1 : i < 7 ? 2 : i < 9 ? 3 : 0;
    items.push(item);
    return JSON.stringify(record);
  });
  const workbench = new Workbench({ databasePath: db, mode: 'browser', version: 'test' });
  try {
    const handlers = createHandlers(workbench);
    const { value, job } = api(handlers, workbench);
    const config = { endpoints: { fake: { baseURL: fake.url, apiKeyEnv: 'AWB_TEST_KEY' } }, generator: { endpoint: 'fake', model: 'fake-generator' }, prices: { 'fake-generator': { input: 1, output: 4 } } };
    await job('dataset:import', { path: writeFile(tmp.file('prizes.jsonl'), `${lines.join('\n')}\n`), format: 'awb' });
    await job('round:start', { dataset: 'prizes', config });
    for (let round = 1; round <= 3; round++) {
      const campaign = (await value('round:review', { dataset: 'prizes', annotators: ['ann'] })) as CampaignView;
      await reviewCampaign(handlers, workbench, campaign.id, 'ann', 45_000);
      await job('round:next', { dataset: 'prizes', config });
    }
  } finally {
    workbench.close();
  }
}

beforeAll(async () => {
  fake = await startFakeOpenAI();
  const db = tmp.file('rounds.db');
  await buildRounds(db);
  ({ page, ui, pageErrors, close } = await serveAndOpen(db, tmp.file('home')));
});

afterAll(async () => {
  await close?.();
  await fake?.close();
  tmp.cleanup();
});

describe('construction rounds screen', () => {
  it('shows acceptance rising over the rounds, with cost and review time per item', async () => {
    await ui.goto('/rounds');
    await page.getByLabel('Dataset').selectOption('prizes');
    await page.waitForURL(/\/rounds\/prizes$/);
    const table = page.getByTestId('round-funnel');
    await table.waitFor();
    const rows = await table.locator('tbody tr').allInnerTexts();
    expect(rows.map((r) => r.split('\t').slice(0, 8))).toEqual([
      ['1', '10', '10', '4', '6', '0', '40.0%', '40.0%'],
      ['2', '6', '6', '3', '3', '0', '50.0%', '70.0%'],
      ['3', '3', '3', '2', '1', '0', '66.7%', '90.0%'],
    ]);
    expect(rows.every((r) => r.includes('45.0 s'))).toBe(true);
    await expect(page.getByRole('heading', { name: /10 items: 9 accepted, 0 in progress, 1 given up/ }).isVisible()).resolves.toBe(true);
    await page.locator('.recharts-surface').first().waitFor();
    await ui.docsScreenshot('rounds', { fullPage: true });
    expect(pageErrors).toEqual([]);
  });
});
