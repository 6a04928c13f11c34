import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCampaign } from '../../electron/services/annotation/campaigns';
import { createHandlers, Workbench } from '../../electron/services';
import { dispatch } from '../../shared/api';
import { startServer } from '../helpers/cli';
import { ROOT, tempDir } from '../helpers/db';
import { fillInstances } from '../helpers/synthetic';
import { openWorkbench, type WorkbenchPage } from './workbench-page';

/**
 * Team mode in the browser: `awb serve` on a database with accounts shows the sign-in screen
 * (and nothing of the data) until someone signs in; a maintainer then sees who they are in the
 * status bar and the Team page with the people, their roles and tokens.
 */

const tmp = tempDir('awb-team-e2e-');
let server: Awaited<ReturnType<typeof startServer>>;
let browser: Browser;
let page: Page;
let ui: WorkbenchPage;
let pageErrors: string[] = [];

beforeAll(async () => {
  const db = tmp.file('team.db');
  const workbench = new Workbench({ databasePath: db, mode: 'browser', version: 'test' });
  fillInstances(workbench.db, 40, 2);
  createCampaign(workbench.db, { name: 'Pilot', protocol: 'march-validation', annotators: ['alice', 'bob'], seed: 1, selection: { types: ['semantic'], perType: 3 } });
  const handlers = createHandlers(workbench);
  for (const [name, role] of [
    ['maria', 'maintainer'],
    ['alice', 'annotator'],
    ['bob', 'annotator'],
    ['vic', 'viewer'],
  ] as const) {
    const made = await dispatch(handlers, 'account:create', { name, role, ...(name === 'maria' ? { password: 'a long maintainer password' } : {}) });
    expect(made.ok).toBe(true);
  }
  workbench.close();
  server = await startServer(['--db', db], { AWB_HOME: tmp.file('home') });
  ({ browser, page, ui, pageErrors } = await openWorkbench(server.url));
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  tmp.cleanup();
});

describe('signing in', () => {
  it('shows only the sign-in screen to a visitor who has not signed in', async () => {
    await ui.goto('/instances');
    await page.getByTestId('sign-in').waitFor();
    expect(await page.getByTestId('statusbar').count()).toBe(0);
    expect(await page.getByTestId('grid').count()).toBe(0);
    fs.mkdirSync(path.join(ROOT, 'docs', 'screenshots'), { recursive: true });
    await page.screenshot({ path: path.join(ROOT, 'docs', 'screenshots', 'team.png') });
  });

  it('says why a sign-in failed, and lets the right password in', async () => {
    await page.getByTestId('sign-in-name').fill('maria');
    await page.getByTestId('sign-in-password').fill('not the password at all');
    await page.getByTestId('sign-in-submit').click();
    await page.getByTestId('sign-in-error').waitFor();
    expect(await page.getByTestId('sign-in-error').innerText()).toMatch(/Unknown name, password or token/);
    await page.getByTestId('sign-in-password').fill('a long maintainer password');
    await page.getByTestId('sign-in-submit').click();
    await page.getByTestId('signed-in').waitFor();
    expect(await page.getByTestId('signed-in').innerText()).toMatch(/maria\s*\(maintainer\)/);
    // The session cookie is HttpOnly: the page's script cannot read it.
    expect(await page.evaluate(() => document.cookie)).not.toContain('awb_session');
  });

  it('shows the Team page to the maintainer: people, roles, tokens, and what each changed', async () => {
    await ui.goto('/team');
    await page.getByTestId('team-people').waitFor();
    await page.waitForFunction(() => (document.querySelector('[data-testid="team-people"] tbody')?.textContent ?? '').includes('vic'));
    const people = await page.getByTestId('team-people').innerText();
    for (const name of ['maria', 'alice', 'bob', 'vic']) expect(people).toContain(name);
    await page.getByTestId('team-new-name').fill('carol');
    await page.getByRole('button', { name: 'Add and issue a token' }).click();
    await page.getByTestId('issued-token').waitFor();
    expect(await page.getByTestId('issued-token').innerText()).toMatch(/awb_\d+_[\w-]{20,}/);
    await page.getByRole('link', { name: 'maria' }).click();
    await page.getByTestId('team-audit').waitFor();
    await page.waitForFunction(() => (document.querySelector('[data-testid="team-audit"]')?.textContent ?? '').includes('account:create'));
    await page.screenshot({ path: path.join(ROOT, 'test-results', 'screenshots', 'team-page.png') });
    expect(pageErrors.filter((e) => !/401|Unauthorized/i.test(e))).toEqual([]);
  });
});
