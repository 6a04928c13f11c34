import { readyLabelCounts } from '../../../db/queries/instances-labels';
import type { ReadableDB } from '../../../db/sql';
import { labelTables, type LabelTables } from '../../../shared/construction';
import { DOMAINS } from '../../../shared/domain';

/** The funnel's topic table (MARCH Table 7) and answerability counts, over the instances kept. */
export function keptLabelTables(db: ReadableDB, datasetIds: readonly number[]): LabelTables {
  return labelTables(readyLabelCounts(db, datasetIds), DOMAINS);
}
