import type { Migration } from '../migrate';

/**
 * The instance search gets a prefix index for one-letter prefixes too (issue 24), beside 0018's
 * for two, three and four. The search box shows its matches in the table's order, and FTS5 can
 * then stop reading at the page, but only when the typed prefix has an index of its own: without
 * one it first merges the lists of every word the prefix starts, and a single letter (the first
 * key typed) starts a large share of all words (about 55 ms a page at 1M instances; through an
 * index, well under a millisecond). The rows found and their ranks are the same: an index is a copy of
 * what the term lists hold, merged ahead of time. It makes the search table about a fifth larger
 * and writing an instance's search row about as much slower.
 *
 * FTS5 fixes its options when the table is made, and a contentless table cannot be read back, so
 * the table is made again and filled from the rows, with the text `writeInstanceSearchRow`
 * writes (this copy of its query stays as it is, as 0006's and 0018's do).
 */
export const instanceSearchOneLetterPrefix: Migration = {
  version: 20,
  name: 'instance-search-one-letter-prefix',
  up(db) {
    db.exec(`
      DROP TRIGGER instances_fts_delete;
      DROP TABLE instances_fts;
      CREATE VIRTUAL TABLE instances_fts USING fts5(
        question, interpretations,
        content = '', contentless_delete = 1,
        tokenize = 'unicode61 remove_diacritics 2',
        prefix = '1 2 3 4'
      );
      CREATE TRIGGER instances_fts_delete AFTER DELETE ON instances BEGIN
        DELETE FROM instances_fts WHERE rowid = old.id;
      END;
      INSERT INTO instances_fts (rowid, question, interpretations)
      SELECT i.id, b.question,
             concat_ws(char(10),
               (SELECT group_concat(concat_ws(' ', n.clarified_question, n.condition, n.short_answer,
                                              (SELECT group_concat(a.value, ' ') FROM json_each(n.answer_aliases) a)),
                                    char(10) ORDER BY n.position)
                FROM interpretations n WHERE n.instance_id = i.id AND n.status = 'active'),
               (SELECT group_concat(l.text, char(10) ORDER BY l.position) FROM long_answers l WHERE l.instance_id = i.id))
      FROM instances i JOIN base_questions b ON b.id = i.base_question_id
      ORDER BY i.id;
    `);
  },
};
