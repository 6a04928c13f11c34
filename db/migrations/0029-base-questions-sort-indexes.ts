import type { Migration } from '../migrate';

/**
 * The base question table sorted by hop count or by dataset reads its page from an index in the
 * page's order (hops or dataset, then id), so a page is a walk of its rows rather than a sort of
 * every base question. The hops index loses its second column (the dataset), which put the ids
 * out of order within a hop count; the dataset index of migration 0028 keeps the facet columns,
 * so the dataset sort gets one of its own.
 */
export const baseQuestionsSortIndexes: Migration = {
  version: 29,
  name: 'base-questions-sort-indexes',
  up(db) {
    db.exec(`DROP INDEX base_questions_hops;
             CREATE INDEX base_questions_hops ON base_questions (hops);
             CREATE INDEX base_questions_dataset_order ON base_questions (dataset_id);`);
  },
};
