import { chromium, type Browser } from 'playwright-core';

/** Debian's Chromium; Playwright cannot download its own browsers on this machine. */
export const CHROMIUM = process.env.AWB_CHROMIUM ?? '/usr/bin/chromium';

/**
 * A headless Chromium with no background network traffic. Playwright gives every launch a
 * fresh, throwaway user-data directory of its own.
 */
export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-quic',
    ],
  });
}
