import { configDefaults, defineConfig } from 'vitest/config';

// Unit and integration tests: plain Node, real SQLite (in memory or in temp files), real HTTP.
// Two projects split them by speed. `fast` holds every unit test and the integration tests that
// finish in seconds (`npm run test:fast`: under a minute on two cores, see docs/development.md);
// `slow` holds the other integration tests: those that spawn the CLI, start PostgreSQL clusters,
// or run whole pipelines and evaluations (`npm run test:slow`). `npm test` runs both.
const QUICK_INTEGRATION = ['import', 'records', 'desktop-bundle', 'team-http', 'serve-static', 'export-roundtrip', 'eval-score', 'worker-host', 'failures', 'background-checkpoint'].map(
  (name) => `test/integration/${name}.test.ts`,
);

// Unit tests that build whole tables of synthetic rows (tens of seconds), kept out of the fast suite.
const SLOW_UNIT = ['instances-order'].map((name) => `test/unit/${name}.test.ts`);

export default defineConfig({
  test: {
    environment: 'node',
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects: [
      { extends: true, test: { name: 'fast', include: ['test/unit/**/*.test.ts', ...QUICK_INTEGRATION], exclude: [...configDefaults.exclude, ...SLOW_UNIT] } },
      { extends: true, test: { name: 'slow', include: ['test/integration/**/*.test.ts', ...SLOW_UNIT], exclude: [...configDefaults.exclude, ...QUICK_INTEGRATION] } },
    ],
  },
});
