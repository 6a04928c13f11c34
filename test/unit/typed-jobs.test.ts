import { describe, expect, expectTypeOf, it } from 'vitest';
import { jobResult, operations, startsAJob, type ExportReport, type Job, type JobResult, type JobResultOf, type ReleaseSummary } from '../../shared/api';

/** A job's result is typed by the operation that starts it, declared with that operation. */
describe('typed job results', () => {
  const exportJob = {
    id: 'j1', kind: 'export', title: 'Export', state: 'done', done: 3, total: 3, unit: 'records', startedAt: '2025-01-01T00:00:00Z',
    etaSeconds: null, detail: null, error: null, result: { file: '/tmp/x.jsonl', records: 3, instances: 2, baseQuestions: 1, seconds: 0.1 },
  } as Job;

  it('knows which operations start a job, and of what kind', () => {
    const starters = (Object.keys(operations) as (keyof typeof operations)[]).filter(startsAJob).sort();
    expect(starters).toEqual([
      'ask-first:start',
      'corpus:embed',
      'corpus:import',
      'dataset:export',
      'dataset:import',
      'evaluation:resume',
      'evaluation:start',
      'label:start',
      'pipeline:resume',
      'pipeline:start',
      'qa-index:build',
      'release:create',
      'retrieval:evaluate',
      'round:next',
      'round:start',
    ]);
    expect(operations['ask-first:start'].job).toBe('ask-first');
    expect(operations['release:create'].job).toBe('release');
    expect(operations['evaluation:resume'].job).toBe(operations['evaluation:start'].job);
    expect(operations['pipeline:resume'].job).toBe(operations['pipeline:start'].job);
  });

  it('types the result per kind, so a client narrows on kind instead of casting', () => {
    expectTypeOf<JobResultOf<'release:create'>>().toEqualTypeOf<ReleaseSummary>();
    expectTypeOf<JobResult<'export'>>().toEqualTypeOf<ExportReport>();
    if (exportJob.kind === 'export') expectTypeOf(exportJob.result).toEqualTypeOf<ExportReport | null>();
    expect(jobResult('dataset:export', exportJob).records).toBe(3);
  });

  it('refuses to read a job as the result of an operation that did not start it', () => {
    expect(() => jobResult('release:create', exportJob)).toThrow(/export job, not one that release:create starts/);
    expect(() => jobResult('dataset:export', { ...exportJob, state: 'running' } as Job)).toThrow(/has not finished/);
  });
});
