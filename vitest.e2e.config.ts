import { defineConfig } from 'vitest/config';

// End-to-end: the built UI served by `awb serve`, driven by Debian's Chromium through Playwright.
export default defineConfig({
  test: {
    include: ['test/e2e/**/*.e2e.test.ts'],
    environment: 'node',
    pool: 'forks',
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
