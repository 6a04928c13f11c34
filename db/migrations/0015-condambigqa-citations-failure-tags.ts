import type BetterSqlite3 from 'better-sqlite3';
import type { Migration } from '../migrate';

/**
 * Two fixes of issue 19, with what they need from existing databases.
 *
 * 1. CondAmbigQA citations. The old importer matched a gold citation to a fragment by its title
 *    and text; the released data titles a citation "N. Title" (fragment N of the question's
 *    list, from 1), so nothing matched and every citation was appended to the frozen list as a
 *    new evidence row (origin 'citation'). This relinks each such row as the importer now links
 *    citations: to fragment N by its number; without a number, to the first fragment with the
 *    same title and text (case and white space ignored); otherwise to none. Citations are
 *    repointed (a second citation of the same fragment by one interpretation is dropped, and
 *    positions renumbered), the appended rows deleted, and their passages too when nothing else
 *    uses them and they carry no vectors. Citations that name no fragment are dropped and kept in
 *    the interpretation's `extra.citation_links`. The counts per dataset are stored in the
 *    setting `migration.0015.citations`. Frozen releases and past evaluation items keep their gold.
 *
 * 2. The failure taxonomy of MARCH appendix G: "collapsed" now means the prediction commits to at
 *    most one interpretation (G.1), and the tags for clarification errors, detection misses,
 *    hop-consistency failures and interpretations left for the user are added.
 *
 * Self-contained on purpose (a migration is frozen once shipped): the linking rule is restated
 * here rather than imported from the importer, which may change later.
 */

interface Fragment {
  id: number;
  rank: number;
  title: string;
  text: string;
}

interface Appended extends Fragment {
  instance_id: number;
  passage_id: number;
  dataset: string;
}

type Link = { target: Fragment; by: 'number' | 'title+text'; agrees: boolean } | { target: null; reason: string };

const same = (a: string, b: string) => a.replace(/\s+/g, ' ').trim().toLowerCase() === b.replace(/\s+/g, ' ').trim().toLowerCase();

function link(citation: Appended, fragments: readonly Fragment[]): Link {
  const numbered = /^\s*(\d+)\.\s+(.*)$/s.exec(citation.title);
  if (numbered) {
    const n = Number(numbered[1]);
    const target = fragments.find((f) => f.rank === n);
    if (!target) return { target: null, reason: `no fragment ${n}: the question has ${fragments.length}` };
    return { target, by: 'number', agrees: same(numbered[2]!, target.title) && same(citation.text, target.text) };
  }
  const target = fragments.find((f) => same(f.title, citation.title) && same(f.text, citation.text));
  return target ? { target, by: 'title+text', agrees: true } : { target: null, reason: 'no fragment with this title and text' };
}

interface Counts {
  byNumber: number;
  byTitleText: number;
  unmatched: number;
  numberTextDisagree: number;
  evidenceRemoved: number;
  passagesRemoved: number;
}

class Relinker {
  readonly counts = new Map<string, Counts>();
  private readonly touched = new Set<number>();
  private readonly fragmentsOf: BetterSqlite3.Statement;
  private readonly citing: BetterSqlite3.Statement;
  private readonly cites: BetterSqlite3.Statement;
  private readonly repoint: BetterSqlite3.Statement;
  private readonly dropCitation: BetterSqlite3.Statement;

  constructor(private readonly db: BetterSqlite3.Database) {
    this.fragmentsOf = db.prepare(
      `SELECT e.id, e.rank, p.title, p.text FROM evidence e JOIN passages p ON p.id = e.passage_id
       WHERE e.instance_id = ? AND e.interpretation_id IS NULL AND e.origin <> 'citation' ORDER BY e.rank`,
    );
    this.citing = db.prepare('SELECT interpretation_id, position FROM interpretation_citations WHERE evidence_id = ?');
    this.cites = db.prepare('SELECT 1 FROM interpretation_citations WHERE interpretation_id = ? AND evidence_id = ?');
    this.repoint = db.prepare('UPDATE interpretation_citations SET evidence_id = ? WHERE interpretation_id = ? AND position = ?');
    this.dropCitation = db.prepare('DELETE FROM interpretation_citations WHERE interpretation_id = ? AND position = ?');
  }

  private count(dataset: string): Counts {
    let c = this.counts.get(dataset);
    if (!c) this.counts.set(dataset, (c = { byNumber: 0, byTitleText: 0, unmatched: 0, numberTextDisagree: 0, evidenceRemoved: 0, passagesRemoved: 0 }));
    return c;
  }

  /** Relinks the citations of one appended row and removes it. */
  relink(row: Appended): void {
    const fragments = this.fragmentsOf.all(row.instance_id) as Fragment[];
    const found = link(row, fragments);
    const counts = this.count(row.dataset);
    if (found.target === null) counts.unmatched++;
    else if (found.by === 'number') {
      counts.byNumber++;
      if (!found.agrees) counts.numberTextDisagree++;
    } else counts.byTitleText++;
    for (const c of this.citing.all(row.id) as { interpretation_id: number; position: number }[]) {
      this.touched.add(c.interpretation_id);
      if (found.target === null) {
        this.dropCitation.run(c.interpretation_id, c.position);
        this.noteUnmatched(c.interpretation_id, row.title, found.reason);
      } else if (this.cites.get(c.interpretation_id, found.target.id)) this.dropCitation.run(c.interpretation_id, c.position);
      else this.repoint.run(found.target.id, c.interpretation_id, c.position);
    }
    this.db.prepare('DELETE FROM evidence WHERE id = ?').run(row.id);
    counts.evidenceRemoved++;
    if (this.removePassageIfUnused(row.passage_id)) counts.passagesRemoved++;
  }

  private noteUnmatched(interpretation: number, title: string, reason: string): void {
    const { extra } = this.db.prepare('SELECT extra FROM interpretations WHERE id = ?').get(interpretation) as { extra: string };
    const value = JSON.parse(extra) as { citation_links?: unknown[] };
    const links = Array.isArray(value.citation_links) ? value.citation_links : [];
    links.push({ by: 'unmatched', title, reason, migrated: true });
    this.db.prepare('UPDATE interpretations SET extra = ? WHERE id = ?').run(JSON.stringify({ ...value, citation_links: links }), interpretation);
  }

  private removePassageIfUnused(passage: number): boolean {
    const used = this.db
      .prepare(
        `SELECT EXISTS (SELECT 1 FROM evidence WHERE passage_id = @p) OR EXISTS (SELECT 1 FROM base_question_passages WHERE passage_id = @p)
             OR EXISTS (SELECT 1 FROM interpretations WHERE answer_passage_id = @p) OR EXISTS (SELECT 1 FROM long_answer_citations WHERE passage_id = @p)`,
      )
      .pluck()
      .get({ p: passage });
    if (used) return false;
    const models = this.db.prepare('SELECT id FROM embedding_models').pluck().all() as number[];
    for (const model of models) {
      const exists = this.db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?").get(`embeddings_${model}`);
      if (exists && this.db.prepare(`SELECT 1 FROM "embeddings_${model}" WHERE passage_id = ?`).get(passage)) return false;
    }
    this.db.prepare('DELETE FROM passages WHERE id = ?').run(passage);
    return true;
  }

  /** Positions 0..n-1 again for every interpretation whose citations changed. */
  renumber(): void {
    const list = this.db.prepare('SELECT position, evidence_id FROM interpretation_citations WHERE interpretation_id = ? ORDER BY position');
    const clear = this.db.prepare('DELETE FROM interpretation_citations WHERE interpretation_id = ?');
    const insert = this.db.prepare('INSERT INTO interpretation_citations (interpretation_id, position, evidence_id) VALUES (?, ?, ?)');
    for (const interpretation of this.touched) {
      const rows = list.all(interpretation) as { position: number; evidence_id: number }[];
      clear.run(interpretation);
      rows.forEach((r, position) => insert.run(interpretation, position, r.evidence_id));
    }
  }
}

function relinkCitations(db: BetterSqlite3.Database): void {
  const appended = db
    .prepare(
      `SELECT e.id, e.instance_id, e.rank, e.passage_id, p.title, p.text, d.name AS dataset
       FROM evidence e JOIN passages p ON p.id = e.passage_id JOIN instances i ON i.id = e.instance_id JOIN datasets d ON d.id = i.dataset_id
       WHERE e.interpretation_id IS NULL AND e.origin = 'citation' ORDER BY e.instance_id, e.rank`,
    )
    .all() as Appended[];
  if (appended.length === 0) return;
  const relinker = new Relinker(db);
  for (const row of appended) relinker.relink(row);
  relinker.renumber();
  db.prepare("INSERT INTO settings (key, value) VALUES ('migration.0015.citations', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value").run(
    JSON.stringify(Object.fromEntries(relinker.counts)),
  );
}

/** The tags of MARCH appendix G the taxonomy lacked (key, label, description). */
const APPENDIX_G_TAGS: readonly (readonly [string, string, string])[] = [
  ['clarification-error', 'Clarification error', 'The clarified questions are mis-specified or too broad, so reasoning and retrieval follow readings the question does not have.'],
  ['detection-miss', 'Ambiguity not detected', "The method's planner judged the question unambiguous although the gold lists several interpretations."],
  ['hop-inconsistency', 'Hop-consistency failure', "An interpretation's chain breaks: the first hop's entity is not supported by the evidence, or a later hop is not grounded in the entity before it."],
  ['needs-clarification', 'Left for the user', 'An interpretation could not be answered because a hop entity was missing; the method would ask the user instead.'],
];

function addAppendixGTags(db: BetterSqlite3.Database): void {
  db.prepare("UPDATE failure_tags SET description = ? WHERE key = 'collapsed' AND built_in = 1").run(
    'The prediction commits to at most one interpretation (one answer) while the gold has several.',
  );
  const insert = db.prepare('INSERT OR IGNORE INTO failure_tags (key, label, description, built_in) VALUES (?, ?, ?, 1)');
  for (const [key, label, description] of APPENDIX_G_TAGS) insert.run(key, label, description);
}

export const condambigqaCitationsFailureTags: Migration = {
  version: 15,
  name: 'condambigqa-citations-failure-tags',
  up(db) {
    relinkCitations(db);
    addAppendixGTags(db);
  },
};
