import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../db/connection';
import type { WritableDB } from '../../db/sql';
import { importFile } from '../../electron/services/import/import-file';
import { runPipeline } from '../../electron/services/pipeline/run';
import { embedCorpus } from '../../electron/services/retrieval/models';
import { tempDir, writeFile } from '../helpers/db';
import { startFakeOpenAI, type FakeOpenAI } from '../helpers/fake-openai';
import { pipelineBrain } from '../helpers/fake-pipeline';
import { everyVoterConfig, shortQuestions, storedRows as snapshot } from '../helpers/pipeline-rows';

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
const config = () => everyVoterConfig(fake.url, 'rerun');

beforeAll(async () => {
  fake = await startFakeOpenAI();
  fake.chat = pipelineBrain({ ambiguous: (q) => q.length % 3 === 0 });
  db = openDatabase(tmp.file('rerun.db'));
  const records = shortQuestions(QUESTIONS, 5);
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
