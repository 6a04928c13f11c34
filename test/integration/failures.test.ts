import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findAssignment } from '../../db/queries/assignments';
import { countFailures, failurePageIds, FAILURE_SORTS, type FailureFilter } from '../../db/queries/eval-items-failures';
import { findAnnotatorId } from '../../db/queries/annotators';
import { insertJudgment } from '../../db/queries/judgments';
import { createHandlers, Workbench } from '../../electron/services';
import { dispatch, type FailureItemView, type FailurePage, type Handlers, type Input, type ItemTagView, type JudgeValidationReport, type OperationName, type Output, type CampaignView, type JudgingItem } from '../../shared/api';
import { awb, awbJson } from '../helpers/cli';
import { ASQA, tempDir } from '../helpers/db';
import { seedEvalRun, type FixtureItem } from '../helpers/eval-fixture';
import { failureOperationCases } from '../helpers/failure-operation-cases';

/**
 * Failure inspection and judge validation through dispatch, on a real database: rule tags, tags
 * set by people with who, the failure table's filters, sorts and paging, two runs side by side,
 * review flags feeding a campaign, and the LLM judge compared with human ratings made with
 * `judging:decide`, checked against values computed independently in Python; every bad input of
 * the issue refused with a message and nothing computed.
 */

const tmp = tempDir('awb-failures-');
let workbench: Workbench;
let handlers: Handlers;
let instances: number[] = [];

async function value<K extends OperationName>(name: K, input: Input<K>): Promise<Output<K>> {
  const result = await dispatch(handlers, name, input);
  if (!result.ok) throw new Error(`${name}: ${result.error.code}: ${result.error.message}`);
  return result.value as Output<K>;
}

async function refusal<K extends OperationName>(name: K, input: Input<K>): Promise<{ code: string; message: string }> {
  const result = await dispatch(handlers, name, input);
  if (result.ok) throw new Error(`${name} should have been refused`);
  return result.error;
}

// ---- the judge-validation data (also in the Python reference below) ----
const JUDGE = {
  relevance: [5, 4, 4, 3, 2, 5, 1, 0, 3, 4],
  faithfulness: [4, 4, 5, 3, 3, 5, 2, 1, 2, 4],
  informativeness: [3, 2, 4, 3, 1, 5, 2, 0, 3, 3],
  correctness: [5, 5, 4, 2, 2, 4, 1, 1, 3, 5],
};
const PERSON_A = {
  relevance: [5, 4, 3, 3, 2, 4, 1, 1, 3, 5],
  faithfulness: [4, 3, 5, 3, 2, 5, 2, 1, 3, 4],
  informativeness: [2, 2, 4, 3, 2, 4, 1, 0, 3, 3],
  correctness: [5, 4, 4, 3, 2, 5, 0, 1, 3, 4],
};
const PERSON_B = {
  relevance: [4, 4, 3, 2, 2, 5, 2, 0, 3, 5],
  faithfulness: [5, 4, 4, 3, 3, 5, 1, 1, 2, 4],
  informativeness: [3, 3, 4, 2, 1, 5, 2, 1, 3, 3],
  correctness: [5, 5, 3, 2, 1, 4, 1, 2, 3, 5],
};
/**
 * Computed independently with a Python standard-library script (own Pearson, mid-rank Spearman,
 * O(n²) Kendall τ-b with tie corrections, quadratic weighted kappa on the 0-5 scale with the
 * people's mean rounded half up, Fisher-z interval with z = 1.959963984540054), the judge against
 * the mean of the two people.
 */
const REFERENCE = {
  relevance: { pearson: 0.934674651141, spearman: 0.910008104874, tauB: 0.843924938798, qwk: 0.907834101382, fisher: [0.741300594865, 0.984768740334] },
  faithfulness: { pearson: 0.95652173913, spearman: 0.956502334066, tauB: 0.903514637435, qwk: 0.939393939394, fisher: [0.821864138322, 0.989949638427] },
  informativeness: { pearson: 0.960681721728, spearman: 0.936221697863, tauB: 0.897731058075, qwk: 0.900662251656, fisher: [0.837840260371, 0.990926086321] },
  correctness: { pearson: 0.958911296091, spearman: 0.949704317743, tauB: 0.900281381905, qwk: 0.933333333333, fisher: [0.831015248258, 0.990510914725] },
};

const two = (question: string, a: string, b: string, evidence: [string, string] = ['wiki/A', 'wiki/B']): FixtureItem['interpretations'] => [
  { question: `${question} (first sense)`, answers: [a], evidence: [evidence[0]] },
  { question: `${question} (second sense)`, answers: [b], evidence: [evidence[1]] },
];

/** Run A: a mix of every kind of failure. */
function runAItems(): FixtureItem[] {
  return [
    { key: 'q0', instanceId: instances[0]!, type: 'semantic', interpretations: two('Who won', 'Alice', 'Bob'), answer: 'It was Alice, or Bob in the other sense.', retrieved: ['wiki/A', 'wiki/X'], strEm: 1, rougeL: 0.6 },
    { key: 'q1', instanceId: instances[1]!, type: 'semantic', interpretations: two('When was it built', '1883', '2004'), answer: 'It was built in 1883.', retrieved: ['wiki/X'], strEm: 0.5, rougeL: 0.4 },
    { key: 'q2', instanceId: instances[2]!, type: 'temporal', interpretations: two('Who led', 'Carol', 'Dan'), answer: 'Nobody knows that.', retrieved: ['wiki/B'], strEm: 0, rougeL: 0.1 },
    { key: 'q3', instanceId: instances[3]!, type: 'temporal', interpretations: two('Which city', 'Paris', 'Lyon'), error: 'answer: the model output is not valid JSON (Unexpected token)' },
    { key: 'q4', instanceId: instances[4]!, type: 'unspecified', interpretations: two('How tall', '330 metres', '300 metres'), answer: "I don't know the answer to this question.", retrieved: ['wiki/Y'], strEm: 0, rougeL: 0.05 },
    { key: 'q5', instanceId: instances[5]!, type: 'unspecified', interpretations: two('Where', 'Rome', 'Milan'), answer: 'Rome and Milan.', retrieved: ['wiki/A'], strEm: 1, rougeL: null, steps: 30 },
  ];
}

beforeAll(async () => {
  workbench = new Workbench({ databasePath: tmp.file('failures.db'), mode: 'browser', version: 'test' });
  handlers = createHandlers(workbench);
  const started = await value('dataset:import', { path: ASQA, format: 'asqa', dataset: 'ASQA' });
  expect((await workbench.jobs.wait(started.jobId)).state).toBe('done');
  instances = (await value('instance:list', { limit: 40, sort: 'id' })).rows.map((r) => r.id);
  expect(instances.length).toBe(40);
}, 60_000);

afterAll(() => {
  workbench.close();
  tmp.cleanup();
});

describe('failure tags', () => {
  it('ship a taxonomy that people can extend, refusing a key twice', async () => {
    const tags = await value('failure-tag:list', {});
    expect(tags.map((t) => t.key)).toEqual([
      'collapsed', 'missed-interpretation', 'condition-misidentified', 'factual-error', 'citation-failure', 'retrieval-miss', 'refusal-or-format-error',
      'clarification-error', 'detection-miss', 'hop-inconsistency', 'needs-clarification',
    ]);
    expect(tags.find((t) => t.key === 'collapsed')!.rule).toMatch(/at most one/);
    const added = await value('failure-tag:create', { key: 'outdated-gold', label: 'Outdated gold answer', who: 'ines' });
    expect(added).toMatchObject({ key: 'outdated-gold', builtIn: false, createdBy: 'ines', rule: null });
    expect((await refusal('failure-tag:create', { key: 'outdated-gold', label: 'again', who: 'ines' })).code).toBe('conflict');
    expect((await refusal('failure-tag:create', { key: 'Bad Key', label: 'x', who: 'ines' })).message).toMatch(/lower-case/);
  });

  it('are suggested by rules (collapsed, retrieval miss, format error, refusal) once, and a tag a person took off stays off', async () => {
    const { runId, itemIds } = seedEvalRun(workbench.db, { items: runAItems() });
    const { added } = await value('failure-tag:suggest', { run: runId });
    expect(added).toEqual({ collapsed: 3, 'retrieval-miss': 2, 'refusal-or-format-error': 2, 'detection-miss': 0, 'hop-inconsistency': 0, 'needs-clarification': 0 });
    const tagsOf = async (key: string) => (await value('failure:item', { id: itemIds.get(key)! })).tags.filter((t) => !t.removedAt).map((t) => t.key).sort();
    expect(await tagsOf('q0')).toEqual([]);
    expect(await tagsOf('q1')).toEqual(['collapsed', 'retrieval-miss']);
    expect(await tagsOf('q2')).toEqual(['collapsed']);
    expect(await tagsOf('q3')).toEqual(['refusal-or-format-error']);
    expect(await tagsOf('q4')).toEqual(['collapsed', 'refusal-or-format-error', 'retrieval-miss']);
    const q3 = (await value('failure:item', { id: itemIds.get('q3')! })).tags[0]!;
    expect(q3).toMatchObject({ source: 'rule', who: 'rule:refusal-or-format-error' });
    expect(q3.note).toMatch(/not valid JSON/);

    // A person disagrees with a rule: the removal is kept, and the rule does not put it back.
    const after = await value('failure-tag:remove', { item: itemIds.get('q2')!, tag: 'collapsed', who: 'ines' });
    expect(after[0]).toMatchObject({ key: 'collapsed', source: 'rule', removedBy: 'ines' });
    expect((await value('failure-tag:suggest', { run: runId })).added).toEqual({ collapsed: 0, 'retrieval-miss': 0, 'refusal-or-format-error': 0, 'detection-miss': 0, 'hop-inconsistency': 0, 'needs-clarification': 0 });
    expect(await tagsOf('q2')).toEqual([]);
  });

  it('are set by hand with who set them, keep their history, count per tag × method × type and export as CSV', async () => {
    const { runId, itemIds } = seedEvalRun(workbench.db, { method: 'cot', items: runAItems() });
    const item = itemIds.get('q0')!;
    let history: ItemTagView[] = await value('failure-tag:add', { item, tag: 'factual-error', who: 'ines', note: 'wrong year' });
    expect(history).toHaveLength(1);
    expect(history[0]).toMatchObject({ key: 'factual-error', source: 'person', who: 'ines', note: 'wrong year', removedAt: null });
    // Adding it again changes nothing; removing then re-adding keeps both rows.
    expect(await value('failure-tag:add', { item, tag: 'factual-error', who: 'joe' })).toHaveLength(1);
    await value('failure-tag:remove', { item, tag: 'factual-error', who: 'joe' });
    history = await value('failure-tag:add', { item, tag: 'factual-error', who: 'kim' });
    expect(history.map((h) => [h.who, h.removedBy])).toEqual([
      ['kim', null],
      ['ines', 'joe'],
    ]);
    expect((await refusal('failure-tag:add', { item, tag: 'no-such-tag', who: 'kim' })).code).toBe('not_found');
    expect((await refusal('failure-tag:remove', { item, tag: 'citation-failure', who: 'kim' })).code).toBe('not_found');

    await value('failure-tag:suggest', { run: runId });
    const counts = await value('failure-tag:counts', { runs: [runId] });
    const count = (tag: string, type: string) => counts.find((c) => c.tag === tag && c.ambiguityType === type)?.n ?? 0;
    expect(count('collapsed', 'semantic')).toBe(1);
    expect(count('collapsed', 'temporal')).toBe(1);
    expect(count('collapsed', 'unspecified')).toBe(1);
    expect(count('factual-error', 'semantic')).toBe(1);
    expect(counts.every((c) => c.method === 'cot' && c.runId === runId)).toBe(true);

    const file = tmp.file('tags.csv');
    const exported = await value('failure-tag:export', { run: runId, path: file });
    const lines = fs.readFileSync(file, 'utf8').trim().split('\n');
    expect(lines[0]).toBe('item_id,key,position,ambiguity_type,tag,source,who,note,created_at,removed_by,removed_at');
    expect(lines).toHaveLength(exported.rows + 1);
    expect(lines.filter((l) => l.includes(',factual-error,person,'))).toHaveLength(2);
    expect(lines.some((l) => l.includes(',factual-error,person,ines,wrong year,') && l.includes(',joe,'))).toBe(true);
  });
});

describe('the failure table', () => {
  let runId = 0;
  let ids: Map<string, number>;

  beforeAll(() => {
    // 30 items with spread-out metrics, some unscored (failed), to check filters, sorts and paging.
    const items: FixtureItem[] = Array.from({ length: 30 }, (_, i) => {
      const base = { key: `k${i}`, instanceId: instances[i]!, type: ['semantic', 'temporal', 'unspecified'][i % 3]!, interpretations: two(`Q${i}`, `A${i}`, `B${i}`) };
      if (i % 7 === 3) return { ...base, error: 'endpoint timed out' };
      const strEm = [0, 0.5, 1][i % 3]!;
      return { ...base, answer: i % 2 ? `A${i} and B${i}` : `A${i}`, retrieved: i % 4 === 0 ? ['wiki/Z'] : ['wiki/A'], strEm, rougeL: (i * 37) % 100 / 100, latencyMs: 1000 - i * 10 };
    });
    ({ runId, itemIds: ids } = seedEvalRun(workbench.db, { items }));
  });

  it('pages by any metric, items without a value last in either direction, and the pages agree with one sort of everything', async () => {
    for (const direction of ['asc', 'desc'] as const) {
      const all = await value('failure:list', { run: runId, sort: 'rouge_l', direction, limit: 500 });
      expect(all.total).toBe(30);
      const valued = all.rows.filter((r) => r.rougeL !== null);
      const sorted = [...valued].sort((a, b) => (direction === 'asc' ? a.rougeL! - b.rougeL! || a.position - b.position : b.rougeL! - a.rougeL! || b.position - a.position));
      expect(valued.map((r) => r.id)).toEqual(sorted.map((r) => r.id));
      expect(all.rows.slice(valued.length).every((r) => r.rougeL === null)).toBe(true);
      expect(all.rows.slice(valued.length).length).toBe(4);
      const paged: number[] = [];
      for (let offset = 0; offset < 30; offset += 7) paged.push(...(await value('failure:list', { run: runId, sort: 'rouge_l', direction, offset, limit: 7 })).rows.map((r) => r.id));
      expect(paged).toEqual(all.rows.map((r) => r.id));
    }
  });

  it('gives the same pages whichever plan reads them (a walk of the covering indexes, or filter then sort)', () => {
    const filters: FailureFilter[] = [
      {},
      { type: 'temporal' },
      { type: 'semantic', collapsed: true },
      { status: 'failed' },
      { retrievalMiss: true },
      { thresholds: [{ metric: 'str_em', below: 0.5 }] },
      { type: 'unspecified', thresholds: [{ metric: 'rouge_l', atLeast: 0.2, below: 0.9 }] },
    ];
    let compared = 0;
    for (const filter of filters) {
      for (const sort of FAILURE_SORTS) {
        for (const direction of ['asc', 'desc'] as const) {
          for (const [offset, limit] of [[0, 500], [3, 4], [9, 5]] as const) {
            const walked = failurePageIds(workbench.db, runId, filter, sort, direction, limit, offset, 'walk-index');
            expect(failurePageIds(workbench.db, runId, filter, sort, direction, limit, offset, 'filter-then-sort')).toEqual(walked);
            compared += walked.length;
          }
        }
      }
      expect(countFailures(workbench.db, runId, filter)).toBe(failurePageIds(workbench.db, runId, filter, 'position', 'asc', 500, 0).length);
    }
    expect(compared).toBeGreaterThan(1000);
  });

  it('counts only when asked: a table paging through one filter counts once', async () => {
    expect((await value('failure:list', { run: runId, collapsed: true, limit: 5 })).total).toBe(13);
    const page = await value('failure:list', { run: runId, collapsed: true, limit: 5, offset: 5, count: false });
    expect(page.total).toBeNull();
    expect(page.rows).toHaveLength(5);
  });

  it('filters on thresholds, type, collapsed, retrieval miss, errors and tags', async () => {
    const low = await value('failure:list', { run: runId, thresholds: [{ metric: 'str_em', below: 0.5 }], limit: 500 });
    expect(low.rows.every((r) => r.strEm !== null && r.strEm < 0.5)).toBe(true);
    expect(low.total).toBe(low.rows.length);
    expect(low.total).toBe(8);
    const band = await value('failure:list', { run: runId, thresholds: [{ metric: 'rouge_l', atLeast: 0.2, below: 0.6 }, { metric: 'str_em', atLeast: 0.5 }], sort: 'str_em', limit: 500 });
    expect(band.rows.length).toBeGreaterThan(0);
    expect(band.rows.every((r) => r.rougeL! >= 0.2 && r.rougeL! < 0.6 && r.strEm! >= 0.5)).toBe(true);
    const temporal = await value('failure:list', { run: runId, type: 'temporal', limit: 500 });
    expect(temporal.rows.map((r) => r.ambiguityType)).toEqual(Array(10).fill('temporal'));
    const collapsed = await value('failure:list', { run: runId, collapsed: true, limit: 500 });
    expect(collapsed.rows.every((r) => r.collapsed === true && r.answer!.indexOf(' and ') === -1)).toBe(true);
    expect(collapsed.total).toBe(13);
    const misses = await value('failure:list', { run: runId, retrievalMiss: true, limit: 500 });
    expect(misses.rows.map((r) => r.key).sort()).toEqual(['k0', 'k12', 'k16', 'k20', 'k28', 'k4', 'k8'].sort());
    const errors = await value('failure:list', { run: runId, status: 'failed', limit: 500 });
    expect(errors.rows.map((r) => r.key)).toEqual(['k3', 'k10', 'k17', 'k24']);
    expect(errors.rows[0]!.error).toBe('endpoint timed out');
    await value('failure-tag:add', { item: ids.get('k5')!, tag: 'citation-failure', who: 'ines' });
    const tagged = await value('failure:list', { run: runId, tag: 'citation-failure' });
    expect(tagged.rows.map((r) => [r.key, r.tags])).toEqual([['k5', ['citation-failure']]]);
    expect((await refusal('failure:list', { run: runId, thresholds: [{ metric: 'nonsense' as 'str_em', below: 1 }] })).code).toBe('invalid_input');
    expect((await refusal('failure:list', { run: 99_999 })).code).toBe('not_found');
  });

  it('puts two runs side by side on the same items: A right and B wrong, and the reverse', async () => {
    const items = (strEms: (number | null)[]): FixtureItem[] =>
      strEms.map((s, i) => ({ key: `s${i}`, instanceId: instances[i]!, interpretations: two(`S${i}`, `A${i}`, `B${i}`), ...(s === null ? { error: 'failed' } : { answer: `A${i}`, strEm: s }) }));
    const a = seedEvalRun(workbench.db, { items: items([1, 1, 0, 0, 1, null]) });
    const b = seedEvalRun(workbench.db, { method: 'cot', items: items([1, 0, 1, 0, null, 1]) });
    const aWins = await value('failure:list', { run: a.runId, versus: { run: b.runId, mode: 'a-right-b-wrong' } });
    expect(aWins.rows.map((r) => r.key)).toEqual(['s1', 's4']);
    expect(aWins.rows.map((r) => r.other?.status)).toEqual(['done', 'failed']);
    expect(aWins.versus).toMatchObject({ id: b.runId, method: 'cot' });
    const bWins = await value('failure:list', { run: a.runId, versus: { run: b.runId, mode: 'a-wrong-b-right' } });
    expect(bWins.rows.map((r) => [r.key, r.strEm, r.other?.strEm])).toEqual([
      ['s2', 0, 1],
      ['s5', null, 1],
    ]);
    expect((await refusal('failure:list', { run: a.runId, versus: { run: a.runId, mode: 'a-right-b-wrong' } })).message).toMatch(/two different runs/);
  });
});

describe('the failure view of one item', () => {
  it('marks each gold short answer found or missing, the overlap of retrieval with gold evidence, the 30-step trace and neighbours', async () => {
    const { itemIds } = seedEvalRun(workbench.db, { items: runAItems() });
    const view: FailureItemView = await value('failure:item', { id: itemIds.get('q1')! });
    // It covers one of two interpretations: partial (whether it collapsed them is the item's own flag, G.1).
    expect(view.coverage.verdict).toBe('partial');
    expect(view.coverage.interpretations.map((c) => c.found)).toEqual([true, false]);
    const span = view.coverage.interpretations[0]!.span!;
    expect(view.item.longAnswer!.slice(span.start, span.end)).toBe('1883');
    expect(view.retrieval.goldEvidence).toBe(2);
    expect(view.retrieval.goldFound).toBe(0);
    const full = await value('failure:item', { id: itemIds.get('q0')! });
    expect(full.coverage.verdict).toBe('covered');
    expect(full.retrieval.groups[0]!.passages.map((p) => [p.key, p.gold])).toEqual([
      ['wiki/A', true],
      ['wiki/X', false],
    ]);
    expect(full.previous).toBeNull();
    expect(full.next).toBe(itemIds.get('q1'));
    const long = await value('failure:item', { id: itemIds.get('q5')! });
    expect(long.item.steps).toHaveLength(30);
    expect(long.item.trace).toHaveLength(30);
    expect(long.item.trace[0]!.messages[1]!.content).toMatch(/^Question:/);
    expect(long.item.trace[29]!.response).toContain('"step":30');
    expect(long.next).toBeNull();
    expect((await refusal('failure:item', { id: 99_999 })).code).toBe('not_found');
  });
});

describe('flags for review', () => {
  it('are raised from an item with who and why, and a campaign can pick exactly the flagged instances', async () => {
    const { itemIds } = seedEvalRun(workbench.db, { items: runAItems() });
    const item = itemIds.get('q2')!;
    const flag = await value('instance-flag:add', { instance: instances[2]!, item, reason: 'The gold answer for the second sense is wrong.', who: 'ines' });
    expect(flag).toMatchObject({ instanceId: instances[2], evalItemId: item, who: 'ines', resolvedAt: null });
    await value('instance-flag:add', { instance: instances[7]!, reason: 'Ambiguity type looks wrong.', who: 'joe' });
    expect((await value('failure:item', { id: item })).flags.map((f) => f.reason)).toEqual(['The gold answer for the second sense is wrong.']);
    expect((await refusal('instance-flag:add', { instance: instances[3]!, item, reason: 'x', who: 'ines' })).message).toMatch(/not/);

    const preview = await value('campaign:preview', { selection: { flagged: true } });
    expect(preview.items).toBe(2);
    const campaign = await value('campaign:create', { name: 'review flagged', protocol: 'march-validation', annotators: ['ann'], selection: { flagged: true } });
    expect([...campaign.items].sort((a, b) => a - b)).toEqual([instances[2], instances[7]]);
    expect(await value('instance-flag:resolve', { instance: instances[7]!, who: 'joe' })).toEqual({ resolved: 1 });
    expect((await value('campaign:preview', { selection: { flagged: true } })).items).toBe(1);
    expect((await value('instance-flag:list', { instance: instances[7]! }))[0]).toMatchObject({ resolvedBy: 'joe' });
  });
});

describe('judge validation', () => {
  let runId = 0;
  let campaign: CampaignView;
  const ten = () => Array.from({ length: 10 }, (_, i) => i);

  beforeAll(() => {
    const items: FixtureItem[] = ten().map((i) => ({
      key: `j${i}`,
      instanceId: instances[20 + i]!,
      interpretations: two(`J${i}`, `A${i}`, `B${i}`),
      answer: `The method's long answer number ${i}: A${i}.`,
      strEm: 0.5,
      judge: { relevance: JUDGE.relevance[i]!, faithfulness: JUDGE.faithfulness[i]!, informativeness: JUDGE.informativeness[i]!, correctness: JUDGE.correctness[i]! },
    }));
    // Two items that will not be sampled into the campaign (no instance, and a failure).
    items.push({ key: 'jx', instanceId: null, interpretations: two('JX', 'a', 'b'), answer: 'a' }, { key: 'jf', instanceId: instances[35]!, interpretations: two('JF', 'a', 'b'), error: 'failed' });
    runId = seedEvalRun(workbench.db, { method: 'clarion', items }).runId;
  });

  it('sends a sample of the run to people, who rate the run’s own long answer, then compares judge and people per criterion', async () => {
    campaign = await value('judge-validation:start', { run: runId, name: 'judge check', annotators: ['ann', 'bob'], size: 50, seed: 3 });
    expect(campaign.protocol.key).toBe('long-answer-quality');
    expect([...campaign.items].sort((a, b) => a - b)).toEqual(ten().map((i) => instances[20 + i]));
    expect(campaign.selection).toMatchObject({ evalRun: runId });

    // Offline too: a pack carries the run's answer, and judging the pack shows it.
    const packFile = tmp.file('judge-check.awbpack');
    await value('pack:export', { campaignId: campaign.id, annotator: 'ann', path: packFile });
    const fromPack: JudgingItem = await value('judging:item', { session: { pack: packFile }, position: 0 });
    const n = instances.indexOf(fromPack.instance.id) - 20;
    expect(fromPack.evalAnswer).toMatchObject({ runId, longAnswer: `The method's long answer number ${n}: A${n}.` });

    for (const [annotator, ratings] of [
      ['ann', PERSON_A],
      ['bob', PERSON_B],
    ] as const) {
      const session = { campaignId: campaign.id, annotator };
      const queue = await value('judging:queue', { session });
      expect(queue.total).toBe(10);
      for (const entry of queue.items) {
        const item: JudgingItem = await value('judging:item', { session, position: entry.position });
        const i = instances.indexOf(entry.instanceId) - 20;
        expect(item.evalAnswer).toMatchObject({ runId, longAnswer: `The method's long answer number ${i}: A${i}.` });
        for (const criterion of ['relevance', 'faithfulness', 'informativeness', 'correctness'] as const) {
          await value('judging:decide', { session, instanceId: entry.instanceId, criterion, value: String(ratings[criterion][i]) });
        }
      }
    }

    const report: JudgeValidationReport = await value('judge-validation:get', { run: runId, campaign: campaign.id });
    expect(report).toMatchObject({ items: 10, rated: 10, judged: 10, annotators: 2 });
    for (const row of report.rows) {
      const ref = REFERENCE[row.criterion];
      expect(row.n).toBe(10);
      expect(row.pearson.value).toBeCloseTo(ref.pearson, 9);
      expect(row.pearson.ci!.low).toBeCloseTo(ref.fisher[0]!, 6);
      expect(row.pearson.ci!.high).toBeCloseTo(ref.fisher[1]!, 6);
      expect(row.spearman.value).toBeCloseTo(ref.spearman, 9);
      expect(row.kendallTauB.value).toBeCloseTo(ref.tauB, 9);
      expect(row.quadraticWeightedKappa.value).toBeCloseTo(ref.qwk, 9);
      for (const c of [row.spearman, row.kendallTauB, row.quadraticWeightedKappa]) {
        expect(c.ci!.low).toBeLessThanOrEqual(c.value!);
        expect(c.ci!.high).toBeGreaterThanOrEqual(c.value! - 1e-9);
        expect(c.n).toBe(10);
      }
    }

    // The same through the CLI, as JSON.
    const cli = awbJson<JudgeValidationReport>(['eval', 'judge-validation', '--run', String(runId), '--campaign', String(campaign.id), '--db', tmp.file('failures.db')]);
    expect(cli.status).toBe(0);
    expect(cli.json.rows.map((r) => r.pearson.value)).toEqual(report.rows.map((r) => r.pearson.value));
  }, 60_000);

  it('refuses a run still in progress, a campaign over another run or other instances, ratings off the scale and deleted items, computing nothing', async () => {
    const running = seedEvalRun(workbench.db, { status: 'running', items: [{ key: 'r0', instanceId: instances[20]!, interpretations: two('R', 'a', 'b'), answer: 'a' }] });
    expect((await refusal('judge-validation:get', { run: running.runId, campaign: campaign.id })).message).toMatch(/still in progress/);
    expect((await refusal('judge-validation:start', { run: running.runId, name: 'x', annotators: ['ann'], size: 5 })).message).toMatch(/still in progress/);

    // Another run on the same instances: the campaign rated run `runId`'s answers, not these.
    const other = seedEvalRun(workbench.db, { items: ten().map((i) => ({ key: `o${i}`, instanceId: instances[20 + i]!, interpretations: two('O', 'a', 'b'), answer: 'a', judge: { relevance: 1, faithfulness: 1, informativeness: 1, correctness: 1 } })) });
    expect((await refusal('judge-validation:get', { run: other.runId, campaign: campaign.id })).message).toMatch(new RegExp(`answers of evaluation run ${runId}`));

    // A plain campaign over instances the run never saw.
    const elsewhere = await value('campaign:create', { name: 'elsewhere', protocol: 'long-answer-quality', annotators: ['ann'], selection: { instanceIds: [instances[0]!, instances[1]!] } });
    const message = (await refusal('judge-validation:get', { run: runId, campaign: elsewhere.id })).message;
    expect(message).toMatch(/on other instances: 2 of its 2 instances/);

    // A campaign with another protocol.
    const wrongProtocol = await value('campaign:create', { name: 'yes/no', protocol: 'march-validation', annotators: ['ann'], selection: { instanceIds: [instances[20]!] } });
    expect((await refusal('judge-validation:get', { run: runId, campaign: wrongProtocol.id })).message).toMatch(/long-answer-quality/);

    // A rating off the 0-5 scale (as a file import from another tool could bring in).
    const annotatorId = findAnnotatorId(workbench.db, 'bob')!;
    const assignment = findAssignment(workbench.db, campaign.id, annotatorId, instances[21]!)!;
    const bad = insertJudgment(workbench.db, { uid: randomUUID(), assignmentId: assignment.id, criterion: 'correctness', value: '7', comment: '', source: 'file', itemMs: null, createdAt: new Date().toISOString() });
    expect((await refusal('judge-validation:get', { run: runId, campaign: campaign.id })).message).toMatch(/bob on instance \d+, correctness: "7"/);
    workbench.db.prepare('DELETE FROM judgments WHERE id = ?').run(bad);
    expect((await value('judge-validation:get', { run: runId, campaign: campaign.id })).rows).toHaveLength(4);

    // The run's items deleted.
    workbench.db.prepare('DELETE FROM eval_items WHERE run_id = ?').run(runId);
    workbench.db.prepare('UPDATE eval_runs SET total = 0, done = 0, failed = 0 WHERE id = ?').run(runId);
    expect((await refusal('judge-validation:get', { run: runId, campaign: campaign.id })).message).toMatch(/no items left/);
    const cli = awb(['eval', 'judge-validation', '--run', String(runId), '--campaign', String(campaign.id), '--db', tmp.file('failures.db'), '--json']);
    expect(cli.status).toBe(1);
    expect(JSON.parse(cli.stdout)).toMatchObject({ error: { code: 'not_found', message: expect.stringMatching(/no items left/) as unknown } });
  }, 60_000);
});

describe('the CLI', () => {
  it('lists failures with filters and exports tags', async () => {
    const { runId } = seedEvalRun(workbench.db, { items: runAItems() });
    await value('failure-tag:suggest', { run: runId });
    const db = tmp.file('failures.db');
    const listed = awbJson<FailurePage>(['eval', 'failures', '--run', String(runId), '--collapsed', '--below', 'str_em=0.6', '--sort', 'rouge_l', '--db', db]);
    expect(listed.status).toBe(0);
    expect(listed.json.rows.map((r) => r.key)).toEqual(['q4', 'q2', 'q1']);
    const bad = awb(['eval', 'failures', '--run', String(runId), '--below', 'nonsense=1', '--db', db, '--json']);
    expect(bad.status).toBe(2);
    expect(JSON.parse(bad.stdout)).toMatchObject({ error: { code: 'invalid_input', message: expect.stringMatching(/thresholds/) as unknown } });
    const out = tmp.file('cli-tags.csv');
    const exported = awbJson<{ rows: number }>(['eval', 'tags', 'export', '--run', String(runId), '--out', out, '--db', db]);
    expect(exported.json.rows).toBe(7);
    expect(fs.readFileSync(out, 'utf8').split('\n')[0]).toMatch(/^item_id,key/);
  }, 60_000);
});

describe('every failure operation', () => {
  it('answers through dispatch (the cases operations.test.ts can use)', async () => {
    const cases = failureOperationCases(() => workbench.db, (name, input) => dispatch(handlers, name, input), () => instances[39]!, (name) => tmp.file(name));
    for (const [name, run] of Object.entries(cases)) {
      await run().catch((error: Error) => {
        throw new Error(`${name}: ${error.message}`);
      });
    }
    expect(Object.keys(cases)).toHaveLength(15);
  });
});
