import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { inject } from 'vitest';

/**
 * The browser the end-to-end tests drive. Playwright cannot download its own browsers here, so
 * the tests take the first of:
 *   1. `AWB_CHROMIUM`, a path to any Chrome or Chromium binary;
 *   2. a system Chrome or Chromium (the first of SYSTEM_BROWSERS that exists);
 *   3. the Chromium inside the `@sparticuz/chromium` devDependency, unpacked into the temp
 *      directory on first use, so `npm ci && npm test` needs nothing but npm.
 */
export const SYSTEM_BROWSERS = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
  '/usr/bin/google-chrome-beta',
  '/snap/bin/chromium',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
  '/Applications/Chromium.app/Contents/MacOS/Chromium',
];

/** A headless Chromium with no background network traffic. */
const OUR_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
];

/**
 * @sparticuz/chromium's recommended flags are made for a one-page Lambda; these would hurt us.
 * `--single-process` makes opening a page after closing another fail ("Target page, context or
 * browser has been closed"); the web-security, insecure-content and site-isolation switches
 * would let the tests pass on a page a real browser blocks; `SharedArrayBuffer` is not on in
 * real browsers without cross-origin isolation; the GL switches contradict `--disable-gpu`; and
 * Playwright passes its own `--headless`.
 */
const HARMFUL_SPARTICUZ_FLAGS = [
  /^--single-process$/,
  /^--disable-web-security$/,
  /^--allow-running-insecure-content$/,
  /^--disable-site-isolation-trials$/,
  /^--disable-features=/,
  /^--enable-features=/,
  /^--headless/,
  /^--use-gl=/,
  /^--use-angle=/,
  /^--enable-unsafe-swiftshader$/,
];

export interface BrowserChoice {
  executablePath: string;
  source: 'AWB_CHROMIUM' | 'system' | '@sparticuz/chromium';
  args: string[];
  env: Record<string, string>;
}

/** Our flags plus the harmless ones of @sparticuz/chromium, each once. */
export function mergeFlags(sparticuzArgs: readonly string[]): string[] {
  return [...new Set([...OUR_FLAGS, ...sparticuzArgs.filter((a) => !HARMFUL_SPARTICUZ_FLAGS.some((re) => re.test(a)))])];
}

/** The first system browser that exists, or null. */
export function systemBrowser(candidates: readonly string[] = SYSTEM_BROWSERS, exists: (file: string) => boolean = fs.existsSync): string | null {
  return candidates.find((file) => exists(file)) ?? null;
}

let choice: Promise<BrowserChoice> | null = null;

/** Finds the browser and says which one it took (global-setup.ts does it once per run). */
export function chooseBrowser(): Promise<BrowserChoice> {
  choice ??= discoverBrowser().then((found) => {
    process.stderr.write(`e2e: using ${found.source} Chromium at ${found.executablePath}\n`);
    return found;
  });
  return choice;
}

interface PackagedChromium {
  args: string[];
  executablePath(): Promise<string>;
}

/** The discovery order, with the machine (environment, file checks, the package) passed in for tests. */
export async function discoverBrowser(
  machineEnv: NodeJS.ProcessEnv = process.env,
  exists: (file: string) => boolean = fs.existsSync,
  loadPackaged: () => Promise<PackagedChromium> = async () => (await import('@sparticuz/chromium')).default,
): Promise<BrowserChoice> {
  const fromEnv = machineEnv.AWB_CHROMIUM;
  if (fromEnv) {
    if (!exists(fromEnv)) throw new Error(`AWB_CHROMIUM names ${fromEnv}, which does not exist.`);
    return { executablePath: fromEnv, source: 'AWB_CHROMIUM', args: OUR_FLAGS, env: {} };
  }
  const system = systemBrowser(SYSTEM_BROWSERS, exists);
  if (system) return { executablePath: system, source: 'system', args: OUR_FLAGS, env: {} };

  const packaged = await loadPackaged();
  const executablePath = await packaged.executablePath();
  // The binary reads the machine's fontconfig; where there is none, point it at the fonts the
  // package unpacked next to it (Open Sans), so screenshots still show text.
  const env: Record<string, string> = {};
  const bundledFonts = path.join(os.tmpdir(), 'fonts');
  if (!machineEnv.FONTCONFIG_PATH && !exists('/etc/fonts/fonts.conf') && exists(bundledFonts)) {
    const config = fs.mkdtempSync(path.join(os.tmpdir(), 'awb-fontconfig-'));
    fs.writeFileSync(path.join(config, 'fonts.conf'), `<?xml version="1.0"?>\n<fontconfig><dir>${bundledFonts}</dir><cachedir>${path.join(config, 'cache')}</cachedir></fontconfig>\n`);
    env.FONTCONFIG_PATH = config;
  }
  return { executablePath, source: '@sparticuz/chromium', args: mergeFlags(packaged.args), env };
}

/** The choice global-setup.ts made for this run; none outside Vitest (`npm run bench`). */
function chosenForRun(): BrowserChoice | undefined {
  try {
    return inject('browser');
  } catch {
    return undefined;
  }
}

/** A headless Chromium. Playwright gives every launch a fresh, throwaway user-data directory. */
export async function launchBrowser(): Promise<Browser> {
  const found = chosenForRun() ?? (await chooseBrowser());
  try {
    return await chromium.launch({
      executablePath: found.executablePath,
      headless: true,
      args: found.args,
      ...(Object.keys(found.env).length ? { env: { ...process.env, ...found.env } } : {}),
    });
  } catch (error) {
    throw new Error(
      `Could not start the ${found.source} Chromium at ${found.executablePath}. Set AWB_CHROMIUM to a working Chrome or Chromium ` +
        `(the packaged one needs the system libraries libnss3 and libexpat).\n${(error as Error).message}`,
      { cause: error },
    );
  }
}
