import type { Migration } from '../migrate';

/**
 * The index of base questions by their text also carries each question's source id (issue 24).
 * A page of the instance table sorted by question walks this index and reads its rows as it goes:
 * the question's text came from the index, its source id from the table, one more random read
 * per row of a page whose rows are scattered over the table (the slowest 5 % of the bench's
 * pages were sorted by question). The index keeps its name, so the queries and the order-count
 * triggers of migration 0017 that name it read the wider one; every use of the old one (its
 * leading columns are the same) is served by it.
 */
export const baseQuestionsQuestionWithSource: Migration = {
  version: 27,
  name: 'base-questions-question-with-source',
  up(db) {
    db.exec(`
      DROP INDEX base_questions_question;
      CREATE INDEX base_questions_question ON base_questions (question, id, source_id);
    `);
  },
};
