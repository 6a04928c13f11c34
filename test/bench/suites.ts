import type { SuiteSpec } from './suite-runner';

/**
 * The bench's suites, in the order a full run takes them: each a module beside this file and the
 * function it exports. `npm run bench` (run.ts) runs each in a process of its own under plain
 * Node, outside vitest (test/unit/bench-infra.test.ts loads every one that way).
 */
export const SUITES: Record<string, SuiteSpec> = {
  foundation: { module: 'foundation.ts', export: 'benchFoundation' },
  retrieval: { module: 'retrieval.ts', export: 'benchRetrieval' },
  annotation: { module: 'annotation.ts', export: 'benchAnnotation' },
  pipeline: { module: 'pipeline.ts', export: 'benchPipeline' },
  release: { module: 'release-growth.ts', export: 'benchReleaseGrowth' },
  evaluation: { module: 'evaluation.ts', export: 'benchEvaluation' },
  'evaluation-runner': { module: 'evaluation-runner.ts', export: 'benchEvaluationRunner' },
  failures: { module: 'failures.ts', export: 'benchFailures' },
  team: { module: 'team.ts', export: 'benchTeam' },
};
