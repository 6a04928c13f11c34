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
 * status bar and the Team page with the people, their roles and tokens. An annotator and a viewer
 * see what their role may do, and what it may not is left out or disabled with the reason, from
 * the table the server enforces.
 */

const tmp = tempDir('awb-team-e2e-');
let server: Awaited<ReturnType<typeof startServer>>;
let browser: Browser;
let page: Page;
let ui: WorkbenchPage;
let pageErrors: string[] = [];
let campaignId = 0;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  const db = tmp.file('team.db');
  const workbench = new Workbench({ databasePath: db, mode: 'browser', version: 'test' });
  fillInstances(workbench.db, 40, 2);
  campaignId = createCampaign(workbench.db, { name: 'Pilot', protocol: 'march-validation', annotators: ['alice', 'bob'], seed: 1, blind: false, selection: { types: ['semantic'], perType: 3 } }).id;
  const handlers = createHandlers(workbench);
  for (const [name, role] of [
    ['maria', 'maintainer'],
    ['alice', 'annotator'],
    ['bob', 'annotator'],
    ['vic', 'viewer'],
  ] as const) {
    const made = await dispatch(handlers, 'account:create', { name, role, ...(name === 'maria' ? { password: 'a long maintainer password' } : {}) });
    if (!made.ok) throw new Error(made.error.message);
    tokens[name] = (made.value as { token: string }).token;
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

/** A second browser context (its own cookies), signed in with a token. */
async function signedIn(name: string): Promise<{ page: Page; close: () => Promise<void> }> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const other = await context.newPage();
  const errors: string[] = [];
  other.on('pageerror', (e) => errors.push(e.message));
  await other.goto(`${server.url}/campaigns`);
  await other.getByRole('tab', { name: 'Token' }).click();
  await other.getByTestId('sign-in-token').fill(tokens[name]!);
  await other.getByTestId('sign-in-submit').click();
  await other.getByTestId('signed-in').filter({ hasText: name }).waitFor();
  return {
    page: other,
    close: async () => {
      expect(errors).toEqual([]);
      await context.close();
    },
  };
}

describe('what each role sees', () => {
  it('shows an annotator their own queue, and leaves out what only maintainers do, saying why', async () => {
    const { page: alice, close } = await signedIn('alice');
    try {
      const nav = alice.getByRole('navigation', { name: 'Views' });
      await nav.getByRole('link', { name: 'Campaigns' }).waitFor();
      for (const hidden of ['Import', 'Export', 'Team']) expect(await nav.getByRole('link', { name: hidden, exact: true }).count()).toBe(0);
      expect(await alice.getByRole('link', { name: 'New campaign' }).count()).toBe(0);
      expect(await alice.getByTestId('not-allowed').first().innerText()).toBe('Only maintainers create campaigns; you are signed in as alice (annotator).');
      expect(await alice.getByText('Open an annotation pack').count()).toBe(0);
      await alice.goto(`${server.url}/campaigns/${campaignId}`);
      await alice.getByTestId('campaign-progress').waitFor();
      expect(await alice.getByRole('link', { name: /^Judge as/ }).allInnerTexts()).toEqual(['Judge as alice']);
      expect(await alice.getByTestId('role-note').innerText()).toBe("Offline packs and the campaign's files are for maintainers.");
      expect(await alice.getByRole('button', { name: /^(Write|Download) pack$/ }).count()).toBe(0);
      expect(await alice.getByRole('tab', { name: 'Files' }).count()).toBe(0);
      fs.mkdirSync(path.join(ROOT, 'docs', 'screenshots'), { recursive: true });
      await alice.screenshot({ path: path.join(ROOT, 'docs', 'screenshots', 'team-annotator.png') });
      // The pipeline's Start is there, disabled, with the reason beside it.
      await alice.goto(`${server.url}/pipeline`);
      const start = alice.getByRole('button', { name: 'Start', exact: true });
      await start.waitFor();
      expect(await start.isDisabled()).toBe(true);
      expect(await alice.getByTestId('start-blocked').innerText()).toBe('Only maintainers may do this; you are signed in as alice (annotator).');
      // And judging their own queue works.
      await alice.goto(`${server.url}/campaigns/${campaignId}`);
      await alice.getByRole('link', { name: 'Judge as alice' }).click();
      await alice.getByText('item 1 of 3').waitFor();
      await alice.keyboard.press('y');
      await alice.getByTestId('save-state').filter({ hasText: 'all saved' }).waitFor();
      expect(await alice.getByTestId('judge-error').count()).toBe(0);
    } finally {
      await close();
    }
  });

  it('shows a viewer the campaigns with no queue to judge, and why', async () => {
    const { page: vic, close } = await signedIn('vic');
    try {
      await vic.goto(`${server.url}/campaigns/${campaignId}`);
      await vic.getByTestId('campaign-progress').waitFor();
      expect(await vic.getByRole('link', { name: /^Judge as/ }).count()).toBe(0);
      expect(await vic.getByTestId('role-note').innerText()).toMatch(/^Only annotators and maintainers judge; you are signed in as vic \(viewer\)\./);
      await vic.goto(`${server.url}/protocols/march-validation`);
      const duplicate = vic.getByRole('button', { name: 'Duplicate' });
      await duplicate.waitFor();
      expect(await duplicate.isDisabled()).toBe(true);
      expect(await vic.getByTestId('not-allowed').innerText()).toBe('Only maintainers may do this; you are signed in as vic (viewer).');
      await vic.screenshot({ path: path.join(ROOT, 'test-results', 'screenshots', 'team-viewer.png') });
      // The releases and evaluation screens say the same: no New release, no run form, and why.
      await vic.goto(`${server.url}/releases`);
      await vic.getByRole('heading', { name: 'Releases' }).waitFor();
      expect(await vic.getByTestId('new-release').count()).toBe(0);
      expect(await vic.getByTestId('not-allowed').innerText()).toBe('Only maintainers make releases; you are signed in as vic (viewer).');
      await vic.goto(`${server.url}/evaluation`);
      await vic.getByRole('heading', { name: 'Evaluation' }).waitFor();
      expect(await vic.getByTestId('eval-start').count()).toBe(0);
      expect(await vic.getByTestId('not-allowed').first().innerText()).toBe('Only maintainers start evaluation runs; you are signed in as vic (viewer).');
      // Ask-first runs likewise; and labels are shown, their choices disabled with the reason.
      await vic.goto(`${server.url}/ask-first`);
      await vic.getByRole('heading', { name: 'Ask first' }).waitFor();
      expect(await vic.getByTestId('ask-first-start').count()).toBe(0);
      expect(await vic.getByTestId('not-allowed').first().innerText()).toBe('Only maintainers start ask-first runs; you are signed in as vic (viewer).');
      await vic.goto(`${server.url}/instances/1`);
      const labels = vic.getByTestId('labels');
      await labels.getByTestId('answerability-source').waitFor();
      expect(await labels.locator('#label-answerability').isDisabled()).toBe(true);
      expect(await labels.locator('#label-topic').isDisabled()).toBe(true);
      expect(await labels.getByTestId('not-allowed').innerText()).toBe('Only maintainers may do this; you are signed in as vic (viewer).');
    } finally {
      await close();
    }
  });
});
