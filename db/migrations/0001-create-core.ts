import type { Migration } from '../migrate';

/**
 * The core domain: datasets, the passage corpus, base questions with their gold material,
 * instances with their interpretations, evidence, answers and provenance, and the run/call
 * tables that provenance points at. Literal SQL on purpose: a migration is frozen once shipped.
 */
export const createCore: Migration = {
  version: 1,
  name: 'create-core',
  up(db) {
    db.exec(`
      -- Small key-value facts about this database (for example whether the demo data was seeded).
      CREATE TABLE settings (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL CHECK (json_valid(value))
      ) STRICT, WITHOUT ROWID;

      CREATE TABLE datasets (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE CHECK (length(name) BETWEEN 1 AND 200),
        source_format TEXT NOT NULL,
        description TEXT NOT NULL DEFAULT '',
        licence TEXT NOT NULL DEFAULT '',
        attribution TEXT NOT NULL DEFAULT '',
        url TEXT NOT NULL DEFAULT '',
        created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
      ) STRICT;

      CREATE TABLE corpora (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE CHECK (length(name) BETWEEN 1 AND 200),
        description TEXT NOT NULL DEFAULT '',
        created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
      ) STRICT;

      -- A passage is deduplicated by (corpus, hash of title and text).
      CREATE TABLE passages (
        id INTEGER PRIMARY KEY,
        corpus_id INTEGER NOT NULL REFERENCES corpora(id) ON DELETE CASCADE,
        source_id TEXT,
        title TEXT NOT NULL,
        text TEXT NOT NULL,
        content_hash BLOB NOT NULL CHECK (length(content_hash) = 16),
        origin TEXT NOT NULL DEFAULT '',
        UNIQUE (corpus_id, content_hash)
      ) STRICT;

      CREATE VIRTUAL TABLE passages_fts USING fts5(
        title, text,
        content = 'passages', content_rowid = 'id',
        tokenize = 'unicode61 remove_diacritics 2',
        detail = full
      );
      -- New passages are indexed by the code that inserts them (db/queries/passages.ts): an
      -- insert trigger makes FTS5 flush its pending index at every statement, which halves
      -- bulk import speed. Deletes and updates are rare and stay on triggers.
      CREATE TRIGGER passages_fts_delete AFTER DELETE ON passages BEGIN
        INSERT INTO passages_fts (passages_fts, rowid, title, text) VALUES ('delete', old.id, old.title, old.text);
      END;
      CREATE TRIGGER passages_fts_update AFTER UPDATE OF title, text ON passages BEGIN
        INSERT INTO passages_fts (passages_fts, rowid, title, text) VALUES ('delete', old.id, old.title, old.text);
        INSERT INTO passages_fts (rowid, title, text) VALUES (new.id, new.title, new.text);
      END;

      -- Who or what produced a field: a dataset, a model call, a person or a rule.
      CREATE TABLE runs (
        id INTEGER PRIMARY KEY,
        kind TEXT NOT NULL CHECK (kind IN ('pipeline', 'evaluation')),
        status TEXT NOT NULL CHECK (status IN ('running', 'done', 'failed', 'cancelled')),
        config TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(config)),
        summary TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(summary)),
        started_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
        finished_at TEXT
      ) STRICT;

      CREATE TABLE llm_calls (
        id INTEGER PRIMARY KEY,
        request_hash TEXT NOT NULL UNIQUE,
        run_id INTEGER REFERENCES runs(id) ON DELETE SET NULL,
        endpoint TEXT NOT NULL,
        model TEXT NOT NULL,
        stage TEXT,
        request TEXT NOT NULL CHECK (json_valid(request)),
        response TEXT,
        status TEXT NOT NULL CHECK (status IN ('ok', 'error')),
        error TEXT,
        prompt_tokens INTEGER,
        completion_tokens INTEGER,
        latency_ms REAL,
        cost_usd REAL,
        created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
      ) STRICT;
      CREATE INDEX llm_calls_run ON llm_calls (run_id);

      CREATE TABLE provenance (
        id INTEGER PRIMARY KEY,
        source TEXT NOT NULL CHECK (source IN ('dataset', 'llm', 'human', 'rule')),
        detail TEXT NOT NULL DEFAULT '',
        model TEXT,
        prompt_version TEXT,
        call_id INTEGER REFERENCES llm_calls(id) ON DELETE SET NULL,
        created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
      ) STRICT;
      CREATE UNIQUE INDEX provenance_key ON provenance (
        source, detail, coalesce(model, ''), coalesce(prompt_version, ''), coalesce(call_id, 0)
      );
      CREATE INDEX provenance_call ON provenance (call_id);

      CREATE TABLE base_questions (
        id INTEGER PRIMARY KEY,
        dataset_id INTEGER NOT NULL REFERENCES datasets(id) ON DELETE CASCADE,
        source_id TEXT NOT NULL,
        question TEXT NOT NULL,
        hops INTEGER CHECK (hops IS NULL OR hops >= 1),
        answer TEXT,
        aliases TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(aliases)),
        answerable INTEGER CHECK (answerable IN (0, 1)),
        extra TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(extra)),
        UNIQUE (dataset_id, source_id)
      ) STRICT;
      CREATE INDEX base_questions_hops ON base_questions (hops, dataset_id);
      CREATE INDEX base_questions_dataset ON base_questions (dataset_id, hops);
      CREATE INDEX base_questions_question ON base_questions (question, id);
      CREATE INDEX base_questions_source ON base_questions (source_id, id);
      CREATE INDEX base_questions_answer ON base_questions (answer, id);

      CREATE TABLE base_question_passages (
        base_question_id INTEGER NOT NULL REFERENCES base_questions(id) ON DELETE CASCADE,
        position INTEGER NOT NULL CHECK (position >= 0),
        passage_id INTEGER NOT NULL REFERENCES passages(id),
        is_supporting INTEGER NOT NULL DEFAULT 0 CHECK (is_supporting IN (0, 1)),
        PRIMARY KEY (base_question_id, position)
      ) STRICT, WITHOUT ROWID;
      CREATE INDEX base_question_passages_passage ON base_question_passages (passage_id);

      CREATE TABLE decomposition_steps (
        base_question_id INTEGER NOT NULL REFERENCES base_questions(id) ON DELETE CASCADE,
        position INTEGER NOT NULL CHECK (position >= 0),
        source_id TEXT,
        question TEXT NOT NULL,
        answer TEXT,
        style TEXT NOT NULL CHECK (style IN ('natural', 'relation')),
        support_position INTEGER,
        PRIMARY KEY (base_question_id, position)
      ) STRICT, WITHOUT ROWID;

      CREATE TABLE instances (
        id INTEGER PRIMARY KEY,
        base_question_id INTEGER NOT NULL REFERENCES base_questions(id) ON DELETE CASCADE,
        dataset_id INTEGER NOT NULL REFERENCES datasets(id) ON DELETE CASCADE,
        ambiguity_type TEXT NOT NULL CHECK (ambiguity_type IN ('semantic', 'syntactic', 'constraint', 'unspecified')),
        status TEXT NOT NULL CHECK (status IN ('building', 'ready', 'removed')),
        stage TEXT NOT NULL CHECK (stage IN ('imported', 'detect', 'clarify', 'decompose', 'retrieve', 'answer', 'merge', 'shorten', 'collide', 'filter')),
        removed_stage TEXT,
        removed_reason TEXT,
        hops INTEGER,
        interpretation_count INTEGER NOT NULL DEFAULT 0,
        extra TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(extra)),
        created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
        updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
        UNIQUE (base_question_id, ambiguity_type),
        CHECK ((status = 'removed') = (removed_reason IS NOT NULL))
      ) STRICT;
      -- One index per sortable column, each followed by the four filter columns, so that a page
      -- sorted by any column under any filters is read from the index alone (the table's
      -- paging is in db/queries/instances.ts).
      CREATE INDEX instances_by_type ON instances (ambiguity_type, status, dataset_id, hops);
      CREATE INDEX instances_by_status ON instances (status, ambiguity_type, dataset_id, hops);
      CREATE INDEX instances_by_dataset ON instances (dataset_id, ambiguity_type, status, hops);
      CREATE INDEX instances_by_hops ON instances (hops, ambiguity_type, status, dataset_id);
      CREATE INDEX instances_by_interpretations ON instances (interpretation_count, ambiguity_type, status, dataset_id, hops);
      CREATE INDEX instances_by_updated ON instances (updated_at, ambiguity_type, status, dataset_id, hops);
      CREATE INDEX instances_by_stage ON instances (stage, ambiguity_type, status, dataset_id, hops);

      -- Instance counts per combination of the filter columns, kept by triggers: totals and
      -- facet counts come from here in microseconds instead of from a scan of the table.
      CREATE TABLE instance_counts (
        dataset_id INTEGER NOT NULL,
        ambiguity_type TEXT NOT NULL,
        status TEXT NOT NULL,
        hops INTEGER NOT NULL,
        n INTEGER NOT NULL CHECK (n >= 0),
        PRIMARY KEY (dataset_id, ambiguity_type, status, hops)
      ) STRICT, WITHOUT ROWID;
      CREATE TRIGGER instance_counts_insert AFTER INSERT ON instances BEGIN
        INSERT INTO instance_counts (dataset_id, ambiguity_type, status, hops, n)
        VALUES (new.dataset_id, new.ambiguity_type, new.status, coalesce(new.hops, 0), 1)
        ON CONFLICT DO UPDATE SET n = n + 1;
      END;
      CREATE TRIGGER instance_counts_delete AFTER DELETE ON instances BEGIN
        UPDATE instance_counts SET n = n - 1
        WHERE dataset_id = old.dataset_id AND ambiguity_type = old.ambiguity_type AND status = old.status AND hops = coalesce(old.hops, 0);
      END;
      CREATE TRIGGER instance_counts_update AFTER UPDATE OF dataset_id, ambiguity_type, status, hops ON instances BEGIN
        UPDATE instance_counts SET n = n - 1
        WHERE dataset_id = old.dataset_id AND ambiguity_type = old.ambiguity_type AND status = old.status AND hops = coalesce(old.hops, 0);
        INSERT INTO instance_counts (dataset_id, ambiguity_type, status, hops, n)
        VALUES (new.dataset_id, new.ambiguity_type, new.status, coalesce(new.hops, 0), 1)
        ON CONFLICT DO UPDATE SET n = n + 1;
      END;

      CREATE TABLE interpretations (
        id INTEGER PRIMARY KEY,
        instance_id INTEGER NOT NULL REFERENCES instances(id) ON DELETE CASCADE,
        position INTEGER NOT NULL CHECK (position >= 0),
        clarified_question TEXT,
        condition TEXT,
        short_answer TEXT,
        answer_aliases TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(answer_aliases)),
        answer_passage_id INTEGER REFERENCES passages(id),
        answer_start INTEGER,
        answer_end INTEGER,
        status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'dropped')),
        dropped_reason TEXT,
        question_provenance_id INTEGER REFERENCES provenance(id),
        condition_provenance_id INTEGER REFERENCES provenance(id),
        answer_provenance_id INTEGER REFERENCES provenance(id),
        extra TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(extra)),
        UNIQUE (instance_id, position),
        CHECK (clarified_question IS NOT NULL OR condition IS NOT NULL),
        CHECK ((answer_start IS NULL) = (answer_end IS NULL)),
        CHECK (answer_start IS NULL OR (answer_passage_id IS NOT NULL AND answer_start >= 0 AND answer_end >= answer_start)),
        CHECK ((status = 'dropped') = (dropped_reason IS NOT NULL))
      ) STRICT;
      CREATE INDEX interpretations_answer_passage ON interpretations (answer_passage_id);

      CREATE TABLE sub_questions (
        interpretation_id INTEGER NOT NULL REFERENCES interpretations(id) ON DELETE CASCADE,
        position INTEGER NOT NULL CHECK (position >= 0),
        question TEXT NOT NULL,
        answer TEXT,
        provenance_id INTEGER REFERENCES provenance(id),
        PRIMARY KEY (interpretation_id, position)
      ) STRICT, WITHOUT ROWID;

      -- Ranked evidence of one interpretation, or (interpretation_id NULL) the frozen evidence
      -- list of the whole instance, as CondAmbigQA ships it.
      CREATE TABLE evidence (
        id INTEGER PRIMARY KEY,
        instance_id INTEGER NOT NULL REFERENCES instances(id) ON DELETE CASCADE,
        interpretation_id INTEGER REFERENCES interpretations(id) ON DELETE CASCADE,
        rank INTEGER NOT NULL CHECK (rank >= 1),
        passage_id INTEGER NOT NULL REFERENCES passages(id),
        score REAL,
        origin TEXT NOT NULL DEFAULT '',
        provenance_id INTEGER REFERENCES provenance(id)
      ) STRICT;
      CREATE UNIQUE INDEX evidence_rank ON evidence (instance_id, coalesce(interpretation_id, 0), rank);
      CREATE INDEX evidence_interpretation ON evidence (interpretation_id);
      CREATE INDEX evidence_passage ON evidence (passage_id);

      -- An interpretation citing entries of its instance's frozen evidence list.
      CREATE TABLE interpretation_citations (
        interpretation_id INTEGER NOT NULL REFERENCES interpretations(id) ON DELETE CASCADE,
        position INTEGER NOT NULL CHECK (position >= 0),
        evidence_id INTEGER NOT NULL REFERENCES evidence(id) ON DELETE CASCADE,
        PRIMARY KEY (interpretation_id, position)
      ) STRICT, WITHOUT ROWID;
      CREATE INDEX interpretation_citations_evidence ON interpretation_citations (evidence_id);

      CREATE TABLE long_answers (
        id INTEGER PRIMARY KEY,
        instance_id INTEGER NOT NULL REFERENCES instances(id) ON DELETE CASCADE,
        position INTEGER NOT NULL CHECK (position >= 0),
        text TEXT NOT NULL,
        provenance_id INTEGER REFERENCES provenance(id),
        UNIQUE (instance_id, position)
      ) STRICT;

      -- start/end: the span of the long answer this citation supports, when known.
      CREATE TABLE long_answer_citations (
        long_answer_id INTEGER NOT NULL REFERENCES long_answers(id) ON DELETE CASCADE,
        position INTEGER NOT NULL CHECK (position >= 0),
        passage_id INTEGER NOT NULL REFERENCES passages(id),
        interpretation_id INTEGER REFERENCES interpretations(id) ON DELETE SET NULL,
        start INTEGER,
        end INTEGER,
        PRIMARY KEY (long_answer_id, position),
        CHECK ((start IS NULL) = (end IS NULL))
      ) STRICT, WITHOUT ROWID;
      CREATE INDEX long_answer_citations_passage ON long_answer_citations (passage_id);
      CREATE INDEX long_answer_citations_interpretation ON long_answer_citations (interpretation_id);

      CREATE TABLE filter_votes (
        id INTEGER PRIMARY KEY,
        instance_id INTEGER NOT NULL REFERENCES instances(id) ON DELETE CASCADE,
        model TEXT NOT NULL,
        verdict TEXT NOT NULL CHECK (verdict IN ('aligned', 'misaligned')),
        reason TEXT NOT NULL DEFAULT '',
        provenance_id INTEGER REFERENCES provenance(id),
        UNIQUE (instance_id, model)
      ) STRICT;

      -- Full-text search over what the instance table shows. Contentless: the text lives in the
      -- tables above; rowid is the instance (or base question) id.
      CREATE VIRTUAL TABLE instances_fts USING fts5(
        question, readings,
        content = '', contentless_delete = 1,
        tokenize = 'unicode61 remove_diacritics 2'
      );
      CREATE VIRTUAL TABLE base_questions_fts USING fts5(
        question, answer,
        content = '', contentless_delete = 1,
        tokenize = 'unicode61 remove_diacritics 2'
      );
      CREATE TRIGGER instances_fts_delete AFTER DELETE ON instances BEGIN
        DELETE FROM instances_fts WHERE rowid = old.id;
      END;
      CREATE TRIGGER base_questions_fts_insert AFTER INSERT ON base_questions BEGIN
        INSERT INTO base_questions_fts (rowid, question, answer)
        VALUES (new.id, new.question, concat_ws(' ', new.answer, (SELECT group_concat(value, ' ') FROM json_each(new.aliases))));
      END;
      CREATE TRIGGER base_questions_fts_delete AFTER DELETE ON base_questions BEGIN
        DELETE FROM base_questions_fts WHERE rowid = old.id;
      END;
    `);
  },
};
