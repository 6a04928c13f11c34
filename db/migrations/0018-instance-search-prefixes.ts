import type { Migration } from '../migrate';

/**
 * The instance search keeps prefix indexes for prefixes of 2, 3 and 4 characters (issue 24).
 * The table's search is search-as-you-type: the last word typed is a prefix, and without these
 * indexes FTS5 answers a short prefix by merging the document lists of every term that starts
 * with it (hundreds of thousands of entries at 1M instances: 268 ms a page on the reference
 * machine). With them it reads one list. The results are the same rows with the same ranks: a
 * prefix index is a copy of what the term lists hold, merged ahead of time.
 *
 * FTS5 fixes its options when the table is made, and a contentless table cannot be read back, so
 * the table is made again and filled from the rows, with the text `writeInstanceSearchRow`
 * writes (this copy of its query stays as it is, as 0006's does).
 */
export const instanceSearchPrefixes: Migration = {
  version: 18,
  name: 'instance-search-prefixes',
  up(db) {
    db.exec(`
      DROP TRIGGER instances_fts_delete;
      DROP TABLE instances_fts;
      CREATE VIRTUAL TABLE instances_fts USING fts5(
        question, interpretations,
        content = '', contentless_delete = 1,
        tokenize = 'unicode61 remove_diacritics 2',
        prefix = '2 3 4'
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
