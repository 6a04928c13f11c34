import type { Workbench } from '../workbench';
import type { Handlers } from '../../../shared/api';
import { scorePredictionsFile } from './score';

/** The scoring domain's handlers: predictions made elsewhere, scored against a dataset or a release. */
export function scoringHandlers(workbench: Workbench): Pick<Handlers, 'evaluation:score'> {
  return { 'evaluation:score': (request) => scorePredictionsFile(workbench.db, request) };
}
