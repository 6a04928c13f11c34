import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { campaignProgress } from '../../db/queries/assignments';
import { findBaseQuestionId, insertBaseQuestion, listBaseQuestions } from '../../db/queries/base-questions';
import { campaignInstances } from '../../db/queries/campaigns';
import { releaseCandidatesQuery } from '../../db/queries/instances-selection';
import { insertDataset } from '../../db/queries/datasets';
import { listEvidence } from '../../db/queries/evidence';
import {
  choosePlan,
  countInstances,
  getInstance,
  instancesOfBaseQuestion,
  instanceTypesByIds,
  listInstances,
  pageIdsQuery,
  writeInstanceSearchRow,
  type QueryPlan,
} from '../../db/queries/instances';
import { insertInterpretation, listInterpretations, type NewInterpretation } from '../../db/queries/interpretations';
import { insertLongAnswer } from '../../db/queries/long-answers';
import { contentHash, findPassageId, upsertPassage, upsertPassages } from '../../db/queries/passages';
import { bm25Passages, countPassageMatches } from '../../db/queries/passages-fts';
import { refreshInstanceText } from '../../db/queries/instances';
import { instanceFacetCounts } from '../../db/queries/instances-facets';
import { dropInterpretation } from '../../db/queries/interpretations';
import { getOrCreateCorpus } from '../../db/queries/corpora';
import { getOrCreateProvenance } from '../../db/queries/provenance';
import {
  baseQuestionsByIds,
  citationsOf,
  decompositionsOf,
  detectionVotesOf,
  evidenceOf,
  filterVotesOf,
  instancesByIds,
  interpretationsOf,
  longAnswerCitationsOf,
  longAnswersOf,
  paragraphsOf,
  passagesByIds,
  provenanceByIds,
  subQuestionsOf,
} from '../../db/queries/records';
import { all, explain, sql, type WritableDB } from '../../db/sql';
import { importFile } from '../../electron/services/import/import-file';
import { InstanceQuery } from '../../shared/api';
import { CONDAMBIGQA, memoryDb } from '../helpers/db';
import { plansOf } from '../helpers/query-plans';
import { fillInstances } from '../helpers/synthetic';

let db: WritableDB;
const N = 3000;

interface Raw {
  id: number;
  ambiguity_type: string;
  status: string;
  hops: number | null;
  dataset_id: number;
  interpretation_count: number;
  question: string;
}

let rows: Raw[];

beforeAll(() => {
  db = memoryDb();
  fillInstances(db, N);
  rows = all<Raw>(
    db,
    sql`SELECT i.id, i.ambiguity_type, i.status, i.hops, i.dataset_id, i.interpretation_count, b.question
        FROM instances i JOIN base_questions b ON b.id = i.base_question_id`,
  );
});

const query = (input: Partial<InstanceQuery>) => InstanceQuery.parse(input);

const plan = (input: Partial<InstanceQuery>, how: QueryPlan = 'walk-index') => explain(db, pageIdsQuery(query(input), how)).join(' | ');

describe('instance listing', () => {
  it('filters, sorts and pages in SQL, agreeing with a plain computation', () => {
    const expected = rows
      .filter((r) => r.ambiguity_type === 'semantic' && r.status !== 'building' && r.hops === 3)
      // Ties are broken by the index's columns (type, status, dataset, hops), then by id.
      .sort(
        (a, b) =>
          b.interpretation_count - a.interpretation_count ||
          b.ambiguity_type.localeCompare(a.ambiguity_type) ||
          b.status.localeCompare(a.status) ||
          b.dataset_id - a.dataset_id ||
          (b.hops ?? -1) - (a.hops ?? -1) ||
          b.id - a.id,
      );
    const input = { types: ['semantic' as const], statuses: ['ready' as const, 'removed' as const], hops: [3], sort: 'interpretation_count' as const, direction: 'desc' as const };
    const page1 = listInstances(db, query({ ...input, limit: 25 }));
    const page2 = listInstances(db, query({ ...input, limit: 25, offset: 25 }));
    expect([...page1, ...page2].map((r) => r.id)).toEqual(expected.slice(0, 50).map((r) => r.id));
    expect(countInstances(db, query(input))).toBe(expected.length);
  });

  it('treats hops 0 as "no hop count"', () => {
    expect(countInstances(db, query({ hops: [0] }))).toBe(rows.filter((r) => r.hops === null).length);
    expect(countInstances(db, query({ hops: [0, 2] }))).toBe(rows.filter((r) => r.hops === null || r.hops === 2).length);
  });

  it('sorts by question text', () => {
    const got = listInstances(db, query({ sort: 'question', limit: 10 })).map((r) => r.question);
    expect(got).toEqual([...rows].sort((a, b) => (a.question < b.question ? -1 : a.question > b.question ? 1 : a.id - b.id)).slice(0, 10).map((r) => r.question));
  });

  it('searches with FTS5 and ranks by relevance', () => {
    const word = rows[17]!.question.split(' ')[1]!;
    const found = listInstances(db, query({ search: word, sort: 'relevance', limit: 500 }));
    expect(found.length).toBeGreaterThan(0);
    expect(found.map((r) => r.id)).toContain(rows[17]!.id);
    expect(countInstances(db, query({ search: word }))).toBe(found.length);
    expect(listInstances(db, query({ search: '"((( NEAR' }))).toEqual([]);
  });

  it('counts facets under the other filters', () => {
    const facets = instanceFacetCounts(db, query({ types: ['constraint'] }));
    expect(facets.total).toBe(rows.filter((r) => r.ambiguity_type === 'constraint').length);
    // The type facet ignores the type filter, so every type keeps its count.
    expect(Object.fromEntries(facets.types.map((t) => [t.value, t.count]))).toEqual(
      Object.fromEntries(['constraint', 'semantic', 'syntactic'].map((t) => [t, rows.filter((r) => r.ambiguity_type === t).length])),
    );
    expect(facets.statuses.reduce((n, s) => n + s.count, 0)).toBe(facets.total);
  });
});

describe('query plans of the hot queries use indexes', () => {
  it('the default page walks the primary key', () => {
    expect(plan({})).toMatch(/SCAN i\b/);
    expect(plan({})).not.toMatch(/TEMP B-TREE/);
  });

  it('a page sorted by any indexed column walks that column\'s index, with no sort step', () => {
    for (const sort of ['hops', 'ambiguity_type', 'status', 'stage', 'interpretation_count', 'updated_at', 'dataset'] as const) {
      const walked = plan({ sort, types: ['semantic'], statuses: ['ready'] }, 'walk-index');
      expect(walked, sort).toMatch(/(SCAN|SEARCH) i USING COVERING INDEX instances_by_/);
      expect(walked, sort).not.toMatch(/TEMP B-TREE/);
    }
  });

  it('walks the sort index for a shallow unfiltered page, sorts when few rows match, and finds other pages through the order counts', () => {
    const q = query({ sort: 'hops', offset: 0, limit: 100 });
    expect(choosePlan(q, 1_000_000, 1_000_000)).toBe('walk-index');
    expect(choosePlan(query({ sort: 'hops', offset: 500_000 }), 1_000_000, 1_000_000)).toBe('position');
    // A filter may skip whole stretches of the order before its first match: never walked.
    expect(choosePlan(q, 400_000, 1_000_000)).toBe('position');
    expect(choosePlan(q, 500, 1_000_000)).toBe('filter-then-sort');
    expect(choosePlan(query({ sort: 'hops', offset: 40_000 }), 50_000, 1_000_000)).toBe('position');
    expect(choosePlan(query({ search: 'x' }), 10, 100)).toBe('search');
    // Filtering first uses a filter column's index.
    expect(plan({ sort: 'updated_at', types: ['syntactic'], datasets: [2] }, 'filter-then-sort')).toMatch(/SEARCH i USING (COVERING )?INDEX instances_by_(type|dataset)/);
  });

  it('every plan returns the same page', () => {
    const input = { sort: 'interpretation_count' as const, direction: 'desc' as const, types: ['semantic' as const], offset: 40, limit: 30 };
    const ids = (how: QueryPlan) => all<{ id: number }>(db, pageIdsQuery(query(input), how)).map((r) => r.id);
    expect(ids('walk-index')).toEqual(ids('filter-then-sort'));
    expect(ids('walk-index')).toHaveLength(30);
    const bq = { sort: 'question' as const, statuses: ['ready' as const], offset: 10, limit: 20 };
    expect(all(db, pageIdsQuery(query(bq), 'walk-index'))).toEqual(all(db, pageIdsQuery(query(bq), 'filter-then-sort')));
  });

  it('totals and facet counts come from the counts table, which the triggers keep exact', () => {
    const total = all<{ n: number }>(db, sql`SELECT sum(n) AS n FROM instance_counts`)[0]!.n;
    expect(total).toBe(rows.length);
    expect(explain(db, sql`SELECT coalesce(sum(n), 0) FROM instance_counts c WHERE c.ambiguity_type IN ('semantic')`).join()).not.toMatch(/instances\b/);
    db.exec("UPDATE instances SET status = 'removed', removed_reason = 'test', removed_stage = 'filter' WHERE id = 1 AND status != 'removed'");
    db.exec('DELETE FROM instances WHERE id = 2');
    const recount = all<{ status: string; n: number }>(db, sql`SELECT status, count(*) AS n FROM instances GROUP BY status ORDER BY status`);
    const fromCounts = all<{ status: string; n: number }>(db, sql`SELECT status, sum(n) AS n FROM instance_counts GROUP BY status ORDER BY status`);
    expect(fromCounts).toEqual(recount);
    rows = rows.filter((r) => r.id !== 2).map((r) => (r.id === 1 ? { ...r, status: 'removed' } : r));
  });

  it('a release reads its selection in key order off the unique indexes, with or without statistics, never sorting', () => {
    for (const target of [memoryDb(), db]) {
      for (const filter of [{ datasetIds: [], types: [], statuses: [] }, { datasetIds: [1], types: ['semantic' as const], statuses: ['ready' as const] }]) {
        const plan = explain(target, releaseCandidatesQuery(filter)).join(' | ');
        expect(plan).toMatch(/SEARCH b USING (COVERING )?INDEX sqlite_autoindex_base_questions_1/);
        expect(plan).not.toMatch(/TEMP B-TREE/);
      }
    }
  });

  it('lookups by key use their unique indexes', () => {
    expect(explain(db, sql`SELECT id FROM base_questions WHERE dataset_id = ${1} AND source_id = ${'bq-1'}`).join()).toMatch(/SEARCH base_questions USING COVERING INDEX sqlite_autoindex_base_questions/);
    expect(explain(db, sql`SELECT id FROM passages WHERE corpus_id = ${1} AND content_hash = ${contentHash('a', 'b')}`).join()).toMatch(/SEARCH passages USING COVERING INDEX sqlite_autoindex_passages/);
    expect(explain(db, sql`SELECT * FROM interpretations WHERE instance_id = ${1} ORDER BY position`).join()).toMatch(/SEARCH interpretations USING INDEX sqlite_autoindex_interpretations/);
    expect(explain(db, sql`SELECT * FROM evidence WHERE instance_id = ${1} ORDER BY coalesce(interpretation_id, 0), rank`).join()).toMatch(/SEARCH evidence USING INDEX evidence_rank/);
    expect(explain(db, sql`SELECT * FROM instances WHERE id = ${1}`).join()).toMatch(/SEARCH instances USING INTEGER PRIMARY KEY/);
  });
});

describe('query plans of the queries the services use', () => {
  it('look instances up by id and by base question through their keys', () => {
    expect(plansOf(db, (d) => instanceTypesByIds(d, [1, 2, 3]))).toEqual([expect.stringMatching(/SEARCH instances USING INTEGER PRIMARY KEY/)]);
    // A base question's instances come from the index that holds them by question in id order (migration 0023), with no sort.
    expect(plansOf(db, (d) => instancesOfBaseQuestion(d, 1))).toEqual([expect.stringMatching(/^SEARCH instances USING COVERING INDEX instances_by_base_question \(base_question_id=\?\)$/)]);
  });

  it('read a campaign through its items and assignments, never a scan of instances or judgments', () => {
    const [items] = plansOf(db, (d) => campaignInstances(d, 1));
    expect(items).toMatch(/SEARCH c USING PRIMARY KEY \(campaign_id=\?\)/);
    expect(items).toMatch(/SEARCH i USING INTEGER PRIMARY KEY/);
    const [progress] = plansOf(db, (d) => campaignProgress(d, 1, ['valid', 'answerable']));
    expect(progress).toMatch(/SEARCH s USING INDEX assignments_instance \(campaign_id=\?\)/);
    expect(progress).toMatch(/SEARCH j USING INDEX judgments_current \(assignment_id=\? AND criterion=\?\)/);
    expect(progress).toMatch(/SEARCH k USING COVERING INDEX judgments_current/);
    expect(progress).not.toMatch(/SCAN (j|k|i)\b/);
  });

  it('confine BM25 to a corpus by joining the matches to their passages by key', () => {
    const [scoped] = plansOf(db, (d) => bm25Passages(d, '"kalo"', 1, 10));
    expect(scoped).toMatch(/SCAN f VIRTUAL TABLE INDEX/);
    expect(scoped).toMatch(/SEARCH p USING INTEGER PRIMARY KEY/);
    expect(plansOf(db, (d) => countPassageMatches(d, '"kalo"', null))).toEqual([expect.stringMatching(/^SCAN passages_fts VIRTUAL TABLE INDEX/)]);
    expect(plansOf(db, (d) => findPassageId(d, 1, 'a', 'b'))).toEqual([expect.stringMatching(/SEARCH passages USING COVERING INDEX sqlite_autoindex_passages/)]);
  });

  it('build an instance\'s search row from its own rows by key', () => {
    const [remove, insert] = plansOf(db, (d) => writeInstanceSearchRow(d, 5));
    expect(remove).toMatch(/instances_fts VIRTUAL TABLE/);
    expect(insert).toMatch(/SEARCH i USING INTEGER PRIMARY KEY/);
    expect(insert).toMatch(/SEARCH n USING INDEX sqlite_autoindex_interpretations/);
    expect(insert).toMatch(/SEARCH l USING INDEX sqlite_autoindex_long_answers/);
  });
});

describe('query plans of the batched record reads (export, releases)', () => {
  it('look every table up by the batch\'s ids in an index, with no scan and no sort step', () => {
    const ids = [1, 2, 3, 40, 41, 2000];
    const batched = {
      instancesByIds, baseQuestionsByIds, paragraphsOf, decompositionsOf, detectionVotesOf, interpretationsOf, evidenceOf,
      subQuestionsOf, citationsOf, longAnswersOf, longAnswerCitationsOf, filterVotesOf, provenanceByIds, passagesByIds,
    };
    const expected: Record<keyof typeof batched, RegExp> = {
      instancesByIds: /SEARCH instances USING INTEGER PRIMARY KEY/,
      baseQuestionsByIds: /SEARCH base_questions USING INTEGER PRIMARY KEY/,
      paragraphsOf: /SEARCH base_question_passages USING PRIMARY KEY \(base_question_id=\?\)/,
      decompositionsOf: /SEARCH decomposition_steps USING PRIMARY KEY \(base_question_id=\?\)/,
      detectionVotesOf: /SEARCH detection_votes USING PRIMARY KEY \(base_question_id=\?\)/,
      interpretationsOf: /SEARCH interpretations USING INDEX sqlite_autoindex_interpretations_1 \(instance_id=\?\)/,
      evidenceOf: /SEARCH evidence USING INDEX evidence_rank \(instance_id=\?\)/,
      subQuestionsOf: /SEARCH i USING COVERING INDEX sqlite_autoindex_interpretations_1 \(instance_id=\?\).*SEARCH s USING PRIMARY KEY \(interpretation_id=\?\)/,
      citationsOf: /SEARCH i USING COVERING INDEX sqlite_autoindex_interpretations_1 \(instance_id=\?\).*SEARCH c USING PRIMARY KEY \(interpretation_id=\?\).*SEARCH e USING INTEGER PRIMARY KEY/,
      longAnswersOf: /SEARCH long_answers USING INDEX sqlite_autoindex_long_answers_1 \(instance_id=\?\)/,
      longAnswerCitationsOf: /SEARCH a USING COVERING INDEX sqlite_autoindex_long_answers_1 \(instance_id=\?\).*SEARCH c USING PRIMARY KEY \(long_answer_id=\?\)/,
      filterVotesOf: /SEARCH filter_votes USING INDEX sqlite_autoindex_filter_votes_1 \(instance_id=\?\)/,
      provenanceByIds: /SEARCH p USING INTEGER PRIMARY KEY.*SEARCH c USING INTEGER PRIMARY KEY/,
      passagesByIds: /SEARCH p USING INTEGER PRIMARY KEY.*SEARCH c USING INTEGER PRIMARY KEY/,
    };
    for (const [name, read] of Object.entries(batched)) {
      const plans = plansOf(db, (d) => read(d, ids));
      expect(plans, name).toHaveLength(1);
      expect(plans[0], name).toMatch(expected[name as keyof typeof batched]);
      // The ids are one JSON array, walked once; nothing else is scanned or sorted.
      expect(plans[0]!.replace(/SCAN json_each VIRTUAL TABLE[^|]*/, ''), name).not.toMatch(/SCAN|TEMP B-TREE/);
    }
  });

  it('read the rows the per-instance queries read, grouped by instance', async () => {
    const fresh = memoryDb();
    await importFile(fresh, { file: CONDAMBIGQA, format: 'condambigqa', dataset: 'cond' });
    const ids = all<{ id: number }>(fresh, sql`SELECT id FROM instances ORDER BY id`).map((r) => r.id);
    const perInstance = ids.flatMap((id) => listInterpretations(fresh, id));
    expect(perInstance.length).toBeGreaterThan(ids.length);
    expect(interpretationsOf(fresh, ids)).toEqual(perInstance);
    expect(interpretationsOf(fresh, [...ids].reverse())).toEqual(perInstance);
    expect(instancesByIds(fresh, ids).map((r) => r.id).sort((a, b) => a - b)).toEqual(ids);
  });
});

describe('the instance search row', () => {
  const interpretation = (instanceId: number, position: number, fields: Partial<NewInterpretation>): NewInterpretation => ({
    instanceId, position, clarifiedQuestion: null, condition: null, shortAnswer: null, answerAliases: [], answerPassageId: null,
    answerStart: null, answerEnd: null, status: 'active', droppedReason: null, questionProvenanceId: null,
    conditionProvenanceId: null, answerProvenanceId: null, extra: {}, ...fields,
  });
  const found = (d: WritableDB, word: string) => listInstances(d, query({ search: word, limit: 100 })).map((r) => r.id);

  it('finds an imported instance and a pipeline-built one by a word of their condition alike', async () => {
    const fresh = memoryDb();
    await importFile(fresh, { file: CONDAMBIGQA, format: 'condambigqa', dataset: 'cond' });
    // Import path: cond-001's first condition speaks of the nineteenth century.
    const [imported] = found(fresh, 'nineteenth');
    expect(imported).toBeDefined();
    // The pipeline's writer, run over the same instance, keeps the same words findable.
    refreshInstanceText(fresh, imported!);
    expect(found(fresh, 'nineteenth')).toEqual([imported]);
    expect(found(fresh, 'downstream')).toContain(imported);

    // Pipeline path: rows written as the stages write them, then the stage's refresh.
    const datasetId = insertDataset(fresh, { name: 'built', source_format: 'awb', description: '', licence: '', attribution: '', url: '' });
    const baseQuestionId = insertBaseQuestion(fresh, { datasetId, sourceId: 'b1', question: 'Which viaduct is meant?', hops: null, answer: null, aliases: [], answerable: null, extra: {} });
    const built = all<{ id: number }>(
      fresh,
      sql`INSERT INTO instances (base_question_id, dataset_id, ambiguity_type, status, stage) VALUES (${baseQuestionId}, ${datasetId}, 'semantic', 'building', 'clarify') RETURNING id`,
    )[0]!.id;
    insertInterpretation(fresh, interpretation(built, 0, { clarifiedQuestion: 'Which railway viaduct?', condition: 'If the tramway is meant', shortAnswer: 'Glenfinnan', answerAliases: ['Glenfinnan Viaduct', 'Harrypotterbridge'] }));
    const dropped = insertInterpretation(fresh, interpretation(built, 1, { clarifiedQuestion: 'Which aqueduct?', condition: 'If the waterway is meant' }));
    dropInterpretation(fresh, dropped, 'test');
    insertLongAnswer(fresh, built, 0, 'Both crossings are called Glenfinnan, after the glen.', null);
    refreshInstanceText(fresh, built);
    expect(found(fresh, 'tramway')).toEqual([built]);
    expect(found(fresh, 'harrypotterbridge')).toEqual([built]);
    expect(found(fresh, 'crossings')).toEqual([built]);
    expect(found(fresh, 'railway')).toEqual([built]);
    // A dropped interpretation is no longer part of the instance.
    expect(found(fresh, 'waterway')).toEqual([]);
    expect(getInstance(fresh, built)?.interpretation_count).toBe(1);
    // Deleting the instance takes its row with it.
    fresh.exec(`DELETE FROM instances WHERE id = ${built}`);
    expect(found(fresh, 'tramway')).toEqual([]);
  });
});

describe('writes', () => {
  it('deduplicates passages within a corpus, not across corpora', () => {
    const a = getOrCreateCorpus(db, 'corpus a');
    const b = getOrCreateCorpus(db, 'corpus b');
    const first = upsertPassage(db, { corpusId: a, sourceId: null, title: 'T', text: 'Body.', origin: 'x' });
    expect(upsertPassage(db, { corpusId: a, sourceId: 'other', title: 'T', text: 'Body.', origin: 'y' })).toEqual({ id: first.id, created: false });
    expect(upsertPassage(db, { corpusId: b, sourceId: null, title: 'T', text: 'Body.', origin: 'x' }).created).toBe(true);
    expect(upsertPassage(db, { corpusId: a, sourceId: null, title: 'T', text: 'Body!', origin: 'x' }).created).toBe(true);
    // Title and text are hashed apart: moving a word across the boundary is a different passage.
    expect(contentHash('ab', 'c').equals(contentHash('a', 'bc'))).toBe(false);
  });

  it('writes passages in bulk exactly as one at a time: the same ids, rows and search index', () => {
    const [one, bulk] = [memoryDb(), memoryDb()];
    const passages = (target: WritableDB) => {
      const [a, b] = [getOrCreateCorpus(target, 'a'), getOrCreateCorpus(target, 'b')];
      const p = (corpusId: number, title: string, text: string) => ({ corpusId, sourceId: null, title, text, origin: 'x' });
      upsertPassage(target, p(a, 'Old', 'Stored before the batch.'));
      // 37 passages (chunks of 32, 4 and 1): one stored before, one twice in the batch, one in another corpus.
      return [
        ...Array.from({ length: 33 }, (_, i) => p(a, `T${i}`, `Passage ${i} about rivers.`)),
        p(a, 'Old', 'Stored before the batch.'),
        p(a, 'T3', 'Passage 3 about rivers.'),
        p(b, 'T3', 'Passage 3 about rivers.'),
        p(a, 'Last', 'A lone passage at the end.'),
      ];
    };
    const singly = passages(one).map((p) => upsertPassage(one, p));
    const together = upsertPassages(bulk, passages(bulk));
    expect(together).toEqual(singly);
    expect(together.filter((r) => !r.created)).toHaveLength(2);
    const rows = (target: WritableDB) => target.prepare('SELECT * FROM passages ORDER BY id').all();
    expect(rows(bulk)).toEqual(rows(one));
    expect(countPassageMatches(bulk, 'rivers', null)).toBe(34);
    expect(bm25Passages(bulk, 'lone', null, 5)).toEqual(bm25Passages(one, 'lone', null, 5));
    // The hash is SHA-256 of title, unit separator and text, cut to 16 bytes.
    expect(contentHash('T1', 'x')).toEqual(createHash('sha256').update('T1').update('\u001f').update('x').digest().subarray(0, 16));
  });

  it('shares provenance rows', () => {
    const p = { source: 'llm' as const, detail: '', model: 'm', promptVersion: 'v1', callId: null };
    expect(getOrCreateProvenance(db, p)).toBe(getOrCreateProvenance(db, p));
    expect(getOrCreateProvenance(db, { ...p, promptVersion: 'v2' })).not.toBe(getOrCreateProvenance(db, p));
  });

  it('finds what it wrote', () => {
    expect(findBaseQuestionId(db, 1, 'bq-1')).toBe(1);
    expect(findBaseQuestionId(db, 1, 'missing')).toBeUndefined();
    expect(getInstance(db, 1)?.id).toBe(1);
    expect(listInterpretations(db, 1)).toEqual([]);
    expect(listEvidence(db, 1)).toEqual([]);
    expect(listBaseQuestions(db, { datasets: [2], hops: [], answerability: [], search: '', sort: 'id', direction: 'asc', offset: 0, limit: 5 }).every((r) => r.datasetId === 2)).toBe(true);
  });
});

describe('the JSON Schema of awb-instance/1', () => {
  it('is generated from the zod definitions (run `npm run schema` after changing them)', async () => {
    const fs = await import('node:fs');
    const { awbJsonSchema } = await import('../../shared/awb-schema');
    const committed = fs.readFileSync(new URL('../../resources/schema/awb-instance-1.schema.json', import.meta.url), 'utf8');
    expect(committed).toBe(`${JSON.stringify(awbJsonSchema(), null, 2)}\n`);
  });
});
