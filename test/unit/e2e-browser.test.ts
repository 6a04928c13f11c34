import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { discoverBrowser, mergeFlags, SYSTEM_BROWSERS } from '../e2e/browser';

// Which browser the end-to-end tests drive: AWB_CHROMIUM, then a system one, then the packaged one.

const packaged = {
  args: ['--no-sandbox', '--single-process', '--disable-web-security', '--allow-running-insecure-content', '--disable-features=IsolateOrigins,site-per-process', '--no-zygote', "--headless='shell'", '--use-gl=angle'],
  executablePath: () => Promise.resolve('/tmp/unpacked/chromium'),
};
const load = () => Promise.resolve(packaged);

describe('the e2e browser', () => {
  it('takes AWB_CHROMIUM first, and refuses one that does not exist', async () => {
    const choice = await discoverBrowser({ AWB_CHROMIUM: '/opt/chrome' }, () => true, load);
    expect(choice).toMatchObject({ source: 'AWB_CHROMIUM', executablePath: '/opt/chrome' });
    await expect(discoverBrowser({ AWB_CHROMIUM: '/opt/none' }, (file) => file !== '/opt/none', load)).rejects.toThrow(/AWB_CHROMIUM/);
  });

  it('then the first system browser in order', async () => {
    const present = new Set(['/usr/bin/google-chrome', '/usr/bin/chromium-browser']);
    const choice = await discoverBrowser({}, (file) => present.has(file), load);
    expect(choice).toMatchObject({ source: 'system', executablePath: '/usr/bin/chromium-browser' });
    expect(SYSTEM_BROWSERS.indexOf('/usr/bin/chromium')).toBeLessThan(SYSTEM_BROWSERS.indexOf('/usr/bin/google-chrome'));
  });

  it('then the packaged Chromium, without the flags that would hide bugs or break a second page', async () => {
    const choice = await discoverBrowser({ FONTCONFIG_PATH: '/x' }, () => false, load);
    expect(choice).toMatchObject({ source: '@sparticuz/chromium', executablePath: '/tmp/unpacked/chromium', env: {} });
    expect(choice.args).toEqual(mergeFlags(packaged.args));
    expect(choice.args).toContain('--no-zygote');
    expect(choice.args.filter((a) => a === '--no-sandbox')).toHaveLength(1);
    for (const harmful of ['--single-process', '--disable-web-security', '--allow-running-insecure-content', "--headless='shell'", '--use-gl=angle']) expect(choice.args).not.toContain(harmful);
    expect(choice.args.some((a) => a.startsWith('--disable-features'))).toBe(false);
  });

  it('points the packaged Chromium at its own fonts on a machine without fontconfig', async () => {
    const fonts = path.join(os.tmpdir(), 'fonts');
    const choice = await discoverBrowser({}, (file) => file === fonts, load);
    const config = choice.env.FONTCONFIG_PATH!;
    try {
      expect(fs.readFileSync(path.join(config, 'fonts.conf'), 'utf8')).toContain(`<dir>${fonts}</dir>`);
    } finally {
      fs.rmSync(config, { recursive: true, force: true });
    }
    expect((await discoverBrowser({}, (file) => file === fonts || file === '/etc/fonts/fonts.conf', load)).env).toEqual({});
  });
});
