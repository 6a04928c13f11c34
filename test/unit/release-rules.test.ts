import { describe, expect, it } from 'vitest';
import { GateThresholds, ReleaseCreateRequest, ReleaseDraft } from '../../shared/api';
import { changedFields, fieldChanges, mergeByKey, questionOf } from '../../shared/release/diff';
import { coverageWords, evaluateGate, readGate } from '../../shared/release/gate';
import { defaultReleaseFolder, releaseFolderName } from '../../shared/release/folder';
import { checkLicence, hubLicenceId, readLicence } from '../../shared/release/licence';
import { compareSemver, isSemver, parseSemver } from '../../shared/release/semver';
import { allocate, assignSplits, parseSplitSpec, seededKeyHash, sortByHash, sourceSplitName, splitProblem } from '../../shared/release/splits';

describe('semantic versions', () => {
  it('parses MAJOR.MINOR.PATCH with an optional pre-release and refuses the rest', () => {
    expect(parseSemver('1.2.3-rc.1')).toEqual({ major: 1, minor: 2, patch: 3, pre: 'rc.1' });
    for (const bad of ['1.2', '01.2.3', 'v1.2.3', '1.2.3.4', '1.2.3-', '']) expect(isSemver(bad)).toBe(false);
  });

  it('orders versions as semver says (pre-releases first, numeric parts as numbers)', () => {
    const sorted = ['1.10.0', '1.2.0', '1.2.0-rc.10', '1.2.0-rc.2', '1.2.0-alpha', '0.9.9'].sort(compareSemver);
    expect(sorted).toEqual(['0.9.9', '1.2.0-alpha', '1.2.0-rc.2', '1.2.0-rc.10', '1.2.0', '1.10.0']);
  });

  it('is checked by the release schema', () => {
    expect(ReleaseDraft.safeParse({ name: 'MARCH', version: '1.0' }).success).toBe(false);
    expect(ReleaseDraft.parse({ name: 'MARCH', version: '1.0.0' }).split).toEqual({ mode: 'fractions', fractions: { train: 0.8, test: 0.2 }, seed: 1 });
    expect(ReleaseCreateRequest.safeParse({ name: 'MARCH', version: '1.0.0', out: '/tmp/x', force: '  ' }).success).toBe(false);
  });
});

describe('splits', () => {
  it('parses and checks split specs', () => {
    expect(parseSplitSpec('train=0.8, test=0.2')).toEqual({ train: 0.8, test: 0.2 });
    expect(() => parseSplitSpec('train')).toThrow(/NAME=FRACTION/);
    expect(splitProblem({ train: 0.7, test: 0.2 })).toMatch(/add up to 0\.9/);
    expect(splitProblem({ Train: 1 })).toMatch(/lower-case/);
    expect(splitProblem({ train: 0.8, test: 0.2 })).toBeNull();
    expect(ReleaseDraft.safeParse({ name: 'x', version: '1.0.0', split: { mode: 'fractions', fractions: { a: 0.5 } } }).success).toBe(false);
  });

  it('allocates exact counts by largest remainder', () => {
    expect(allocate(12, [0.8, 0.2])).toEqual([10, 2]);
    expect(allocate(10, [1 / 3, 1 / 3, 1 / 3])).toEqual([4, 3, 3]);
    expect(allocate(0, [0.5, 0.5])).toEqual([0, 0]);
  });

  it('stratifies by group, depends only on the seed and the keys, and changes with the seed', () => {
    const keys = Array.from({ length: 300 }, (_, i) => `ds/q${i}/${i % 3 === 0 ? 'semantic' : 'constraint'}`);
    const groups = Uint8Array.from(keys, (k) => (k.endsWith('semantic') ? 0 : 2));
    const run = (seed: number) => assignSplits(groups, Float64Array.from(keys, (k) => seededKeyHash(seed, k)), keys.length, [0.8, 0.2]);
    const a = run(5);
    expect([...a]).toEqual([...run(5)]);
    expect([...a]).not.toEqual([...run(6)]);
    const testOf = (group: number) => keys.filter((_, i) => groups[i] === group && a[i] === 1).length;
    expect([testOf(0), testOf(2)]).toEqual([20, 40]);
    // Reordering the input does not move any key to another split.
    const reversed = [...keys].reverse();
    const b = assignSplits(Uint8Array.from(reversed, (k) => (k.endsWith('semantic') ? 0 : 2)), Float64Array.from(reversed, (k) => seededKeyHash(5, k)), keys.length, [0.8, 0.2]);
    expect(reversed.map((k, i) => [k, b[i]]).sort()).toEqual(keys.map((k, i) => [k, a[i]]).sort());
  });

  it('orders items by hash as a comparison sort on (hash, position) does, ties included, over the whole 53-bit range', () => {
    let state = 7;
    const next = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32;
    for (const n of [0, 1, 2, 1000, 70_000]) {
      // A few hashes repeat; they span every bit of the 53, the top and bottom bits included.
      const pool = Array.from({ length: Math.max(1, n >> 1) }, (_, i) => (i % 7 === 0 ? 2 ** 53 - 1 - i : Math.floor(next() * 2 ** 21) * 2 ** 32 + Math.floor(next() * 2 ** 32)));
      const hashes = Float64Array.from({ length: n * 2 }, () => pool[Math.floor(next() * pool.length)]!);
      const items = Uint32Array.from({ length: n }, (_, k) => k * 2 + (k % 2));
      const expected = [...items].sort((a, b) => hashes[a]! - hashes[b]! || a - b);
      expect([...sortByHash(items, hashes)]).toEqual(expected);
    }
    expect(() => sortByHash(Uint32Array.of(0), Float64Array.of(0.5))).toThrow(/not a seededKeyHash/);
  });

  it('names source splits from the record or the dataset', () => {
    expect(sourceSplitName('Validation', 'ASQA')).toBe('validation');
    expect(sourceSplitName(null, 'ASQA dev 2022')).toBe('asqa_dev_2022');
    expect(sourceSplitName('2019', 'x')).toBe('s_2019');
  });
});

describe('licences', () => {
  it('reads free-text licences, including a share-alike one named inside another', () => {
    expect(readLicence('CC BY-SA 3.0')).toMatchObject({ spdx: 'CC-BY-SA-3.0', shareAlike: true, version: 3 });
    expect(readLicence('Apache-2.0 (questions derive from AmbigNQ, CC BY-SA 3.0)')).toMatchObject({ spdx: 'Apache-2.0', shareAlike: true, version: 3, shareAlikeSpdx: 'CC-BY-SA-3.0' });
    expect(readLicence('Creative Commons Attribution 4.0')).toMatchObject({ spdx: 'CC-BY-4.0', shareAlike: false });
    expect(readLicence('MIT')).toMatchObject({ spdx: 'MIT' });
    expect(readLicence('submitted by the authors').spdx).toBeNull();
  });

  const src = (dataset: string, licence: string) => ({ dataset, licence, attribution: '', url: '' });

  it('makes a release of a share-alike source share-alike, at the highest version', () => {
    const check = checkLicence([src('AmbigNQ', 'CC BY-SA 3.0'), src('MuSiQue', 'CC BY 4.0')], null);
    expect(check).toMatchObject({ licence: 'CC-BY-SA-4.0', shareAlike: true, compatible: true });
  });

  it('refuses a release licence that contradicts a source', () => {
    const sources = [src('ASQA', 'Apache-2.0 (questions derive from AmbigNQ, CC BY-SA 3.0)')];
    expect(checkLicence(sources, 'CC-BY-4.0')).toMatchObject({ compatible: false, problems: [expect.stringMatching(/ASQA is CC-BY-SA-3\.0 \(share-alike\)/)] });
    expect(checkLicence(sources, 'MIT').compatible).toBe(false);
    expect(checkLicence(sources, 'CC-BY-SA-3.0').compatible).toBe(true);
    expect(checkLicence(sources, 'CC BY-SA 4.0').compatible).toBe(true);
    expect(checkLicence([src('NC', 'CC BY-NC 4.0')], 'CC-BY-4.0').compatible).toBe(false);
    expect(checkLicence([src('NC', 'CC BY-NC 4.0')], null).licence).toBe('CC-BY-NC-4.0');
    expect(checkLicence([src('ND', 'CC BY-ND 4.0')], null).compatible).toBe(false);
    expect(checkLicence([src('A', 'MIT'), src('B', 'MIT')], null).licence).toBe('MIT');
    expect(checkLicence([src('A', '')], null)).toMatchObject({ licence: 'CC-BY-4.0', unknown: ['A'] });
  });

  it('maps SPDX ids to the Hub card ids', () => {
    expect(hubLicenceId('CC-BY-SA-4.0')).toBe('cc-by-sa-4.0');
    expect(hubLicenceId('ODbL-1.0')).toBe('odbl');
    expect(hubLicenceId('Apache-2.0')).toBe('apache-2.0');
    expect(hubLicenceId('Custom terms')).toBe('other');
  });
});

describe('the gate', () => {
  const thresholds = GateThresholds.parse({ minKappa: 0.6, minYesRate: 0.9, minJudgments: 3, noUnresolved: true });
  const measures = {
    criteria: [
      { id: 'ambiguity', fleissKappa: 0.72, ac1: 0.9, yesRate: 0.95 },
      { id: 'clarification', fleissKappa: 0.41234, ac1: 0.8, yesRate: 0.91 },
    ],
    minJudgments: 3,
    unresolved: 2,
    coverage: { campaignId: 4, judged: 38, selected: 38 },
  };

  it('checks every threshold per criterion and reports threshold, value and verdict', () => {
    const gate = evaluateGate(thresholds, measures);
    expect(gate.passed).toBe(false);
    expect(gate.verdict).toBe('refused');
    expect(gate.checks).toEqual([
      { name: "Fleiss' kappa: ambiguity", threshold: 0.6, value: 0.72, passed: true, note: null },
      { name: "Fleiss' kappa: clarification", threshold: 0.6, value: 0.4123, passed: false, note: null },
      { name: 'YES rate: ambiguity', threshold: 0.9, value: 0.95, passed: true, note: null },
      { name: 'YES rate: clarification', threshold: 0.9, value: 0.91, passed: true, note: null },
      { name: 'judgments per instance', threshold: 3, value: 3, passed: true, note: null },
      { name: 'unresolved disagreements', threshold: 0, value: 2, passed: false, note: null },
    ]);
    expect(gate.coverage).toEqual({ campaignId: 4, judged: 38, selected: 38 });
    expect(gate.forced).toBeNull();
    expect(evaluateGate(thresholds, measures, 'deadline').forced).toBe('deadline');
  });

  it('fails a threshold that cannot be measured (no campaign), and says "not checked" with no thresholds', () => {
    const none = { criteria: null, minJudgments: null, unresolved: null, coverage: null };
    const gate = evaluateGate(GateThresholds.parse({ minKappa: 0.5 }), none);
    expect(gate.checks).toEqual([{ name: "Fleiss' kappa", threshold: 0.5, value: null, passed: false, note: 'no campaign linked: nothing to measure' }]);
    expect(gate.verdict).toBe('refused');
    expect(evaluateGate(GateThresholds.parse({}), none)).toEqual({ passed: true, verdict: 'not checked', checks: [], coverage: null, forced: null });
    // A campaign linked but no thresholds: still not checked, with the coverage reported.
    const linked = evaluateGate(GateThresholds.parse({}), { ...none, coverage: { campaignId: 2, judged: 0, selected: 10 } });
    expect(linked.verdict).toBe('not checked');
    expect(linked.coverage).toEqual({ campaignId: 2, judged: 0, selected: 10 });
  });

  it('names the unjudged instances behind a judgments check that a partly judged release fails', () => {
    // 12 of 38 selected instances judged: the fewest judgments over the selection is 0, not 2.
    const gate = evaluateGate(GateThresholds.parse({ minJudgments: 2 }), { criteria: [], minJudgments: 0, unresolved: 0, coverage: { campaignId: 1, judged: 12, selected: 38 } });
    expect(gate.checks).toEqual([{ name: 'judgments per instance', threshold: 2, value: 0, passed: false, note: '26 selected instances have no judgment' }]);
    expect(coverageWords(gate.coverage!)).toBe('campaign 1 judged 12 of 38 selected instances (32%)');
  });

  it('reads a gate stored before verdicts and coverage existed', () => {
    expect(readGate({ passed: true, checks: [], forced: null })).toEqual({ passed: true, verdict: 'not checked', checks: [], coverage: null, forced: null });
    expect(readGate({ passed: false, checks: [{ name: 'x', threshold: 1, value: 0, passed: false }], forced: 'why' }).verdict).toBe('refused');
  });
});

describe('diff', () => {
  it('merges two key-sorted lists into added, removed, changed and same', () => {
    const a = [{ key: 'a', hash: '1', split: 'train' }, { key: 'b', hash: '2', split: 'train' }, { key: 'd', hash: '4', split: 'test' }];
    const b = [{ key: 'b', hash: '2', split: 'test' }, { key: 'c', hash: '3', split: 'train' }, { key: 'd', hash: '5', split: 'test' }];
    expect([...mergeByKey(a, b)].map((e) => `${e.change}:${'a' in e ? e.a.key : e.b.key}`)).toEqual(['removed:a', 'same:b', 'added:c', 'changed:d']);
  });

  it('names the fields that differ, one level into the record', () => {
    const before = { format: 'awb-instance/1', base_question: { question: 'q', hops: 2 }, instance: { status: 'ready', interpretations: [1] }, passages: [] };
    const after = { format: 'awb-instance/1', base_question: { question: 'q2', hops: 2 }, instance: { status: 'ready', interpretations: [1, 2] }, passages: [{}] };
    expect(changedFields(before, after)).toEqual(['base_question.question', 'instance.interpretations', 'passages']);
    expect(changedFields(before, before)).toEqual([]);
  });

  it('shows each changed leaf before and after, a list that changed length whole, long values cut', () => {
    const interpretation = (text: string) => ({ clarified_question: 'Which one?', short_answer: { text, aliases: [] } });
    const before = { base_question: { question: 'q', hops: 2 }, instance: { interpretations: [interpretation('Ford'), interpretation('Fender')], evidence: [1] } };
    const after = { base_question: { question: 'q', hops: 3 }, instance: { interpretations: [interpretation('Ford'), interpretation('Gibson')], evidence: [1, 2] } };
    expect(fieldChanges(before, after)).toEqual([
      { field: 'base_question.hops', before: '2', after: '3' },
      { field: 'instance.evidence', before: '[1]', after: '[1,2]' },
      { field: 'instance.interpretations[1].short_answer.text', before: 'Fender', after: 'Gibson' },
    ]);
    // A field only one side has; a long text is cut to 300 characters with an ellipsis.
    const long = 'x'.repeat(400);
    expect(fieldChanges({ a: 1 }, { a: 1, b: long })).toEqual([{ field: 'b', before: null, after: `${'x'.repeat(299)}…` }]);
    expect(fieldChanges({ a: [1, 2, 3] }, { a: [4, 5, 6] }, 2)).toHaveLength(2);
    expect(questionOf({ base_question: { question: 'Which river?' } })).toBe('Which river?');
    expect(questionOf(null)).toBe('');
  });
});

describe('the release folder', () => {
  it('defaults to releases/NAME-VERSION beside the database, in the path style of the database', () => {
    expect(releaseFolderName('MARCH mini', '1.1.0')).toBe('MARCH-mini-1.1.0');
    expect(defaultReleaseFolder('/data/awb/work.db', 'MARCH mini', '2.0.0')).toBe('/data/awb/releases/MARCH-mini-2.0.0');
    expect(defaultReleaseFolder('C:\\Users\\me\\work.db', 'Rivers', '1.0.0')).toBe('C:\\Users\\me\\releases\\Rivers-1.0.0');
    expect(defaultReleaseFolder('work.db', '', '1.0.0')).toBe('./releases/dataset-1.0.0');
  });
});
