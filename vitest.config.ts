import { defineConfig } from 'vitest/config';

// Unit and integration tests: plain Node, real SQLite (in memory or in temp files), real HTTP.
export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts', 'test/integration/**/*.test.ts'],
    environment: 'node',
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
