import { beforeAll, describe, expect, it } from 'vitest';
import { findBaseQuestionId, listBaseQuestions } from '../../db/queries/base-questions';
import { listEvidence } from '../../db/queries/evidence';
import { countInstances, getInstance, instanceFacetCounts, listInstances, listInstancesQuery } from '../../db/queries/instances';
import { listInterpretations } from '../../db/queries/interpretations';
import { contentHash, upsertPassage } from '../../db/queries/passages';
import { getOrCreateCorpus } from '../../db/queries/corpora';
import { getOrCreateProvenance } from '../../db/queries/provenance';
import { all, explain, sql, type WritableDB } from '../../db/sql';
import { InstanceQuery } from '../../shared/api';
import { memoryDb } from '../helpers/db';
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
const plan = (input: Partial<InstanceQuery>) => explain(db, listInstancesQuery(query(input))).join(' | ');

describe('instance listing', () => {
  it('filters, sorts and pages in SQL, agreeing with a plain computation', () => {
    const expected = rows
      .filter((r) => r.ambiguity_type === 'semantic' && r.status !== 'building' && r.hops === 3)
      .sort((a, b) => b.interpretation_count - a.interpretation_count || b.id - a.id);
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

  it('sorting by an indexed column needs no sort step', () => {
    for (const sort of ['hops', 'ambiguity_type', 'status', 'interpretation_count', 'updated_at', 'dataset'] as const) {
      expect(plan({ sort }), sort).toMatch(/USING (COVERING )?INDEX instances_/);
      expect(plan({ sort }), sort).not.toMatch(/USE TEMP B-TREE FOR ORDER BY/);
    }
  });

  it('a filter uses its index', () => {
    expect(plan({ types: ['syntactic'] })).toMatch(/INDEX instances_type/);
    expect(plan({ datasets: [2] })).toMatch(/INDEX instances_dataset/);
  });

  it('lookups by key use their unique indexes', () => {
    expect(explain(db, sql`SELECT id FROM base_questions WHERE dataset_id = ${1} AND source_id = ${'bq-1'}`).join()).toMatch(/SEARCH base_questions USING COVERING INDEX sqlite_autoindex_base_questions/);
    expect(explain(db, sql`SELECT id FROM passages WHERE corpus_id = ${1} AND content_hash = ${contentHash('a', 'b')}`).join()).toMatch(/SEARCH passages USING COVERING INDEX sqlite_autoindex_passages/);
    expect(explain(db, sql`SELECT * FROM interpretations WHERE instance_id = ${1} ORDER BY position`).join()).toMatch(/SEARCH interpretations USING INDEX sqlite_autoindex_interpretations/);
    expect(explain(db, sql`SELECT * FROM evidence WHERE instance_id = ${1} ORDER BY coalesce(interpretation_id, 0), rank`).join()).toMatch(/SEARCH evidence USING INDEX evidence_rank/);
    expect(explain(db, sql`SELECT * FROM instances WHERE id = ${1}`).join()).toMatch(/SEARCH instances USING INTEGER PRIMARY KEY/);
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
    expect(listBaseQuestions(db, { datasets: [2], hops: [], search: '', sort: 'id', direction: 'asc', offset: 0, limit: 5 }).every((r) => r.datasetId === 2)).toBe(true);
  });
});
