import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { all, sql } from '../../db/sql';
import type { FakeItem } from '../../electron/dev/fake-model';
import { createHandlers, Workbench } from '../../electron/services';
import { readInstanceRecords } from '../../electron/services/record-reader';
import type { CampaignView, Handlers } from '../../shared/api';
import { AwbRecord } from '../../shared/awb-format';
import { recordToRow } from '../../shared/release/schema';
import { readParquetIndependently } from '../helpers/arrow-ffi';
import { fakeModelWorkbench, api, prizeRecord, reviewCampaign } from '../helpers/construction';
import { tempDir, writeFile } from '../helpers/db';
import type { FakeOpenAI } from '../helpers/fake-openai';

/**
 * Everything issue 25 adds travels: an instance built in two rounds (its round history and
 * feedback), an answerability and a topic set by the labelling stage and by hand, a clarification
 * turn, and the labelling votes go out with `dataset:export` as awb-instance/1 and come back the
 * same in a fresh database; a release carries them in its JSONL and in the Parquet columns.
 */

const tmp = tempDir('awb-c-roundtrip-');
let fake: FakeOpenAI;
let workbench: Workbench;
let handlers: Handlers;
let close: () => Promise<void>;
const items: FakeItem[] = [];

beforeAll(async () => {
  ({ fake, workbench, handlers, close } = await fakeModelWorkbench(tmp.file('a.db'), items));
});

afterAll(async () => {
  await close();
  tmp.cleanup();
});

const config = () => ({
  endpoints: { fake: { baseURL: fake.url, apiKeyEnv: 'AWB_TEST_KEY' } },
  generator: { endpoint: 'fake', model: 'fake-generator' },
  labellers: [1, 2, 3].map((n) => ({ endpoint: 'fake', model: `labeller-${n}` })),
});

describe('round trip of rounds, labels and clarification turns', () => {
  it('exports and imports them unchanged, and releases them in JSONL and Parquet', async () => {
    const lines = [0, 1].map((i) => {
      const { record, item } = prizeRecord('trip', i);
      item.rounds = 2;
      item.domain = i === 0 ? 'sports' : { 'labeller-1': 'history', 'labeller-2': 'music', 'labeller-3': 'sports' };
      items.push(item);
      return JSON.stringify(record);
    });
    const { value, job } = api(handlers, workbench);
    await job('dataset:import', { path: writeFile(tmp.file('trip.jsonl'), `${lines.join('\n')}\n`), format: 'awb' });
    await job('round:start', { dataset: 'trip', config: config() });
    for (let round = 1; round <= 2; round++) {
      const campaign = (await value('round:review', { dataset: 'trip', annotators: ['ann'] })) as CampaignView;
      await reviewCampaign(handlers, workbench, campaign.id, 'ann');
      await job('round:next', { dataset: 'trip', config: config() });
    }
    await job('label:start', { kind: 'domain', datasets: ['trip'], config: config() });
    await job('label:start', { kind: 'answerability', datasets: ['trip'], config: config() });
    const ids = all<{ id: number }>(workbench.db, sql`SELECT id FROM instances ORDER BY base_question_id`).map((r) => r.id);
    expect(ids).toHaveLength(2);
    await value('domain:set', { instanceId: ids[1]!, domain: 'history', note: 'checked by hand' });
    await value('answerability:set', { instanceId: ids[1]!, label: 'ambiguous' });
    await value('clarification:set', { instanceId: ids[0]!, turns: [{ systemQuestion: 'The 1961 prize or the 1984 award?', userReply: 'The 1984 one.', clarifiedQuestion: 'Who received the Palomar 0 award in 1984?', interpretation: 1 }] });

    const before = readInstanceRecords(workbench.db, ids);
    expect(before.map((r) => [r.instance!.domain, r.instance!.construction, r.instance!.rounds?.map((x) => x.status)])).toEqual([
      ['sports', 'condambigqa', ['rejected', 'accepted']],
      ['history', 'condambigqa', ['rejected', 'accepted']],
    ]);
    expect(before[0]!.instance!.rounds![0]!.feedback).toMatch(/^interpretation 2: the cited fragment 1 do not say "Bram Holt0"$/);
    expect(before[0]!.base_question.label_votes?.filter((v) => v.kind === 'domain').map((v) => [v.model, v.verdict, v.label])).toEqual([
      ['fake/labeller-1', 'voted', 'sports'],
      ['fake/labeller-2', 'voted', 'sports'],
      ['fake/labeller-3', 'not_needed', null],
    ]);
    for (const record of before) expect(AwbRecord.safeParse(record).success).toBe(true);

    await job('dataset:export', { path: tmp.file('trip-export.jsonl'), datasets: ['trip'] });
    const other = new Workbench({ databasePath: tmp.file('b.db'), mode: 'browser', version: 'test' });
    try {
      const { job: otherJob } = api(createHandlers(other), other);
      await otherJob('dataset:import', { path: tmp.file('trip-export.jsonl'), format: 'awb' });
      const otherIds = all<{ id: number }>(other.db, sql`SELECT id FROM instances ORDER BY base_question_id`).map((r) => r.id);
      expect(readInstanceRecords(other.db, otherIds)).toEqual(before);
    } finally {
      other.close();
    }

    const release = (await job('release:create', { name: 'Trip', version: '1.0.0', out: tmp.file('release'), selection: { datasets: ['trip'] }, split: { mode: 'fractions', fractions: { all: 1 }, seed: 1 } }))
      .result as { dir: string };
    const jsonl = fs.readFileSync(path.join(release.dir, 'data/all.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as AwbRecord);
    const parquet = readParquetIndependently(fs.readFileSync(path.join(release.dir, 'data/all-00000-of-00001.parquet')));
    expect(parquet.rows).toEqual(jsonl.map(recordToRow));
    const rows = parquet.rows as { domain: string; answerability: string; accepted_round: number; clarification: { question: string; interpretation: number | null }[] }[];
    expect(rows.map((r) => [r.domain, r.answerability, r.accepted_round, r.clarification.length]).sort()).toEqual([
      ['history', 'ambiguous', 2, 0],
      ['sports', 'ambiguous', 2, 1],
    ]);
    expect(rows.find((r) => r.clarification.length)!.clarification[0]).toEqual({ question: 'The 1961 prize or the 1984 award?', user_reply: 'The 1984 one.', clarified_question: 'Who received the Palomar 0 award in 1984?', interpretation: 1 });
    const card = fs.readFileSync(path.join(release.dir, 'README.md'), 'utf8');
    expect(card).toMatch(/\| History \| 1 \| 1 \| 50\.0% \|/);
    expect(card).toMatch(/\| Sports \| 1 \| 1 \| 50\.0% \|/);
  }, 120_000);
});
