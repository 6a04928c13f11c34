import type { ReadableDB } from '../../../db/sql';
import type { Handlers } from '../../../shared/api';
import { scorePredictionsFile } from './score';

/** The scoring domain's handlers: predictions made elsewhere, scored against a dataset or a release. */
export function scoringHandlers(db: ReadableDB): Pick<Handlers, 'evaluation:score'> {
  return { 'evaluation:score': (request) => scorePredictionsFile(db, request) };
}
