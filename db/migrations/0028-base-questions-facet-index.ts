import type { Migration } from '../migrate';

/**
 * The index of base questions by dataset and hop count also holds their answerability label, so
 * that the counts beside the base question table (dataset, hops and label, grouped) are read from
 * the index alone, in its order, without a row or a sort: about a tenth of the time of reading the
 * table. Same name; every query that used the narrower index can use this one.
 */
export const baseQuestionsFacetIndex: Migration = {
  version: 28,
  name: 'base-questions-facet-index',
  up(db) {
    db.exec(`DROP INDEX base_questions_dataset;
             CREATE INDEX base_questions_dataset ON base_questions (dataset_id, hops, answerability);`);
  },
};
