import { expect } from 'vitest';
import type { WritableDB } from '../../db/sql';
import type { FailureOperation, Input, OperationName, Result } from '../../shared/api';
import { seedEvalRun } from './eval-fixture';

/**
 * Cases for the failure operations, for test/integration/operations.test.ts (which calls every
 * operation through dispatch once): spread `...failureOperationCases(() => workbench.db, call, () => ids.instance, tmp.file)`
 * into its CASES. Each makes its own small run (test/integration/failures.test.ts checks them in depth).
 */

type Call = <K extends OperationName>(name: K, input: Input<K>) => Promise<Result<unknown>>;

export function failureOperationCases(db: () => WritableDB, call: Call, instance: () => number, file: (name: string) => string): Record<FailureOperation, () => Promise<unknown>> {
  const run = () =>
    seedEvalRun(db(), {
      items: [
        { key: 'a', instanceId: instance(), interpretations: [{ question: 'Q1', answers: ['Xavier'] }, { question: 'Q2', answers: ['Yolanda'] }], answer: 'It was Xavier.', strEm: 0.5, judge: { relevance: 3, faithfulness: 4, informativeness: 2, correctness: 3 } },
        { key: 'b', instanceId: null, interpretations: [{ question: 'Q', answers: ['Zed'] }], error: 'not valid JSON' },
      ],
    });
  const ok = async <K extends OperationName>(name: K, input: Input<K>) => {
    const result = await call(name, input);
    if (!result.ok) throw new Error(`${name}: ${result.error.message}`);
    return result.value;
  };
  return {
    'failure:list': async () => expect(await ok('failure:list', { run: run().runId, collapsed: true })).toMatchObject({ total: 1 }),
    'failure:reasons': async () =>
      expect(await ok('failure:reasons', { run: run().runId })).toMatchObject({ failed: 1, groups: [{ reason: 'not valid JSON', count: 1 }], more: 0 }),
    'failure:item': async () => expect(await ok('failure:item', { id: run().itemIds.get('a')! })).toMatchObject({ coverage: { verdict: 'partial' } }),
    'failure-tag:list': async () => expect(((await ok('failure-tag:list', {})) as { builtIn: boolean }[]).filter((t) => t.builtIn)).toHaveLength(11),
    'failure-tag:create': async () => expect(await ok('failure-tag:create', { key: 'ops-tag', label: 'Ops', who: 'ops' })).toMatchObject({ key: 'ops-tag' }),
    'failure-tag:add': async () => expect(await ok('failure-tag:add', { item: run().itemIds.get('a')!, tag: 'factual-error', who: 'ops' })).toHaveLength(1),
    'failure-tag:remove': async () => {
      const item = run().itemIds.get('a')!;
      await ok('failure-tag:add', { item, tag: 'factual-error', who: 'ops' });
      expect(await ok('failure-tag:remove', { item, tag: 'factual-error', who: 'ops' })).toMatchObject([{ removedBy: 'ops' }]);
    },
    'failure-tag:suggest': async () => expect(await ok('failure-tag:suggest', { run: run().runId })).toMatchObject({ added: { collapsed: 1, 'refusal-or-format-error': 1 } }),
    'failure-tag:counts': async () => expect(Array.isArray(await ok('failure-tag:counts', {}))).toBe(true),
    'failure-tag:export': async () => expect(await ok('failure-tag:export', { run: run().runId, path: file('ops-tags.csv') })).toMatchObject({ rows: 0 }),
    'instance-flag:add': async () => expect(await ok('instance-flag:add', { instance: instance(), reason: 'ops', who: 'ops' })).toMatchObject({ who: 'ops' }),
    'instance-flag:list': async () => expect(Array.isArray(await ok('instance-flag:list', { instance: instance() }))).toBe(true),
    'instance-flag:resolve': async () => expect(await ok('instance-flag:resolve', { instance: instance(), who: 'ops' })).toHaveProperty('resolved'),
    'judge-validation:start': async () => expect(await ok('judge-validation:start', { run: run().runId, name: 'ops judge', annotators: ['ops'], size: 5 })).toMatchObject({ protocol: { key: 'long-answer-quality' } }),
    'judge-validation:get': async () => {
      const { runId } = run();
      const campaign = (await ok('judge-validation:start', { run: runId, name: 'ops judge 2', annotators: ['ops'], size: 5 })) as { id: number };
      // Nobody has rated yet: every criterion has n = 0 and no value.
      expect(await ok('judge-validation:get', { run: runId, campaign: campaign.id })).toMatchObject({ items: 1, rated: 0, rows: [{ n: 0 }, { n: 0 }, { n: 0 }, { n: 0 }] });
    },
  };
}
