import http, { type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCampaign } from '../../electron/services/annotation/campaigns';
import { createHandlers, Workbench } from '../../electron/services';
import { roleMayCall } from '../../shared/api/access';
import { createHttpServer, listen } from '../../electron/transport/http';
import { dispatch, operations, type CampaignView, type Job, type OperationName, type Result } from '../../shared/api';
import { tempDir } from '../helpers/db';
import { fillInstances } from '../helpers/synthetic';
import { createAccounts } from '../helpers/team';

/**
 * Blind means blind in every operation: an annotator of a blind campaign calls every operation of
 * the map over real HTTP, and no answer may carry another annotator's judgment, the campaign's
 * agreement in any form (report, disagreements, release card, preview, job result), or the
 * pipeline's verdict on an instance they judge there. A viewer sees no blind agreement either; a
 * maintainer sees it all (which shows the checks look where the figures would be).
 */

const tmp = tempDir('awb-team-blind-');
let workbench: Workbench;
let server: Server;
let base: string;
const tokens: Record<string, string> = {};
let blind: CampaignView;
let releaseId = 0;
let releaseJob = '';
const BOB_SAYS = 'bob-private-remark-7f3a';
/** The agreement's figures and the card's agreement section, under any of their names. */
const AGREEMENT = /fleissKappa|gwetAc1|krippendorffAlpha|pBar|yesRate|majorityShare|kappa|Fleiss|AC1|P̄/;
const VERDICT = 'a filter model disagreed';

async function post<T>(name: string, body: unknown, who: string): Promise<{ status: number; text: string; result: Result<T> }> {
  const response = await fetch(`${base}/api/${name}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens[who]}` }, body: JSON.stringify(body) });
  const text = await response.text();
  return { status: response.status, text, result: JSON.parse(text) as Result<T> };
}

beforeAll(async () => {
  workbench = new Workbench({ databasePath: tmp.file('blind.db'), mode: 'browser', version: 'test' });
  fillInstances(workbench.db, 120, 5);
  // The pipeline removed these instances: a verdict the annotators must not see while judging them.
  blind = createCampaign(workbench.db, { name: 'Blind', protocol: 'march-validation', annotators: ['alice', 'bob'], seed: 3, blind: true, selection: { types: ['semantic'], statuses: ['removed'], perType: 6 } });
  const handlers = createHandlers(workbench);
  Object.assign(
    tokens,
    await createAccounts(workbench, [
      ['maria', 'maintainer'],
      ['alice', 'annotator'],
      ['bob', 'annotator'],
      ['vic', 'viewer'],
    ]),
  );
  // Both judge every item; bob leaves a remark only he and the maintainers may read.
  for (const annotator of ['alice', 'bob']) {
    for (const instanceId of blind.items) {
      const decided = await dispatch(handlers, 'judging:decide', {
        session: { campaignId: blind.id, annotator },
        instanceId,
        criterion: 'ambiguity',
        value: annotator === 'bob' && instanceId % 2 === 0 ? 'no' : 'yes',
        ...(annotator === 'bob' ? { comment: BOB_SAYS } : {}),
      });
      if (!decided.ok) throw new Error(decided.error.message);
    }
  }
  server = createHttpServer({ handlers, events: workbench.events, staticDir: tmp.file('static'), uploadDir: tmp.file('uploads'), host: '127.0.0.1', port: 0, team: { db: workbench.db } });
  base = (await listen(server, '127.0.0.1', 0)).replace(/\/$/, '');
  // A release validated by the blind campaign: its card and gate carry the agreement.
  const started = await post<{ jobId: string }>('release:create', { name: 'Blind release', version: '1.0.0', out: tmp.file('release'), selection: { campaignId: blind.id } }, 'maria');
  expect(started.status).toBe(403); // no server path over the network: the maintainer releases on the server
  const created = await dispatch(handlers, 'release:create', { name: 'Blind release', version: '1.0.0', out: tmp.file('release'), selection: { campaignId: blind.id }, gate: { minKappa: -1 }, force: 'figures wanted in the gate' });
  if (!created.ok) throw new Error(created.error.message);
  releaseJob = (created.value as { jobId: string }).jobId;
  const job = await workbench.jobs.wait(releaseJob);
  if (job.state !== 'done') throw new Error(`release: ${job.error?.message}`);
  releaseId = (job.result as { id: number }).id;
}, 120_000);

afterAll(() => {
  server?.closeAllConnections();
  server?.close();
  workbench?.close();
  tmp.cleanup();
});

const session = () => ({ campaignId: blind.id, annotator: 'alice' });
const instance = () => blind.items[0]!;

/** An input for every operation an annotator may call, aimed at the blind campaign, its instances and its release. */
const OPEN_INPUTS: Partial<Record<OperationName, () => unknown>> = {
  'job:get': () => ({ id: releaseJob }),
  'instance:list': () => ({ limit: 500 }),
  'instance:get': () => ({ id: instance() }),
  'base-question:get': () => ({ id: 1 }),
  'retrieval:search': () => ({ query: 'what', mode: 'bm25' }),
  'retrieval:cues': () => ({ query: 'what' }),
  'retrieval:evidence': () => ({ question: 'what' }),
  'protocol:get': () => ({ id: blind.protocol.id }),
  'protocol:versions': () => ({ key: 'march-validation' }),
  'protocol:document': () => ({ reference: 'march-validation@1' }),
  'campaign:get': () => ({ id: blind.id }),
  'campaign:preview': () => ({ selection: { types: ['semantic'] } }),
  'release:get': () => ({ id: releaseId }),
  'release:card': () => ({ id: releaseId }),
  'release:diff': () => ({ a: releaseId, b: releaseId }),
  'release:zip': () => ({ id: releaseId }),
  'release:preview': () => ({ name: 'Peek', version: '0.0.1', selection: { campaignId: blind.id } }),
  'pipeline:trace': () => ({ item: `inst:${instance()}` }),
  'pipeline:show': () => ({}),
  'pipeline:prompt-history': () => ({ stage: 'detect_semantic' }),
  'evaluation:get': () => ({ id: 1 }),
  'evaluation:items': () => ({ run: 1 }),
  'evaluation:item': () => ({ id: 1 }),
  'evaluation:compare': () => ({ a: 1, b: 1 }),
  'evaluation:prompt-history': () => ({ name: 'naive-rag' }),
  'failure:list': () => ({ run: 1 }),
  'failure:item': () => ({ id: 1 }),
  'failure:reasons': () => ({ run: 1 }),
  'instance-flag:list': () => ({ instance: instance() }),
  'judge-validation:get': () => ({ run: 1, campaign: blind.id }),
  'agreement:get': () => ({ campaignId: blind.id, resamples: 0 }),
  'agreement:disagreements': () => ({ campaignId: blind.id }),
  'judging:queue': () => ({ session: session() }),
  'judging:item': () => ({ session: session(), position: 0 }),
  'judging:decide': () => ({ session: session(), instanceId: instance(), criterion: 'clarification', value: 'yes' }),
  'judging:undo': () => ({ session: session() }),
  'judging:skip': () => ({ session: session(), instanceId: blind.items[1]! }),
};

/** Each object in an answer that is one of the blind instances must show none of the pipeline's verdict. */
function verdictsShown(value: unknown, hidden: Set<number>): string[] {
  const found: string[] = [];
  const walk = (node: unknown) => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (typeof node !== 'object' || node === null) return;
    const row = node as Record<string, unknown>;
    if (typeof row.id === 'number' && hidden.has(row.id)) {
      if (row.status !== undefined && row.status !== 'ready') found.push(`${row.id}: status ${String(row.status)}`);
      if (row.removedReason) found.push(`${row.id}: ${String(row.removedReason)}`);
      if (Array.isArray(row.filterVotes) && row.filterVotes.length) found.push(`${row.id}: filter votes`);
    }
    Object.values(row).forEach(walk);
  };
  walk(value);
  return found;
}

describe('an annotator of a blind campaign, calling every operation', () => {
  it('gets no other annotator\'s judgment, no agreement figure and no verdict on what they judge, from any operation', async () => {
    const names = Object.keys(operations) as OperationName[];
    const hidden = new Set(blind.items);
    const open = names.filter((name) => roleMayCall('annotator', name));
    // Every operation open to annotators is called with an input aimed at the blind campaign.
    expect(open.filter((name) => !OPEN_INPUTS[name] && !/^[a-z-]+:(list|facets|info|status|defaults|funnel|failures|prompts|prices|methods|table|counts|attributions|get)$/.test(name))).toEqual([]);
    let answered = 0;
    for (const name of names) {
      const input = OPEN_INPUTS[name]?.() ?? {};
      const answer = await post(name, input, 'alice');
      expect(answer.text, name).not.toContain(BOB_SAYS);
      expect(verdictsShown(answer.result, hidden), name).toEqual([]);
      if (answer.result.ok) {
        expect(answer.text, name).not.toMatch(AGREEMENT);
        answered++;
      }
      if (!open.includes(name)) expect(answer.status, name).toBe(403);
    }
    expect(answered).toBeGreaterThan(30);
  }, 120_000);

  it('is refused the blind campaign\'s agreement, disagreements, release card, zip and preview, each saying why', async () => {
    for (const [name, input] of [
      ['agreement:get', { campaignId: blind.id, resamples: 0 }],
      ['agreement:disagreements', { campaignId: blind.id }],
      ['release:get', { id: releaseId }],
      ['release:card', { id: releaseId }],
      ['release:zip', { id: releaseId }],
      ['release:preview', { name: 'Peek', version: '0.0.1', selection: { campaignId: blind.id } }],
      ['judge-validation:get', { run: 1, campaign: blind.id }],
    ] as const) {
      for (const who of ['alice', 'vic']) {
        const refused = await post(name, input, who);
        expect(refused.status, `${name} as ${who}`).toBe(403);
        expect(!refused.result.ok && refused.result.error.message).toMatch(/blind campaign: its agreement and judgments are for maintainers only/);
      }
    }
  });

  it('judges with the pipeline\'s verdicts withheld, and may not read the trace of what they judge', async () => {
    const item = await post<{ instance: { blind?: boolean; status: string; filterVotes: unknown[]; removedReason: string | null } }>('judging:item', { session: session(), position: 0 }, 'alice');
    expect(item.result.ok && item.result.value.instance).toMatchObject({ blind: true, status: 'ready', filterVotes: [], removedReason: null });
    const detail = await post<{ blind?: boolean; removedReason: string | null }>('instance:get', { id: instance() }, 'alice');
    expect(detail.result.ok && detail.result.value).toMatchObject({ blind: true, removedReason: null });
    expect((await post('pipeline:trace', { item: `inst:${instance()}` }, 'alice')).status).toBe(403);
    // Others see the verdict where the campaign does not hide it from them.
    const maintainer = await post<{ removedReason: string | null }>('instance:get', { id: instance() }, 'maria');
    expect(maintainer.result.ok && maintainer.result.value.removedReason).toBe(VERDICT);
  });

  it('hears job progress over server-sent events, not the results, which hold the gate\'s figures', async () => {
    const seen: string[] = [];
    let connected: () => void = () => undefined;
    const listening = new Promise<void>((resolve) => (connected = resolve));
    const done = new Promise<void>((resolve, reject) => {
      const req = http.get(`${base}/api/events`, { headers: { authorization: `Bearer ${tokens.alice}` } }, (response) => {
        response.on('data', (chunk: Buffer) => {
          seen.push(chunk.toString());
          connected();
          if (seen.join('').includes('event: job:done')) {
            req.destroy();
            resolve();
          }
        });
      });
      req.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' ? resolve() : reject(error)));
    });
    await listening;
    const started = await dispatch(createHandlers(workbench), 'release:create', { name: 'Blind release', version: '1.0.1', out: tmp.file('release-2'), selection: { campaignId: blind.id }, gate: { minKappa: -1 }, force: 'figures wanted in the gate' });
    expect(started.ok).toBe(true);
    await done;
    const text = seen.join('');
    const finished = JSON.parse(/event: job:done\ndata: (.*)\n/.exec(text)![1]!) as Job;
    expect(finished).toMatchObject({ state: 'done', result: null });
    expect(text).not.toMatch(AGREEMENT);
    // The same job's result, as a maintainer sees it, holds the gate's agreement check.
    const jobId = started.ok ? (started.value as { jobId: string }).jobId : '';
    const seenByMaintainer = await post<Job>('job:get', { id: jobId }, 'maria');
    expect(seenByMaintainer.text).toMatch(/Fleiss/);
  });
});

describe('a maintainer', () => {
  it('sees the blind campaign\'s agreement and the release card that holds it', async () => {
    const card = await post<{ markdown: string }>('release:card', { id: releaseId }, 'maria');
    expect(card.result.ok && card.result.value.markdown).toMatch(/Fleiss/);
    const report = await post('agreement:get', { campaignId: blind.id, resamples: 10 }, 'maria');
    expect(report.text).toMatch(/fleissKappa/);
    const job = await post<Job>('job:get', { id: releaseJob }, 'maria');
    expect(job.text).toMatch(/Fleiss/);
  });
});
