import type { Migration } from '../migrate';

/**
 * The other papers' construction data (issue 25):
 *
 * - answerability (URASys): a label on base questions, overridable per instance, with its
 *   provenance. MuSiQue's `answerable = false` already says "unanswerable" and is carried over
 *   (provenance: a rule); `answerable = true` says nothing about ambiguity and is left unlabelled.
 * - domain (MARCH Table 7): one topic per instance, from a fixed list of 15 slugs, with provenance;
 *   the instance counts gain it as a key so that the Domain facet counts come from the counts table.
 * - construction mode: instances built in CondAmbigQA-style rounds, and one row per instance and
 *   round (`construction_rounds`): its draft, the model's check of it, the reviewers' decision
 *   and feedback, cost and time.
 * - label_votes: each labelling model's vote (answerability or domain) per base question, shaped
 *   like the detection votes (a vote not asked because the outcome was already decided is kept
 *   as `not_needed`).
 * - clarification_turns (URASys): the question a system should ask, the user's reply, and the
 *   clarified question that is the gold.
 * - the QA layer (URASys ask-and-augment): a corpus of kind 'qa' beside its passage corpus, whose
 *   rows are generated question-answer pairs (title = question, text = answer), and `qa_pairs`
 *   linking each to its source passage and its canonical pair.
 * - ask-first evaluation runs and their items (URASys Table 2).
 *
 * Only ADD COLUMN and new tables, except `instance_counts`, which nothing references and which is
 * rebuilt with the domain key (its triggers with it).
 */
export const constructionAnswerabilityDomains: Migration = {
  version: 19,
  name: 'construction-answerability-domains',
  up(db) {
    db.exec(`
      ALTER TABLE base_questions ADD COLUMN answerability TEXT CHECK (answerability IN ('answerable', 'ambiguous', 'unanswerable'));
      ALTER TABLE base_questions ADD COLUMN answerability_provenance_id INTEGER REFERENCES provenance(id);
      CREATE INDEX base_questions_answerability ON base_questions (answerability, dataset_id);

      INSERT OR IGNORE INTO provenance (source, detail)
        SELECT 'rule', 'answerable = false in the source' WHERE EXISTS (SELECT 1 FROM base_questions WHERE answerable = 0);
      UPDATE base_questions SET answerability = 'unanswerable',
        answerability_provenance_id = (SELECT id FROM provenance WHERE source = 'rule' AND detail = 'answerable = false in the source'
                                       AND model IS NULL AND prompt_version IS NULL AND call_id IS NULL)
      WHERE answerable = 0;

      ALTER TABLE instances ADD COLUMN answerability TEXT CHECK (answerability IN ('answerable', 'ambiguous', 'unanswerable'));
      ALTER TABLE instances ADD COLUMN answerability_provenance_id INTEGER REFERENCES provenance(id);
      ALTER TABLE instances ADD COLUMN domain TEXT CHECK (domain IN ('science-technology', 'math-logic', 'history', 'geography-places',
        'politics-government', 'business-economics', 'society-culture', 'arts-literature', 'entertainment', 'music', 'sports',
        'religion-philosophy', 'medicine-health', 'nature-environment', 'unknown'));
      ALTER TABLE instances ADD COLUMN domain_provenance_id INTEGER REFERENCES provenance(id);
      ALTER TABLE instances ADD COLUMN construction TEXT CHECK (construction IN ('condambigqa'));
      CREATE INDEX instances_by_domain ON instances (domain, ambiguity_type, status, dataset_id, hops);
      CREATE INDEX instances_construction ON instances (construction, dataset_id) WHERE construction IS NOT NULL;

      -- The counts table gains the domain ('' for none) as a key.
      DROP TRIGGER instance_counts_insert;
      DROP TRIGGER instance_counts_delete;
      DROP TRIGGER instance_counts_update;
      DROP TABLE instance_counts;
      CREATE TABLE instance_counts (
        dataset_id INTEGER NOT NULL,
        ambiguity_type TEXT NOT NULL,
        status TEXT NOT NULL,
        hops INTEGER NOT NULL,
        domain TEXT NOT NULL,
        n INTEGER NOT NULL CHECK (n >= 0),
        PRIMARY KEY (dataset_id, ambiguity_type, status, hops, domain)
      ) STRICT, WITHOUT ROWID;
      INSERT INTO instance_counts (dataset_id, ambiguity_type, status, hops, domain, n)
        SELECT dataset_id, ambiguity_type, status, coalesce(hops, 0), coalesce(domain, ''), count(*) FROM instances GROUP BY 1, 2, 3, 4, 5;
      CREATE TRIGGER instance_counts_insert AFTER INSERT ON instances BEGIN
        INSERT INTO instance_counts (dataset_id, ambiguity_type, status, hops, domain, n)
        VALUES (new.dataset_id, new.ambiguity_type, new.status, coalesce(new.hops, 0), coalesce(new.domain, ''), 1)
        ON CONFLICT DO UPDATE SET n = n + 1;
      END;
      CREATE TRIGGER instance_counts_delete AFTER DELETE ON instances BEGIN
        UPDATE instance_counts SET n = n - 1
        WHERE dataset_id = old.dataset_id AND ambiguity_type = old.ambiguity_type AND status = old.status
          AND hops = coalesce(old.hops, 0) AND domain = coalesce(old.domain, '');
      END;
      CREATE TRIGGER instance_counts_update AFTER UPDATE OF dataset_id, ambiguity_type, status, hops, domain ON instances BEGIN
        UPDATE instance_counts SET n = n - 1
        WHERE dataset_id = old.dataset_id AND ambiguity_type = old.ambiguity_type AND status = old.status
          AND hops = coalesce(old.hops, 0) AND domain = coalesce(old.domain, '');
        INSERT INTO instance_counts (dataset_id, ambiguity_type, status, hops, domain, n)
        VALUES (new.dataset_id, new.ambiguity_type, new.status, coalesce(new.hops, 0), coalesce(new.domain, ''), 1)
        ON CONFLICT DO UPDATE SET n = n + 1;
      END;

      CREATE TABLE label_votes (
        kind TEXT NOT NULL CHECK (kind IN ('answerability', 'domain')),
        base_question_id INTEGER NOT NULL REFERENCES base_questions(id) ON DELETE CASCADE,
        model TEXT NOT NULL,
        verdict TEXT NOT NULL CHECK (verdict IN ('voted', 'not_needed')),
        label TEXT,
        reason TEXT NOT NULL DEFAULT '',
        provenance_id INTEGER REFERENCES provenance(id),
        PRIMARY KEY (kind, base_question_id, model),
        CHECK ((verdict = 'voted') = (label IS NOT NULL))
      ) STRICT, WITHOUT ROWID;

      CREATE TABLE clarification_turns (
        instance_id INTEGER NOT NULL REFERENCES instances(id) ON DELETE CASCADE,
        position INTEGER NOT NULL CHECK (position >= 0),
        system_question TEXT NOT NULL CHECK (length(trim(system_question)) > 0),
        user_reply TEXT,
        clarified_question TEXT NOT NULL CHECK (length(trim(clarified_question)) > 0),
        interpretation_id INTEGER REFERENCES interpretations(id) ON DELETE SET NULL,
        provenance_id INTEGER REFERENCES provenance(id),
        PRIMARY KEY (instance_id, position)
      ) STRICT, WITHOUT ROWID;
      CREATE INDEX clarification_turns_interpretation ON clarification_turns (interpretation_id);

      CREATE TABLE construction_rounds (
        instance_id INTEGER NOT NULL REFERENCES instances(id) ON DELETE CASCADE,
        round INTEGER NOT NULL CHECK (round >= 1),
        status TEXT NOT NULL CHECK (status IN ('drafting', 'drafted', 'in_review', 'accepted', 'rejected')),
        run_id INTEGER REFERENCES runs(id) ON DELETE SET NULL,
        campaign_id INTEGER REFERENCES campaigns(id) ON DELETE SET NULL,
        draft TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(draft)),
        check_result TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(check_result)),
        feedback TEXT,
        decided_by TEXT,
        -- The campaign's latest judgment when the round was decided: later ones are reported, never applied.
        judgments_seen INTEGER NOT NULL DEFAULT 0,
        prompt_versions TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(prompt_versions)),
        calls INTEGER NOT NULL DEFAULT 0,
        prompt_tokens INTEGER NOT NULL DEFAULT 0,
        completion_tokens INTEGER NOT NULL DEFAULT 0,
        cost_usd REAL NOT NULL DEFAULT 0,
        llm_ms REAL NOT NULL DEFAULT 0,
        review_ms INTEGER NOT NULL DEFAULT 0,
        created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
        decided_at TEXT,
        PRIMARY KEY (instance_id, round),
        CHECK ((status = 'rejected') = (feedback IS NOT NULL))
      ) STRICT, WITHOUT ROWID;
      CREATE INDEX construction_rounds_status ON construction_rounds (round, status);
      CREATE INDEX construction_rounds_campaign ON construction_rounds (campaign_id);

      ALTER TABLE corpora ADD COLUMN kind TEXT NOT NULL DEFAULT 'passages' CHECK (kind IN ('passages', 'qa'));
      ALTER TABLE corpora ADD COLUMN parent_id INTEGER REFERENCES corpora(id) ON DELETE CASCADE;
      CREATE UNIQUE INDEX corpora_qa_layer ON corpora (parent_id) WHERE parent_id IS NOT NULL;
      CREATE TABLE qa_pairs (
        passage_id INTEGER PRIMARY KEY REFERENCES passages(id) ON DELETE CASCADE,
        source_passage_id INTEGER NOT NULL REFERENCES passages(id) ON DELETE CASCADE,
        canonical_id INTEGER REFERENCES qa_pairs(passage_id) ON DELETE CASCADE,
        position INTEGER NOT NULL CHECK (position >= 0),
        grounded INTEGER NOT NULL CHECK (grounded IN (0, 1)),
        provenance_id INTEGER REFERENCES provenance(id)
      ) STRICT;
      CREATE INDEX qa_pairs_source ON qa_pairs (source_passage_id, position);
      CREATE INDEX qa_pairs_canonical ON qa_pairs (canonical_id);

      CREATE TABLE ask_first_runs (
        id INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
        dataset_id INTEGER REFERENCES datasets(id) ON DELETE SET NULL,
        dataset TEXT NOT NULL,
        model TEXT NOT NULL,
        corpus TEXT,
        options TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(options)),
        status TEXT NOT NULL CHECK (status IN ('running', 'done', 'failed', 'cancelled')),
        summary TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(summary)),
        created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
        finished_at TEXT
      ) STRICT;
      CREATE TABLE ask_first_items (
        run_id INTEGER NOT NULL REFERENCES ask_first_runs(id) ON DELETE CASCADE,
        position INTEGER NOT NULL CHECK (position >= 0),
        key TEXT NOT NULL,
        base_question_id INTEGER REFERENCES base_questions(id) ON DELETE SET NULL,
        instance_id INTEGER REFERENCES instances(id) ON DELETE SET NULL,
        answerability TEXT NOT NULL CHECK (answerability IN ('answerable', 'ambiguous', 'unanswerable')),
        gold TEXT NOT NULL CHECK (json_valid(gold)),
        status TEXT NOT NULL CHECK (status IN ('pending', 'done', 'failed')),
        action TEXT CHECK (action IN ('answer', 'clarify', 'no_answer')),
        output TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(output)),
        correct INTEGER CHECK (correct IN (0, 1)),
        strict_correct INTEGER CHECK (strict_correct IN (0, 1)),
        cost_usd REAL NOT NULL DEFAULT 0,
        error TEXT,
        PRIMARY KEY (run_id, position),
        CHECK ((status = 'failed') = (error IS NOT NULL))
      ) STRICT, WITHOUT ROWID;
    `);
  },
};
