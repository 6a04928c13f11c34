import { defineConfig } from 'vitest/config';

// End-to-end: the built UI served by `awb serve`, driven by Chromium through Playwright. The
// global setup picks the browser once: AWB_CHROMIUM, a system Chrome or Chromium, or the one
// in the @sparticuz/chromium devDependency (see test/e2e/browser.ts).
export default defineConfig({
  test: {
    include: ['test/e2e/**/*.e2e.test.ts'],
    globalSetup: ['test/e2e/global-setup.ts'],
    environment: 'node',
    pool: 'forks',
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
