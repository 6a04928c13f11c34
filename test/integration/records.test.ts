import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseQuestionsWithoutInstances } from '../../db/queries/base-questions';
import { all, sql, type WritableDB } from '../../db/sql';
import { importFile } from '../../electron/services/import/import-file';
import { startFakeEndpoint } from '../../electron/dev/fake-model';
import { runPipeline } from '../../electron/services/pipeline/run';
import {
  readBaseQuestionRecord,
  readBaseQuestionRecords,
  readInBatches,
  readInstanceRecord,
  readInstanceRecords,
} from '../../electron/services/record-reader';
import type { AwbRecord } from '../../shared/awb-format';
import { AMBIGNQ, ASQA, CONDAMBIGQA, memoryDb, MUSIQUE, ROOT, tempDir } from '../helpers/db';
import { richRecord } from '../helpers/release-fixture';

/**
 * Export and releases read records in batches (one query per table per batch); the single-record
 * reader reads one with a dozen queries. Both must give the same records, byte for byte, for
 * every kind of row a record carries.
 */

const tmp = tempDir('awb-records-');
let db: WritableDB;
let instanceIds: number[];
let orphanIds: number[];

beforeAll(async () => {
  db = memoryDb();
  await importFile(db, { file: MUSIQUE, format: 'musique', dataset: 'MuSiQue' });
  await importFile(db, { file: ASQA, format: 'asqa', dataset: 'ASQA' });
  await importFile(db, { file: AMBIGNQ, format: 'ambignq', dataset: 'AmbigNQ' });
  await importFile(db, { file: CONDAMBIGQA, format: 'condambigqa', dataset: 'CondAmbigQA' });
  // Evidence, citations, sub-questions, spans and long-answer citations, with provenance.
  const rich = tmp.file('rich.jsonl');
  fs.writeFileSync(rich, Array.from({ length: 6 }, (_, i) => `${JSON.stringify(richRecord(i + 1))}\n`).join(''));
  await importFile(db, { file: rich, format: 'awb' });
  // Pipeline-built instances: detection and filter votes, provenance naming model calls.
  const endpoint = await startFakeEndpoint();
  try {
    const config = JSON.parse(fs.readFileSync(`${ROOT}/resources/pipeline.offline.json`, 'utf8')) as { endpoints: Record<string, { baseURL: string }> };
    config.endpoints.fake!.baseURL = endpoint.url;
    expect((await runPipeline(db, { config, limit: 6 })).status).toBe('done');
  } finally {
    await endpoint.close();
  }
  instanceIds = all<{ id: number }>(db, sql`SELECT id FROM instances ORDER BY id`).map((r) => r.id);
  orphanIds = [...baseQuestionsWithoutInstances(db, [])].map((r) => r.id);
});
afterAll(() => tmp.cleanup());

const lines = (records: readonly AwbRecord[]) => records.map((r) => JSON.stringify(r));

describe('reading records in batches', () => {
  it('covers every kind of row a record carries', () => {
    const records = readInstanceRecords(db, instanceIds);
    const instances = records.map((r) => r.instance!);
    const interpretations = instances.flatMap((i) => i.interpretations);
    const orphans = readBaseQuestionRecords(db, orphanIds);
    expect(new Set([...records, ...orphans].map((r) => r.dataset.name))).toEqual(new Set(['MuSiQue', 'ASQA', 'AmbigNQ', 'CondAmbigQA', 'Rich']));
    expect(orphans.every((r) => r.instance === null && r.passages.length === new Set(r.base_question.paragraphs.map((p) => p.passage)).size)).toBe(true);
    expect(records.some((r) => r.base_question.detection_votes?.length)).toBe(true);
    expect(orphans.some((r) => r.base_question.decomposition.length && r.base_question.paragraphs.some((p) => p.is_supporting))).toBe(true);
    expect(instances.some((i) => i.filter_votes.length)).toBe(true);
    expect(instances.some((i) => i.evidence.length)).toBe(true);
    expect(interpretations.some((i) => i.evidence.length && i.citations.length && i.sub_questions.length)).toBe(true);
    expect(interpretations.some((i) => i.condition !== null)).toBe(true);
    expect(interpretations.some((i) => i.short_answer?.passage && i.short_answer.start !== null)).toBe(true);
    expect(interpretations.some((i) => i.provenance?.call)).toBe(true);
    expect(instances.some((i) => i.long_answers.some((a) => a.citations.some((c) => c.interpretation !== null)))).toBe(true);
  });

  it('gives the same bytes as the single-record reader, whatever the batch size and order', () => {
    const single = instanceIds.map((id) => JSON.stringify(readInstanceRecord(db, id)));
    expect(lines(readInstanceRecords(db, instanceIds))).toEqual(single);
    // Batches that cut through datasets, in another order, with an id twice.
    const byId = new Map(instanceIds.map((id, i) => [id, single[i]!]));
    const shuffled = [...instanceIds].reverse();
    for (const size of [1, 7, 64]) {
      const got = [...readInBatches(db, shuffled, (id) => id, readInstanceRecords, size)].flat();
      expect(got.map(({ item }) => item)).toEqual(shuffled);
      expect(got.map(({ record }) => JSON.stringify(record))).toEqual(shuffled.map((id) => byId.get(id)));
    }
    const twice = [instanceIds[3]!, instanceIds[0]!, instanceIds[3]!];
    expect(lines(readInstanceRecords(db, twice))).toEqual(twice.map((id) => byId.get(id)));
  });

  it('reads base questions without instances the same way', () => {
    const single = orphanIds.map((id) => JSON.stringify(readBaseQuestionRecord(db, id)));
    expect(lines(readBaseQuestionRecords(db, orphanIds))).toEqual(single);
    const batches = [...readInBatches(db, orphanIds, (id) => id, readBaseQuestionRecords, 50)];
    expect(batches.map((b) => b.length)).toEqual(Array.from({ length: Math.ceil(orphanIds.length / 50) }, (_, i) => Math.min(50, orphanIds.length - 50 * i)));
    expect(batches.flat().map(({ record }) => JSON.stringify(record))).toEqual(single);
  });

  it('refuses an id that does not exist, and reads nothing for no ids', () => {
    const missing = Math.max(...instanceIds) + 1;
    expect(() => readInstanceRecords(db, [instanceIds[0]!, missing])).toThrow(`No instance ${missing}`);
    expect(() => readBaseQuestionRecords(db, [10_000_000])).toThrow('No base question 10000000');
    expect(readInstanceRecords(db, [])).toEqual([]);
    expect([...readInBatches(db, [], (id: number) => id, readInstanceRecords)]).toEqual([]);
  });
});
