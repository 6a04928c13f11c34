import type { Migration } from '../migrate';

/**
 * The instance search's second column is named for what it holds, `interpretations` (it was
 * `readings`), and every row is rebuilt with one text whichever path wrote the instance: before,
 * import indexed clarified questions, conditions and answers while the pipeline indexed clarified
 * questions and answers only. FTS5 cannot rename a column, and a contentless table cannot be read
 * back, so the table is made again and filled from the rows (the same text that
 * `writeInstanceSearchRow` writes from now on; this copy of its query stays as it is).
 */
export const instanceSearchInterpretations: Migration = {
  version: 6,
  name: 'instance-search-interpretations',
  up(db) {
    db.exec(`
      DROP TRIGGER instances_fts_delete;
      DROP TABLE instances_fts;
      CREATE VIRTUAL TABLE instances_fts USING fts5(
        question, interpretations,
        content = '', contentless_delete = 1,
        tokenize = 'unicode61 remove_diacritics 2'
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
