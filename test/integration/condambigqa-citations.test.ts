import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../db/connection';
import { condambigqaCitationsFailureTags } from '../../db/migrations/0015-condambigqa-citations-failure-tags';
import { getSetting } from '../../db/queries/settings';
import { all, get, sql, type WritableDB } from '../../db/sql';
import { instanceDetail } from '../../electron/services/browse';
import { condambigqa } from '../../electron/services/import/formats/condambigqa';
import { emptyCitationLinks } from '../../electron/services/import/formats/format';
import { importFile } from '../../electron/services/import/import-file';
import { scorePredictionsFile } from '../../electron/services/evaluation/score';
import { goldOfInstance } from '../../electron/services/evaluation/sources';
import { ScoreRequest } from '../../shared/api';
import type { AwbRecord } from '../../shared/awb-format';
import { ROOT, tempDir, writeFile } from '../helpers/db';

// CondAmbigQA's gold citations name fragments by number ("2. Old River Bridge" is fragment 2 of
// the question's ctxs). The fixture has 2 records of 5 fragments each: citations by number (one
// whose text differs from its fragment), one out of range ("9. Nowhere") and one without a number.

const NUMBERED = path.join(ROOT, 'test', 'fixtures', 'condambigqa_numbered.json');
const tmp = tempDir('awb-condqa-');
afterAll(() => tmp.cleanup());

function instanceOf(db: WritableDB, sourceId: string): number {
  return get<{ id: number }>(db, sql`SELECT i.id FROM instances i JOIN base_questions b ON b.id = i.base_question_id WHERE b.source_id = ${sourceId}`)!.id;
}

/** Evidence ranks each interpretation cites, per record. */
function citedRanks(db: WritableDB): Record<string, number[][]> {
  return Object.fromEntries(['num-001', 'num-002'].map((id) => [id, instanceDetail(db, instanceOf(db, id)).interpretations.map((i) => i.citations)]));
}

/** Scores num-001 citing `citations` and num-002 citing its gold fragments 1 and 3 (100%). */
async function scorePrediction(db: WritableDB, dataset: string, citations: string[]) {
  const lines = [
    { source_id: 'num-001', answer: '1883 and 2004', citations },
    { source_id: 'num-002', answer: 'Rovers and Athletic', citations: ['1', '3'] },
  ];
  const file = writeFile(tmp.file(`p-${citations.join('-')}.jsonl`), lines.map((l) => JSON.stringify(l)).join('\n'));
  return scorePredictionsFile(db, ScoreRequest.parse({ dataset, predictions: file, metrics: ['citation_precision'], resamples: 0 }));
}

describe('CondAmbigQA import links each gold citation to the fragment it names', () => {
  it('keeps the 5 fragments as given, links by number (or title and text without one), and reports what matches nothing', async () => {
    const db = openDatabase(':memory:');
    const report = await importFile(db, { file: NUMBERED, format: 'condambigqa', dataset: 'condqa' });
    expect(report.citationLinks).toEqual({
      byNumber: 3,
      byTitleText: 1,
      unmatched: 1,
      numberTextDisagree: 1,
      examples: [{ sourceId: 'num-001', title: '9. Nowhere', reason: 'no fragment 9: the question has 5' }],
    });
    for (const id of ['num-001', 'num-002']) {
      const detail = instanceDetail(db, instanceOf(db, id));
      expect(detail.evidence.map((e) => [e.rank, e.origin])).toEqual([1, 2, 3, 4, 5].map((r) => [r, 'retrieved']));
    }
    expect(citedRanks(db)).toEqual({ 'num-001': [[2], [3]], 'num-002': [[1], [3]] });
    // What each citation was linked by stays with the interpretation.
    const links = all<{ extra: string }>(db, sql`SELECT extra FROM interpretations ORDER BY instance_id, position`).map((r) => (JSON.parse(r.extra) as { citation_links: unknown[] }).citation_links);
    expect(links[1]).toEqual([
      { position: 0, by: 'number', number: 3, agrees: true },
      { position: 1, by: 'unmatched', title: '9. Nowhere', reason: 'no fragment 9: the question has 5' },
    ]);
    expect(links[3]).toEqual([{ position: 0, by: 'number', number: 3, agrees: false }]);
    // The evaluation's gold sees the five fragments and the cited ones by their place.
    const gold = goldOfInstance(db, instanceOf(db, 'num-001'));
    expect(gold.fragments.map((f) => f.rank)).toEqual([1, 2, 3, 4, 5]);
    expect(gold.interpretations.map((i) => i.cited)).toEqual([[gold.fragments[1]!.key], [gold.fragments[2]!.key]]);
    db.close();
  });

  it('scores 100% citation precision for a prediction citing the gold fragments by number, 50% with a number past the list', async () => {
    const db = openDatabase(':memory:');
    await importFile(db, { file: NUMBERED, format: 'condambigqa', dataset: 'condqa' });
    expect((await scorePrediction(db, 'condqa', ['2', '3'])).metrics.citation_precision).toBe(100);
    // num-001: 1 of 2 cited is gold (50%); num-002: 100%; mean 75.
    const invalid = await scorePrediction(db, 'condqa', ['2', '9']);
    expect(invalid.metrics.citation_precision).toBe(75);
    expect(invalid.invalidCitations).toEqual({ items: 1, examples: [{ sourceId: 'num-001', line: 1, note: 'cited fragment 9; the question has 5 fragments (counted as wrong citations)' }] });
    db.close();
  });
});

/**
 * The records the importer wrote before issue 19: a citation matching a fragment exactly (title
 * and text) pointed at it; any other was appended to the frozen list (origin "citation").
 */
function oldShape(record: unknown): AwbRecord {
  const made = condambigqa.toAwb(condambigqa.schema.parse(record), {
    dataset: { name: 'condqa-old', source_format: 'condambigqa', ...condambigqa.defaults },
    corpus: 'condqa-old',
    raw: { index: 0, line: 1, location: 'line 1', bytes: null } as never,
    citationLinks: emptyCitationLinks(),
  });
  // A format may expand one source record into several (SQuAD 2.0 does); CondAmbigQA makes one.
  const out = Array.isArray(made) ? made[0]! : made;
  const source = record as { ctxs: { title: string; text: string }[]; properties: { citations: { title: string; text: string }[] }[] };
  const instance = out.instance!;
  instance.interpretations.forEach((interpretation, k) => {
    interpretation.citations = source.properties[k]!.citations.map((c) => {
      const rank = source.ctxs.findIndex((x) => x.title === c.title && x.text === c.text) + 1;
      if (rank > 0) return rank;
      const id = `old${out.passages.length + 1}`;
      out.passages.push({ id, corpus: 'condqa-old', source_id: null, title: c.title, text: c.text });
      instance.evidence.push({ passage: id, rank: instance.evidence.length + 1, score: null, origin: 'citation', provenance: instance.evidence[0]!.provenance });
      return instance.evidence.length;
    });
    interpretation.extra = {};
  });
  return out;
}

describe('migration 15 relinks the citations of a database built the old way', () => {
  it('repoints citations to fragments by number, drops those that name none, removes the appended rows and says what moved', async () => {
    // Today's importer writes today's columns, so the old data is imported at the latest schema and
    // migration 15's step is then applied to it (its schema changes are idempotent inserts).
    const db = openDatabase(':memory:');
    const records = (JSON.parse(fs.readFileSync(NUMBERED, 'utf8')) as unknown[]).map(oldShape);
    await importFile(db, { file: writeFile(tmp.file('old.jsonl'), records.map((r) => JSON.stringify(r)).join('\n')), format: 'awb' });
    const appended = () => get<{ n: number }>(db, sql`SELECT count(*) AS n FROM evidence WHERE origin = 'citation'`)!.n;
    // Before: 4 citations appended (the one without a number matched its fragment exactly).
    expect(appended()).toBe(4);
    expect(citedRanks(db)).toEqual({ 'num-001': [[6], [7, 8]], 'num-002': [[1], [6]] });
    const passagesBefore = get<{ n: number }>(db, sql`SELECT count(*) AS n FROM passages`)!.n;

    db.transaction(() => condambigqaCitationsFailureTags.up(db))();
    expect(appended()).toBe(0);
    expect(citedRanks(db)).toEqual({ 'num-001': [[2], [3]], 'num-002': [[1], [3]] });
    for (const id of ['num-001', 'num-002']) expect(instanceDetail(db, instanceOf(db, id)).evidence.map((e) => e.rank)).toEqual([1, 2, 3, 4, 5]);
    expect(get<{ n: number }>(db, sql`SELECT count(*) AS n FROM passages`)!.n).toBe(passagesBefore - 4);
    expect(getSetting(db, 'migration.0015.citations')).toEqual({
      'condqa-old': { byNumber: 3, byTitleText: 0, unmatched: 1, numberTextDisagree: 1, evidenceRemoved: 4, passagesRemoved: 4 },
    });
    const extra = get<{ extra: string }>(db, sql`SELECT p.extra FROM interpretations p WHERE p.instance_id = ${instanceOf(db, 'num-001')} AND p.position = 1`)!;
    expect(JSON.parse(extra.extra)).toEqual({ citation_links: [{ by: 'unmatched', title: '9. Nowhere', reason: 'no fragment 9: the question has 5', migrated: true }] });
    expect((await scorePrediction(db, 'condqa-old', ['2', '3'])).metrics.citation_precision).toBe(100);
    db.close();
  });

  it("adds appendix G's tags and gives collapsed its G.1 meaning", () => {
    const db = openDatabase(':memory:');
    const tags = all<{ key: string; description: string; built_in: number }>(db, sql`SELECT key, description, built_in FROM failure_tags ORDER BY id`);
    expect(tags.map((t) => t.key)).toEqual(expect.arrayContaining(['clarification-error', 'detection-miss', 'hop-inconsistency', 'needs-clarification']));
    expect(tags.find((t) => t.key === 'collapsed')!.description).toMatch(/commits to at most one interpretation/);
    db.close();
  });
});
