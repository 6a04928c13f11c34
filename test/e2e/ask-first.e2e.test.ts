/// <reference lib="dom" />
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeItem } from '../../electron/dev/fake-model';
import { createHandlers, Workbench } from '../../electron/services';
import type { AskFirstRun } from '../../shared/api';
import { answerAsFakeModel, api } from '../helpers/construction';
import { ROOT, tempDir } from '../helpers/db';
import { startFakeOpenAI, type FakeOpenAI } from '../helpers/fake-openai';
import { serveAndOpen, type WorkbenchPage } from './workbench-page';

/**
 * The ask-first screens: a run over the SQuAD 2.0 fixture (answerable questions answered,
 * unanswerable ones refused but one), listed with its accuracy per label, then opened; and a run
 * started from the form, which says what is missing until it can start.
 */

const tmp = tempDir('awb-e2e-ask-first-');
let fake: FakeOpenAI;
let close: (() => Promise<void>) | undefined;
let page: Page;
let ui: WorkbenchPage;
let pageErrors: string[] = [];
let runId = 0;
let endpoints = '';

const items: FakeItem[] = [
  { question: 'Where does the Vltava join the Elbe?', askFirst: { action: 'answer', answer: 'Melnik' } },
  { question: 'Where does the Vltava join the Danube?', askFirst: { action: 'no_answer' } },
  { question: 'Who finished the Charles Bridge?', askFirst: { action: 'answer', answer: 'Peter Parler' } },
  { question: 'How many bassoons did a romantic orchestra have?', askFirst: { action: 'no_answer' } },
];

beforeAll(async () => {
  fake = await startFakeOpenAI();
  answerAsFakeModel(fake, items);
  const db = tmp.file('ask.db');
  const workbench = new Workbench({ databasePath: db, mode: 'browser', version: 'test' });
  try {
    const { job } = api(createHandlers(workbench), workbench);
    await job('dataset:import', { path: `${ROOT}/test/fixtures/squad2_sample.json`, format: 'squad2', dataset: 'squad' });
    const config = { endpoints: { fake: { baseURL: fake.url, apiKeyEnv: 'AWB_TEST_KEY' } }, generator: { endpoint: 'fake', model: 'fake-generator' } };
    endpoints = JSON.stringify({ endpoints: config.endpoints, prices: {} }, null, 2);
    runId = ((await job('ask-first:start', { dataset: 'squad', config })).result as AskFirstRun).id;
  } finally {
    workbench.close();
  }
  ({ page, ui, pageErrors, close } = await serveAndOpen(db, tmp.file('home')));
});

afterAll(async () => {
  await close?.();
  await fake?.close();
  tmp.cleanup();
});

describe('ask-first screens', () => {
  it('lists the run with its accuracy per label and opens its table', async () => {
    await ui.goto('/ask-first');
    const list = page.getByTestId('ask-first-runs');
    await list.waitFor();
    // Unscripted, the fake answers with the first capitalised word of the first passage ("Vltava",
    // "Bassoon"): right only for the Elbe question. Two of the three unanswerable ones are refused.
    const row = (await list.locator('tbody tr').first().innerText()).split('\t');
    expect(row.slice(0, 4)).toEqual([`#${runId}`, 'squad', 'fake-generator', '7']);
    await list.getByRole('link', { name: `#${runId}` }).click();
    await page.waitForURL(new RegExp(`/ask-first/${runId}$`));
    const table = page.getByTestId('ask-first-table');
    await table.waitFor();
    expect((await table.locator('tbody tr').nth(0).innerText()).split('\t')).toEqual(['answerable', '4', '1', '25.0%', '4', '0', '0']);
    const unanswerable = (await table.locator('tbody tr').nth(1).innerText()).split('\t');
    expect(unanswerable).toEqual(['unanswerable', '3', '2', '66.7%', '1', '0', '2']);
    await ui.docsScreenshot('ask-first');
    expect(pageErrors).toEqual([]);
  });

  it('starts a run from the form, checked as you type, and lists its accuracy per label', async () => {
    await ui.goto('/ask-first');
    const form = page.getByTestId('ask-first-start');
    await form.waitFor();
    const start = form.getByRole('button', { name: 'Start' });
    const blocked = form.getByTestId('ask-first-blocked');
    await form.locator('#ask-config').fill('{"endpoints": ');
    await blocked.filter({ hasText: /^The config is not valid JSON/ }).waitFor();
    expect(await start.isDisabled()).toBe(true);
    await form.locator('#ask-config').fill(endpoints);
    await form.locator('#ask-model').fill('elsewhere/form-reader');
    await blocked.filter({ hasText: 'The config has no endpoint “elsewhere” (it has fake).' }).waitFor();
    await form.locator('#ask-model').fill('fake/form-reader');
    await blocked.filter({ hasText: 'Choose a dataset.' }).waitFor();
    await form.locator('#ask-dataset').selectOption('squad');
    await form.locator('#ask-limit').fill('0');
    await blocked.filter({ hasText: /^At most: a whole number above 0/ }).waitFor();
    await form.locator('#ask-limit').fill('3');
    await blocked.waitFor({ state: 'detached' });
    await start.click();
    // The first three labelled questions in import order: the Elbe one answered right, the
    // length of the Vltava answered wrong (the fake says "Vltava"), the Danube one refused.
    const card = page.getByTestId('ask-first-job');
    await card.getByRole('link', { name: /^Open run #\d+$/ }).waitFor({ timeout: 60_000 });
    const list = page.getByTestId('ask-first-runs');
    const row = list.locator('tbody tr', { hasText: 'form-reader' });
    await row.waitFor();
    expect((await row.innerText()).split('\t').slice(1)).toEqual(['squad', 'form-reader', '3', '66.7%', '50.0%', '100.0%', '–']);
    await ui.docsScreenshot('ask-first-start');
    await card.getByRole('link', { name: /^Open run/ }).click();
    await page.waitForURL(/\/ask-first\/\d+$/);
    const table = page.getByTestId('ask-first-table');
    await table.waitFor();
    expect((await table.locator('tbody tr').nth(0).innerText()).split('\t')).toEqual(['answerable', '2', '1', '50.0%', '2', '0', '0']);
    expect(pageErrors).toEqual([]);
  });
});
