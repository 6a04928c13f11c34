import type { Migration } from '../migrate';

/**
 * The instances in the order of their base question's text (issue 24), with what the instance
 * table's page needs to walk that order: the question and its source id, and the four filter
 * columns. Kept by triggers on `instances` and `base_questions`.
 *
 * A page sorted by question walked the base questions' index in text order and looked up each
 * question's instances in `instances_by_base_question`: one seek per question into a random page
 * of that index, since ids are given in import order, not text order. At 1,000,000 instances those
 * seeks made the sort by question the slowest of the table's sorts, and the bench's page p95
 * twice its p50 (the other sorts walk in id order). This table is that walk stored: a page reads
 * a run of its own pages, then the instance rows of the page alone. It costs a copy of each
 * question's text per instance (about 130 MB at 1M instances of the bench's data).
 *
 * The fences of migration 0017 count the same order, (question, base question, id), so they place
 * a page in this table unchanged. `instance_question_order_rows` counts the table's rows, by
 * triggers on the table itself: a page compares it with the instance counts, as it does the
 * fences' totals, and walks the instances instead when they differ (a copy of the file made
 * without these triggers and written since, say). Like the counts, the table is otherwise trusted
 * as its triggers keep it; `orderCountErrors` (db/queries/instances-order-checks.ts) checks it
 * row by row against the instances.
 */

const COLUMNS = 'question, base_question_id, id, source_id, ambiguity_type, status, dataset_id, hops';
const FILTERS = ['ambiguity_type', 'status', 'dataset_id', 'hops'];

/** The walk table's row of instance `row` (`new` or `old`), from its base question's row. */
const rowOf = (row: string) =>
  `SELECT b.question, b.id, ${row}.id, b.source_id, ${FILTERS.map((c) => `${row}.${c}`).join(', ')} FROM base_questions b WHERE b.id = ${row}.base_question_id`;

/** Instance `row`'s key in the walk table (none once its base question is gone: the question's own trigger took its rows off). */
const keyOf = (row: string) =>
  `question = (SELECT b.question FROM base_questions b WHERE b.id = ${row}.base_question_id) AND base_question_id = ${row}.base_question_id AND id = ${row}.id`;

export const instanceQuestionOrder: Migration = {
  version: 33,
  name: 'instance-question-order',
  up(db) {
    db.exec(`
      CREATE TABLE instance_question_order (
        question TEXT NOT NULL,
        base_question_id INTEGER NOT NULL,
        id INTEGER NOT NULL,
        source_id TEXT NOT NULL,
        ambiguity_type TEXT NOT NULL,
        status TEXT NOT NULL,
        dataset_id INTEGER NOT NULL,
        hops INTEGER,
        PRIMARY KEY (question, base_question_id, id)
      ) STRICT, WITHOUT ROWID;
      INSERT INTO instance_question_order (${COLUMNS})
      SELECT b.question, b.id, i.id, b.source_id, ${FILTERS.map((c) => `i.${c}`).join(', ')}
      FROM base_questions b JOIN instances i ON i.base_question_id = b.id
      ORDER BY b.question, b.id, i.id;
      CREATE TABLE instance_question_order_rows (n INTEGER NOT NULL CHECK (n >= 0)) STRICT;
      INSERT INTO instance_question_order_rows (n) SELECT count(*) FROM instance_question_order;
      CREATE TRIGGER instance_question_order_rows_insert AFTER INSERT ON instance_question_order BEGIN
        UPDATE instance_question_order_rows SET n = n + 1;
      END;
      CREATE TRIGGER instance_question_order_rows_delete AFTER DELETE ON instance_question_order BEGIN
        UPDATE instance_question_order_rows SET n = n - 1;
      END;

      CREATE TRIGGER instance_question_order_insert AFTER INSERT ON instances BEGIN
        INSERT INTO instance_question_order (${COLUMNS}) ${rowOf('new')};
      END;
      CREATE TRIGGER instance_question_order_delete AFTER DELETE ON instances BEGIN
        DELETE FROM instance_question_order WHERE ${keyOf('old')};
      END;
      -- A filter column changed in place (the common case: a status).
      CREATE TRIGGER instance_question_order_update AFTER UPDATE OF ${FILTERS.join(', ')} ON instances
      WHEN old.id = new.id AND old.base_question_id = new.base_question_id
        AND (${FILTERS.map((c) => `old.${c} IS NOT new.${c}`).join(' OR ')}) BEGIN
        UPDATE instance_question_order SET ${FILTERS.map((c) => `${c} = new.${c}`).join(', ')} WHERE ${keyOf('new')};
      END;
      -- An instance given another id or base question moves in the order.
      CREATE TRIGGER instance_question_order_move AFTER UPDATE OF id, base_question_id ON instances
      WHEN old.id IS NOT new.id OR old.base_question_id IS NOT new.base_question_id BEGIN
        DELETE FROM instance_question_order WHERE ${keyOf('old')};
        INSERT INTO instance_question_order (${COLUMNS}) ${rowOf('new')};
      END;
      -- Before the question goes, while its text still finds its rows (its instances follow by cascade).
      CREATE TRIGGER instance_question_order_question_delete BEFORE DELETE ON base_questions BEGIN
        DELETE FROM instance_question_order WHERE question = old.question AND base_question_id = old.id;
      END;
      CREATE TRIGGER instance_question_order_question_update AFTER UPDATE OF id, question, source_id ON base_questions
      WHEN old.id IS NOT new.id OR old.question IS NOT new.question OR old.source_id IS NOT new.source_id BEGIN
        UPDATE instance_question_order SET question = new.question, base_question_id = new.id, source_id = new.source_id
        WHERE question = old.question AND base_question_id = old.id;
      END;
    `);
  },
};
