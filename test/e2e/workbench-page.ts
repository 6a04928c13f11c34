/// <reference lib="dom" />
// Functions passed to page.evaluate and waitForFunction run in the browser.
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Locator, Page, Request } from 'playwright-core';
import { startServer } from '../helpers/cli';
import { ROOT } from '../helpers/db';
import { launchBrowser } from './browser';

export const SCREENSHOTS = path.join(ROOT, 'test-results', 'screenshots');

/** Chromium on a workbench URL, collecting every page error and console error. */
export async function openWorkbench(url: string): Promise<{ browser: Browser; page: Page; ui: WorkbenchPage; pageErrors: string[] }> {
  const browser = await launchBrowser();
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 }, acceptDownloads: true });
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') pageErrors.push(message.text());
  });
  return { browser, page, ui: new WorkbenchPage(page, url), pageErrors };
}

/** The operations the page calls (each a POST to /api/<name>), counted by name from now on. */
export function countCalls(page: Page): { counts: Record<string, number>; stop: () => void } {
  const counts: Record<string, number> = {};
  const listener = (request: Request) => {
    const name = /\/api\/([\w:-]+)$/.exec(request.url())?.[1];
    if (request.method() === 'POST' && name) counts[name] = (counts[name] ?? 0) + 1;
  };
  page.on('request', listener);
  return { counts, stop: () => page.off('request', listener) };
}

/** A page object for the workbench UI: tests speak in its terms, not in selectors. */
export class WorkbenchPage {
  constructor(
    readonly page: Page,
    readonly base: string,
  ) {}

  async goto(route: string): Promise<void> {
    await this.page.goto(`${this.base}${route}`);
  }

  get grid(): Locator {
    return this.page.getByTestId('grid');
  }

  rows(): Locator {
    return this.grid.locator('.grid-row');
  }

  /** The row count shown above the table, once loaded. */
  async rowCount(): Promise<number> {
    const text = await this.page.getByTestId('row-count').innerText();
    return Number(text.replace(/[^\d]/g, ''));
  }

  async waitForRowCount(expected: number): Promise<void> {
    await this.page.waitForFunction(
      (n) => Number((document.querySelector('[data-testid="row-count"]')?.textContent ?? '').replace(/[^\d]/g, '')) === n,
      expected,
    );
  }

  /** Waits until the first visible row holds data (not a loading skeleton). */
  async waitForRows(): Promise<void> {
    await this.grid.locator('.grid-row [role="gridcell"]').first().waitFor();
  }

  async toggleFacet(section: string, label: RegExp | string): Promise<void> {
    await this.page.getByRole('region', { name: section }).locator('label').filter({ hasText: label }).locator('input').click();
  }

  async search(text: string): Promise<void> {
    await this.page.keyboard.press('/');
    await this.page.keyboard.type(text);
    await this.page.keyboard.press('Enter');
  }

  cellText(rowIndex: number, column: number): Promise<string> {
    return this.grid.locator(`.grid-row[data-index="${rowIndex}"] [role="gridcell"]`).nth(column).innerText();
  }

  /**
   * Screenshots for docs/screenshots, as a reader sees them: NAME.png in the light theme and
   * NAME-dark.png in the dark one (the app follows the system's colour scheme unless told otherwise).
   */
  async docsScreenshot(name: string, options: { fullPage?: boolean } = {}): Promise<void> {
    const dir = path.join(ROOT, 'docs', 'screenshots');
    fs.mkdirSync(dir, { recursive: true });
    for (const scheme of ['light', 'dark'] as const) {
      await this.page.emulateMedia({ colorScheme: scheme });
      await this.page.waitForFunction((dark) => document.documentElement.dataset.theme === (dark ? 'dark' : 'light'), scheme === 'dark');
      await this.page.screenshot({ path: path.join(dir, scheme === 'dark' ? `${name}-dark.png` : `${name}.png`), fullPage: options.fullPage ?? false });
    }
    await this.page.emulateMedia({ colorScheme: 'light' });
  }

  async screenshot(name: string): Promise<string> {
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
    const file = path.join(SCREENSHOTS, `${name}.png`);
    await this.page.screenshot({ path: file });
    return file;
  }
}

/** `awb serve` on a database built beforehand, and Chromium on it; `close` stops both. */
export async function serveAndOpen(db: string, home: string): Promise<{ page: Page; ui: WorkbenchPage; pageErrors: string[]; close: () => Promise<void> }> {
  const server = await startServer(['--db', db], { AWB_HOME: home });
  const { browser, page, ui, pageErrors } = await openWorkbench(server.url);
  return {
    page,
    ui,
    pageErrors,
    close: async () => {
      await browser.close();
      await server.stop();
    },
  };
}
