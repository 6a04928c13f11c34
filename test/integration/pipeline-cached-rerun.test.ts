import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../db/connection';
import type { WritableDB } from '../../db/sql';
import { importFile } from '../../electron/services/import/import-file';
import { runPipeline } from '../../electron/services/pipeline/run';
import { embedCorpus } from '../../electron/services/retrieval/models';
import { tempDir, writeFile } from '../helpers/db';
import { startFakeOpenAI, type FakeOpenAI } from '../helpers/fake-openai';
import { pipelineBrain } from '../helpers/fake-pipeline';
import { musiqueRecord, rng } from '../helpers/synthetic';

/**
 * A fully cached re-run (the stages' outputs cleared, the calls kept) must store what the first
 * run stored: the same instances kept and removed, the same interpretations, evidence, answers and
 * votes with the same provenance, the same item checkpoints, and the same audit trail of calls
 * (each call's row as the first run wrote it, tagged with the item that used it last). Some
 * questions repeat, so some calls answer several items.
 */

const tmp = tempDir('awb-cached-rerun-');
let fake: FakeOpenAI;
let db: WritableDB;

const QUESTIONS = 40;
const config = () => ({
  endpoints: { fake: { baseURL: fake.url, maxInFlight: 8, retries: 0, timeoutMs: 5000 } },
  detectors: ['det-a', 'det-b', 'det-c', 'det-d'].map((model) => ({ endpoint: 'fake', model })),
  generator: { endpoint: 'fake', model: 'gen' },
  filters: ['fil-a', 'fil-b', 'fil-c'].map((model) => ({ endpoint: 'fake', model })),
  retrieval: { corpus: 'rerun', mode: 'hybrid', k: 3 },
  concurrency: 16,
  earlyExit: { enabled: false },
});

/** What the run stored, with row ids replaced by what they stand for (an instance by its question and type). */
function snapshot(db: WritableDB): Record<string, string[]> {
  const rows = <T>(query: string) => db.prepare(query).all() as T[];
  const instance = new Map(rows<{ id: number; key: string }>("SELECT id, base_question_id || '/' || ambiguity_type AS key FROM instances").map((r) => [r.id, r.key]));
  const interpretation = new Map(rows<{ id: number; instance_id: number; position: number }>('SELECT id, instance_id, position FROM interpretations').map((r) => [r.id, `${instance.get(r.instance_id)}#${r.position}`]));
  const provenance = new Map(rows<{ id: number; key: string }>("SELECT id, source || '|' || detail || '|' || coalesce(model, '') || '|' || coalesce(prompt_version, '') || '|' || coalesce(call_id, '') AS key FROM provenance").map((r) => [r.id, r.key]));
  const item = (tag: string | null) => (tag?.startsWith('inst:') ? `inst:${instance.get(Number(tag.slice(5)))}` : tag);
  const mapped = (query: string, map: (row: Record<string, unknown>) => Record<string, unknown>) => rows<Record<string, unknown>>(query).map((r) => JSON.stringify(map(r))).sort();
  const prov = (id: unknown) => (id === null ? null : provenance.get(id as number));
  return {
    instances: mapped('SELECT * FROM instances', ({ id, created_at, updated_at, answerability_provenance_id, domain_provenance_id, ...r }) => ({ key: instance.get(id as number), ...r, a: prov(answerability_provenance_id), d: prov(domain_provenance_id) })),
    interpretations: mapped('SELECT * FROM interpretations', ({ id, instance_id, question_provenance_id, condition_provenance_id, answer_provenance_id, ...r }) => ({ key: interpretation.get(id as number), ...r, q: prov(question_provenance_id), c: prov(condition_provenance_id), a: prov(answer_provenance_id) })),
    subQuestions: mapped('SELECT * FROM sub_questions', ({ interpretation_id, provenance_id, ...r }) => ({ of: interpretation.get(interpretation_id as number), ...r, p: prov(provenance_id) })),
    evidence: mapped('SELECT * FROM evidence', ({ id, instance_id, interpretation_id, provenance_id, ...r }) => ({ of: interpretation.get(interpretation_id as number), ...r, p: prov(provenance_id) })),
    longAnswers: mapped('SELECT * FROM long_answers', ({ id, instance_id, provenance_id, ...r }) => ({ of: instance.get(instance_id as number), ...r, p: prov(provenance_id) })),
    filterVotes: mapped('SELECT * FROM filter_votes', ({ id, instance_id, provenance_id, run_id, ...r }) => ({ of: instance.get(instance_id as number), ...r, p: prov(provenance_id) })),
    detectionVotes: mapped('SELECT * FROM detection_votes', ({ provenance_id, run_id, ...r }) => ({ ...r, p: prov(provenance_id) })),
    items: mapped('SELECT * FROM pipeline_items', ({ updated_at, run_id, item: tag, ...r }) => ({ item: item(tag as string), ...r })),
    provenance: [...provenance.values()].sort(),
    calls: mapped('SELECT * FROM llm_calls', ({ item: tag, ...r }) => ({ ...r, item: item(tag as string | null) })),
    retrievalCache: mapped('SELECT * FROM retrieval_cache', (r) => r),
  };
}

beforeAll(async () => {
  fake = await startFakeOpenAI();
  fake.chat = pipelineBrain({ ambiguous: (q) => q.length % 3 === 0 });
  db = openDatabase(tmp.file('rerun.db'));
  const random = rng(5);
  const records = Array.from({ length: QUESTIONS }, (_, i) => {
    const record = musiqueRecord(i, random, 200);
    return { ...record, paragraphs: record.paragraphs.slice(0, 4), question_decomposition: record.question_decomposition.map((s) => ({ ...s, paragraph_support_idx: Math.min(s.paragraph_support_idx, 3) })) };
  });
  // Every fifth question asked again under another id: its calls answer two items.
  const repeated = records.filter((_, i) => i % 5 === 0).map((r, i) => ({ ...r, id: `${r.id}-again${i}` }));
  const file = writeFile(tmp.file('questions.json'), JSON.stringify([...records, ...repeated]));
  await importFile(db, { file, format: 'musique', dataset: 'rerun' });
  await embedCorpus(db, { corpus: 'rerun', provider: 'offline', dimensions: 256 });
});
afterAll(async () => {
  db.close();
  await fake.close();
  tmp.cleanup();
});

describe('a fully cached re-run', () => {
  it('sends nothing and stores what the first run stored, down to the calls each item used', async () => {
    const first = await runPipeline(db, { config: config() });
    expect(first.status).toBe('done');
    expect(first.stages.find((s) => s.stage === 'filter')!.done).toBeGreaterThan(3);
    const firstRows = snapshot(db);
    const sent = fake.requests.length;

    db.exec(`DELETE FROM pipeline_items; DELETE FROM detection_votes; DELETE FROM instances WHERE ambiguity_type <> 'unspecified';`);
    const cached = await runPipeline(db, { config: config() });
    expect(cached.status).toBe('done');
    expect(fake.requests.length).toBe(sent);
    expect(cached.calls).toBe(0);
    // Every call of the first run answers again, plus those the first run shared between items in flight.
    expect(cached.cachedCalls).toBe(first.calls + first.cachedCalls);
    expect(cached.stages.map((s) => [s.stage, s.processed, s.done, s.failed, s.removed])).toEqual(first.stages.map((s) => [s.stage, s.processed, s.done, s.failed, s.removed]));
    const again = snapshot(db);
    for (const table of Object.keys(firstRows)) expect({ table, rows: again[table] }).toEqual({ table, rows: firstRows[table] });
  });
});
