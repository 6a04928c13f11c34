import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FAILURE_METRICS, JUDGE_CRITERIA } from '../../shared/api';
import { formatMetricValue, metricLabel, METRIC_LABELS, runStatusLabel, itemStatusLabel } from '../../shared/eval/labels';
import { METRIC_NAMES, READER_METRIC_NAMES } from '../../shared/eval/metrics';
import { groupFailureReasons, reasonPattern } from '../../shared/failures';
import { ROOT } from '../helpers/db';

/**
 * Failed items grouped by the pattern of their reason ("37 × clarify: …"), and the one label
 * table every client reads metric and status names from.
 */

describe('failure reasons', () => {
  it('blanks what varies item to item, and keeps an HTTP status the reason names', () => {
    expect(reasonPattern('clarify: the output was not valid JSON: Unexpected token } at position 123')).toBe('clarify: the output was not valid JSON: Unexpected token } at position #');
    expect(reasonPattern('clarify: 429 Rate limit reached, retry in 20.5 s')).toBe('clarify: 429 Rate limit reached, retry in # s');
    expect(reasonPattern('react: no answer after 5 turns and a forced final turn (the model kept choosing "search")')).toBe(
      'react: no answer after # turns and a forced final turn (the model kept choosing "…")',
    );
    expect(reasonPattern('judge:   HTTP 500\n  upstream')).toBe('judge: HTTP 500 upstream');
    expect(reasonPattern('')).toBe('no reason recorded');
    expect(reasonPattern('x'.repeat(300))).toHaveLength(160);
  });

  it('groups items by pattern, most frequent first, each with its first example word for word', () => {
    const items = [
      { id: 4, error: 'clarify: 429 Rate limit' },
      { id: 7, error: 'generate: not valid JSON at position 12' },
      { id: 9, error: 'generate: not valid JSON at position 80' },
      { id: 11, error: 'clarify: 429 Rate limit' },
      { id: 12, error: 'generate: not valid JSON at position 3' },
      { id: 15, error: null },
    ];
    expect(groupFailureReasons(items)).toEqual([
      { reason: 'generate: not valid JSON at position #', count: 3, example: { id: 7, error: 'generate: not valid JSON at position 12' } },
      { reason: 'clarify: 429 Rate limit', count: 2, example: { id: 4, error: 'clarify: 429 Rate limit' } },
      { reason: 'no reason recorded', count: 1, example: { id: 15, error: '' } },
    ]);
  });
});

describe('the label table', () => {
  it('names every metric a run, a score or a comparison computes, and no two alike', () => {
    const ids = [...METRIC_NAMES, ...READER_METRIC_NAMES, ...FAILURE_METRICS, ...JUDGE_CRITERIA.map((c) => `judge_${c}`), 'condition_score', 'answer_score', 'interpretations_covered'];
    for (const id of ids) expect(Object.keys(METRIC_LABELS), id).toContain(id);
    const labels = Object.values(METRIC_LABELS).map((m) => m.label);
    expect(new Set(labels).size).toBe(labels.length);
    // The two F1s that read alike say whose they are.
    expect(metricLabel('disambig_f1')).toBe('Disambig-F1 (ASQA)');
    expect(metricLabel('d_f1')).toBe('D-F1 (ADF)');
    // A metric not in the table yet reads as words, never as its id.
    expect(metricLabel('answer_recall_at_5')).toBe('answer recall at 5');
  });

  it('formats a value in its unit', () => {
    expect(formatMetricValue('str_em', 83.333)).toBe('83.3');
    expect(formatMetricValue('str_em', 0.5, { fraction: true })).toBe('50.0');
    expect(formatMetricValue('judge_mean', 3.25)).toBe('3.25');
    expect(formatMetricValue('latency_ms', 1234.6)).toBe('1235 ms');
    expect(formatMetricValue('cost_usd', 0.001234)).toBe('$0.0012');
    expect(formatMetricValue('str_em', null)).toBe('–');
  });

  it('words statuses the same everywhere', () => {
    expect(itemStatusLabel('done')).toBe('answered');
    expect(itemStatusLabel('failed')).toBe('failed');
    expect(runStatusLabel({ status: 'done', total: 38, done: 1, failed: 37 })).toBe('done with 37 failed');
    expect(runStatusLabel({ status: 'done', total: 3, done: 3, failed: 0 })).toBe('done');
    expect(runStatusLabel({ status: 'done', total: 3, done: 0, failed: 3 })).toBe('failed: all 3 items failed');
    expect(runStatusLabel({ status: 'cancelled', total: 38, done: 12, failed: 0 })).toBe('cancelled (12 of 38 done)');
    expect(runStatusLabel({ status: 'failed', total: 38, done: 12, failed: 2 })).toBe('stopped (12 of 38 done, 2 failed)');
    expect(runStatusLabel({ status: 'running', total: 38, done: 12, failed: 2 })).toBe('running');
  });

  it('is what the researcher guide calls each metric', () => {
    const guide = fs.readFileSync(path.join(ROOT, 'docs', 'researcher.md'), 'utf8');
    for (const { label } of Object.values(METRIC_LABELS)) expect(guide, label).toContain(`| ${label} |`);
  });
});
