import type { Command } from 'commander';
import { addEvalRunCommands } from './eval-runs';
import { addEvalScoreCommands } from './eval-score';
import { addEvalFailureCommands } from './eval-failures';
import { addEvalTableCommands } from './eval-table';

/** `awb eval ...`: run QA methods against a release, score predictions, compare runs. */
export function addEvalCommands(program: Command): void {
  const evaluation = program.command('eval').description('evaluation: run QA methods, score predictions made elsewhere, compare runs');
  addEvalRunCommands(evaluation);
  addEvalTableCommands(evaluation);
  addEvalScoreCommands(evaluation);
  addEvalFailureCommands(evaluation);
}
