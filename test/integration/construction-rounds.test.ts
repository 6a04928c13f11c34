import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get, sql } from '../../db/sql';
import { fakeModel, type FakeItem } from '../../electron/dev/fake-model';
import { createHandlers, Workbench } from '../../electron/services';
import type { CampaignView, Handlers, RoundListRow, RoundReport } from '../../shared/api';
import type { RoundFunnel } from '../../shared/construction';
import { api, prizeRecord, reviewCampaign } from '../helpers/construction';
import { CONDAMBIGQA, tempDir, writeFile } from '../helpers/db';
import { startFakeOpenAI, type FakeOpenAI } from '../helpers/fake-openai';

/**
 * CondAmbigQA's construction in rounds, offline, through the operation map with the real SDK
 * against the fake model: 20 questions whose drafts come right in round 1 (8), round 2 (6),
 * round 3 (3) or never (3); a scripted reviewer accepts a draft when every answer is in a fragment
 * it cites and the conditions differ, and otherwise rejects it with what is wrong. Acceptance
 * must rise 40% → 70% → 85% (the paper reports 40% after the first round and 85% after two
 * more), and a release of the dataset's ready instances must hold the 17 accepted items only.
 */

const tmp = tempDir('awb-rounds-');
let fake: FakeOpenAI;
let workbench: Workbench;
let handlers: Handlers;
const items: FakeItem[] = [];

function config() {
  return {
    endpoints: { fake: { baseURL: fake.url, apiKeyEnv: 'AWB_TEST_KEY', maxInFlight: 8, retries: 0, timeoutMs: 5000 } },
    generator: { endpoint: 'fake', model: 'fake-generator' },
    prices: { 'fake-generator': { input: 1, output: 4 } },
    construction: { maxRounds: 3 },
  };
}

async function importRecords(dataset: string, numbers: number[], script: (i: number, item: FakeItem) => void): Promise<void> {
  const lines = numbers.map((i) => {
    const { record, item } = prizeRecord(dataset, i);
    script(i, item);
    items.push(item);
    return JSON.stringify(record);
  });
  const { job } = api(handlers, workbench);
  await job('dataset:import', { path: writeFile(tmp.file(`${dataset}.jsonl`), `${lines.join('\n')}\n`), format: 'awb' });
}

beforeAll(async () => {
  fake = await startFakeOpenAI();
  const model = fakeModel({ items });
  fake.chat = (body) => {
    const reply = model(body);
    return { ...(reply.status ? { status: reply.status } : {}), content: reply.content, promptTokens: reply.promptTokens, completionTokens: reply.completionTokens };
  };
  workbench = new Workbench({ databasePath: tmp.file('rounds.db'), mode: 'browser', version: 'test' });
  handlers = createHandlers(workbench);
});

afterAll(async () => {
  workbench.close();
  await fake.close();
  tmp.cleanup();
});

describe('CondAmbigQA rounds', () => {
  it('raise acceptance over three rounds, re-drafting only the rejected items with their feedback, and release the accepted ones', async () => {
    // Right from round 1: items 0-7; round 2: 8-13; round 3: 14-16; never: 17-19.
    await importRecords('prizes', [...Array(20).keys()], (i, item) => (item.rounds = i < 8 ? 1 : i < 14 ? 2 : i < 17 ? 3 : 0));
    const { value, job } = api(handlers, workbench);
    const first = (await job('round:start', { dataset: 'prizes', config: config() })).result as RoundReport;
    expect(first).toMatchObject({ drafted: 20, failed: 0, skipped: [] });
    expect(first.costUsd).toBeGreaterThan(0);

    const rejectedPerRound: number[] = [];
    for (let round = 1; round <= 3; round++) {
      const campaign = (await value('round:review', { dataset: 'prizes', annotators: ['ann'] })) as CampaignView;
      expect(campaign.protocol.key).toBe('condambigqa-review');
      expect(campaign.items).toHaveLength(round === 1 ? 20 : round === 2 ? 12 : 6);
      const reviewed = await reviewCampaign(handlers, workbench, campaign.id, 'ann');
      rejectedPerRound.push(reviewed.rejected);
      const next = (await job('round:next', { dataset: 'prizes', config: config() })).result as RoundReport;
      expect(next).toMatchObject({ accepted: reviewed.accepted, rejected: reviewed.rejected, pending: 0 });
      // Only the rejected go back; after the last round they are removed instead.
      expect(next.drafted).toBe(round < 3 ? reviewed.rejected : 0);
      expect(next.removed).toBe(round < 3 ? 0 : reviewed.rejected);
    }
    expect(rejectedPerRound).toEqual([12, 6, 3]);

    const funnel = (await value('round:funnel', { dataset: 'prizes' })) as RoundFunnel;
    expect(funnel).toMatchObject({ items: 20, accepted: 17, removed: 3, building: 0 });
    expect(funnel.rounds.map((r) => [r.round, r.drafted, r.accepted, r.rejected, r.cumulativeAcceptance])).toEqual([
      [1, 20, 8, 12, 0.4],
      [2, 12, 6, 6, 0.7],
      [3, 6, 3, 3, 0.85],
    ]);
    for (const r of funnel.rounds) {
      expect(r.costPerItem).toBeGreaterThan(0);
      expect(r.llmMsPerItem).toBeGreaterThan(0);
      expect(r.reviewMsPerItem).toBe(60_000);
    }
    expect(funnel.reference).toEqual([
      { round: 1, acceptance: 0.4 },
      { round: 3, acceptance: 0.85 },
    ]);

    // Round 2 prompts carried round 1's tuples and the reviewer's words.
    const redraft = fake.requests.find((r) => JSON.stringify(r.body).includes('tuples from round 1'));
    expect(JSON.stringify(redraft?.body)).toMatch(/Reviewer feedback:\\ninterpretation 2: the cited fragment 1 do not say \\"Bram Holt\d+\\"/);

    const removed = (await value('round:list', { dataset: 'prizes', round: 3, status: 'rejected' })) as RoundListRow[];
    expect(removed).toHaveLength(3);
    const gone = (await value('instance:get', { id: removed[0]!.instanceId })) as { status: string; removedReason: string };
    expect(gone.status).toBe('removed');
    expect(gone.removedReason).toMatch(/^not accepted after 3 rounds; last feedback: interpretation 2: the cited fragment 1 do not say "Bram Holt\d+"$/);

    const release = (await job('release:create', { name: 'Prizes', version: '1.0.0', out: tmp.file('release'), selection: { datasets: ['prizes'], statuses: ['ready'] } })).result as {
      counts: Record<string, number>;
      dir: string;
    };
    expect(Object.values(release.counts).reduce((a, b) => a + b, 0)).toBe(17);
    const card = fs.readFileSync(`${release.dir}/README.md`, 'utf8');
    expect(card).toMatch(/## Construction rounds/);
    expect(card).toMatch(/\| 1 \| 20 \| 8 \| 12 \| 40\.0% \| 40\.0% \|/);
  }, 120_000);

  it('refuses a draft that cites a fragment the question does not have: the item fails with the reason, nothing written', async () => {
    await importRecords('badcite', [100], (_, item) => (item.badCitation = true));
    const { job } = api(handlers, workbench);
    const report = (await job('round:start', { dataset: 'badcite', config: config() })).result as RoundReport;
    expect(report).toMatchObject({ drafted: 0, failed: 1 });
    expect(report.failures).toEqual([{ item: 'bq:21', reason: 'round 1: condition_cite: interpretation 1 cites fragment 14; this question has 10 fragments' }]);
    const db = workbench.db;
    const counts = get<{ instances: number; rounds: number }>(
      db,
      sql`SELECT (SELECT count(*) FROM instances i JOIN datasets d ON d.id = i.dataset_id WHERE d.name = 'badcite') AS instances,
                 (SELECT count(*) FROM construction_rounds r JOIN instances i ON i.id = r.instance_id JOIN datasets d ON d.id = i.dataset_id WHERE d.name = 'badcite') AS rounds`,
    )!;
    expect(counts).toEqual({ instances: 0, rounds: 0 });
  });

  it('reports a rejection that arrives after the item was accepted, and applies nothing', async () => {
    await importRecords('late', [200], (_, item) => (item.rounds = 1));
    const { value, job } = api(handlers, workbench);
    await job('round:start', { dataset: 'late', config: config() });
    const campaign = (await value('round:review', { dataset: 'late', annotators: ['ann', 'bob'], blind: false })) as CampaignView;
    await reviewCampaign(handlers, workbench, campaign.id, 'ann');
    const applied = (await job('round:next', { dataset: 'late', config: config() })).result as RoundReport;
    expect(applied).toMatchObject({ accepted: 1, drafted: 0 });
    const instanceId = campaign.items[0]!;
    const session = { campaignId: campaign.id, annotator: 'bob' };
    await value('judging:decide', { session, instanceId, criterion: 'feedback', value: 'the first condition is too vague' });
    await value('judging:decide', { session, instanceId, criterion: 'decision', value: 'reject' });
    const late = (await job('round:next', { dataset: 'late', config: config() })).result as RoundReport;
    expect(late).toMatchObject({ accepted: 0, rejected: 0, drafted: 0 });
    expect(late.skipped).toEqual([{ item: `inst:${instanceId}`, reason: `inst:${instanceId}: bob's "reject" from campaign ${campaign.id} (round 1) arrived after that round was accepted; not applied` }]);
    expect(((await value('round:list', { instanceId })) as RoundListRow[]).map((r) => [r.round, r.status])).toEqual([[1, 'accepted']]);
    expect(((await value('instance:get', { id: instanceId })) as { status: string }).status).toBe('ready');
  });

  it('passes over questions that already have an unspecified instance, saying why, and never drafts an item twice', async () => {
    const { job } = api(handlers, workbench);
    await job('dataset:import', { path: CONDAMBIGQA, format: 'condambigqa', dataset: 'cond' });
    const report = (await job('round:start', { dataset: 'cond', config: config() })).result as RoundReport;
    expect(report.drafted).toBe(0);
    expect(report.skipped.length).toBeGreaterThan(0);
    expect(report.skipped[0]!.reason).toMatch(/^bq:\d+ already has an unspecified instance \(inst:\d+, imported\); drafting would overwrite it/);
    const again = (await job('round:start', { dataset: 'prizes', config: config() })).result as RoundReport;
    expect(again).toMatchObject({ drafted: 0, failed: 0, skipped: [] });
  });
});
