/// <reference lib="dom" />
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHandlers, Workbench } from '../../electron/services';
import type { BaseQuestionRow, LabelView, Page as RowPage } from '../../shared/api';
import { awbJson } from '../helpers/cli';
import { api } from '../helpers/construction';
import { CONDAMBIGQA, ROOT, tempDir } from '../helpers/db';
import { serveAndOpen, type WorkbenchPage } from './workbench-page';

/**
 * Labels by hand: on a base question and on an instance, the answerability and the topic with
 * where each came from, changed from the keyboard, undone, and read back through the CLI.
 */

const tmp = tempDir('awb-e2e-labels-');
const db = tmp.file('labels.db');
let close: (() => Promise<void>) | undefined;
let page: Page;
let ui: WorkbenchPage;
let pageErrors: string[] = [];
let danube = 0;
let instance = 0;

const labelsOf = (target: string[]) => awbJson<LabelView>(['label', 'show', ...target, '--db', db]).json;

beforeAll(async () => {
  const workbench = new Workbench({ databasePath: db, mode: 'browser', version: 'test' });
  try {
    const { job, value } = api(createHandlers(workbench), workbench);
    await job('dataset:import', { path: `${ROOT}/test/fixtures/squad2_sample.json`, format: 'squad2', dataset: 'squad' });
    await job('dataset:import', { path: CONDAMBIGQA, format: 'condambigqa', dataset: 'cond' });
    const found = (await value('base-question:list', { search: 'Danube' } as never)) as RowPage<BaseQuestionRow>;
    danube = found.rows[0]!.id;
    const instances = (await value('instance:list', {} as never)) as RowPage<{ id: number }>;
    instance = instances.rows[0]!.id;
  } finally {
    workbench.close();
  }
  ({ page, ui, pageErrors, close } = await serveAndOpen(db, tmp.file('home')));
});

afterAll(async () => {
  await close?.();
  tmp.cleanup();
});

describe('labels by hand', () => {
  it("shows a base question's answerability from the dataset, changes it from the keyboard, and undoes it", async () => {
    await ui.goto(`/base-questions/${danube}`);
    const card = page.getByTestId('labels');
    const select = card.locator('#label-answerability');
    const source = card.getByTestId('answerability-source');
    await source.filter({ hasText: 'From the dataset “squad”' }).waitFor();
    expect(await select.inputValue()).toBe('unanswerable');
    await page.keyboard.press('a');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('label-answerability');
    // One option up from "unanswerable" is "ambiguous".
    await page.keyboard.press('ArrowUp');
    await source.filter({ hasText: /^Set by hand$/ }).waitFor();
    expect(await select.inputValue()).toBe('ambiguous');
    // The screen shows a choice at once; the stored label follows when its write lands.
    await expect.poll(() => labelsOf(['--base-question', String(danube)]).answerability?.label, { timeout: 10_000 }).toBe('ambiguous');
    expect(labelsOf(['--base-question', String(danube)]).answerability).toMatchObject({ label: 'ambiguous', provenance: { source: 'human' } });
    await ui.docsScreenshot('labels-base-question');
    await card.getByRole('button', { name: 'Undo' }).click();
    await card.getByRole('button', { name: 'Undo' }).waitFor({ state: 'detached' });
    await page.waitForFunction(() => (document.querySelector('#label-answerability') as HTMLSelectElement | null)?.value === 'unanswerable');
    await expect.poll(() => labelsOf(['--base-question', String(danube)]).answerability?.label, { timeout: 10_000 }).toBe('unanswerable');
    expect(labelsOf(['--base-question', String(danube)]).answerability).toMatchObject({ label: 'unanswerable', provenance: { source: 'human' } });
  });

  it("sets an instance's topic and answerability of its own, undoes the topic, and keeps the rest after a reload", async () => {
    await ui.goto(`/instances/${instance}`);
    const card = page.getByTestId('labels');
    await card.getByTestId('topic-source').filter({ hasText: 'Not tagged' }).waitFor();
    expect(await card.getByTestId('answerability-source').innerText()).toBe('Not labelled');
    await card.locator('#label-answerability').selectOption('ambiguous');
    await card
      .getByTestId('answerability-source')
      .filter({ hasText: /^Set by hand$/ })
      .waitFor();
    await page.keyboard.press('Escape');
    await ui.goto(`/instances/${instance}`);
    await card
      .getByTestId('answerability-source')
      .filter({ hasText: /^Set by hand$/ })
      .waitFor();
    await page.keyboard.press('t');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('label-topic');
    // Three steps down from "no topic": Science & Technology, Math & Logic, History.
    for (const _ of [1, 2, 3]) await page.keyboard.press('ArrowDown');
    await page.waitForFunction(() => (document.querySelector('#label-topic') as HTMLSelectElement | null)?.value === 'history');
    await card
      .getByTestId('topic-source')
      .filter({ hasText: /^Set by hand$/ })
      .waitFor();
    // Stored in the order made: the last step is what stays, once its write has landed.
    await expect.poll(() => labelsOf(['--instance', String(instance)]).domain?.domain, { timeout: 10_000 }).toBe('history');
    expect(labelsOf(['--instance', String(instance)])).toMatchObject({ answerability: { label: 'ambiguous', from: 'instance' }, domain: { domain: 'history', provenance: { source: 'human' } } });
    await page.locator('body').click({ position: { x: 5, y: 300 } });
    await ui.docsScreenshot('labels-instance');
    // Undo goes back past the three steps, to no topic.
    await card.getByRole('button', { name: 'Undo' }).click();
    await card.getByTestId('topic-source').filter({ hasText: 'Not tagged' }).waitFor();
    await expect.poll(() => labelsOf(['--instance', String(instance)]).domain, { timeout: 10_000 }).toBeNull();
    const after = labelsOf(['--instance', String(instance)]);
    expect(after.domain).toBeNull();
    expect(after.answerability).toMatchObject({ label: 'ambiguous', from: 'instance' });
    expect(pageErrors).toEqual([]);
  });
});
