import { FAILURE_METRICS, type FailureMetricName, type Input } from '../../../shared/api';
import { metricLabel } from '../../../shared/eval/labels';

/**
 * The failure table's state lives in the URL, so every filter can be linked to and gone back to:
 * `?type=temporal&collapsed=1&miss=1&status=failed&tag=factual-error&below.str_em=0.5&atleast.rouge_l=0.2
 * &sort=str_em&dir=asc&vs=12&mode=a-right-b-wrong&on=str_em&at=0.5`.
 */

export type VersusMode = 'a-right-b-wrong' | 'a-wrong-b-right';

export interface FailureState {
  status: 'pending' | 'done' | 'failed' | null;
  type: string | null;
  collapsed: boolean | null;
  miss: boolean | null;
  tag: string | null;
  below: Partial<Record<FailureMetricName, number>>;
  atLeast: Partial<Record<FailureMetricName, number>>;
  sort: 'position' | FailureMetricName;
  direction: 'asc' | 'desc';
  versus: { run: number; mode: VersusMode; metric: FailureMetricName; threshold: number } | null;
}

const isMetric = (v: string | null): v is FailureMetricName => v !== null && (FAILURE_METRICS as readonly string[]).includes(v);
const flag = (v: string | null) => (v === '1' ? true : v === '0' ? false : null);
const finite = (v: string | null) => (v !== null && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : null);

export function parseFailureState(search: string): FailureState {
  const p = new URLSearchParams(search);
  const status = p.get('status');
  const below: FailureState['below'] = {};
  const atLeast: FailureState['atLeast'] = {};
  for (const m of FAILURE_METRICS) {
    const b = finite(p.get(`below.${m}`));
    const a = finite(p.get(`atleast.${m}`));
    if (b !== null) below[m] = b;
    if (a !== null) atLeast[m] = a;
  }
  const sort = p.get('sort');
  const vs = finite(p.get('vs'));
  const on = p.get('on');
  return {
    status: status === 'pending' || status === 'done' || status === 'failed' ? status : null,
    type: p.get('type') || null,
    collapsed: flag(p.get('collapsed')),
    miss: flag(p.get('miss')),
    tag: p.get('tag') || null,
    below,
    atLeast,
    sort: isMetric(sort) ? sort : 'position',
    direction: p.get('dir') === 'desc' ? 'desc' : 'asc',
    versus:
      vs !== null && vs > 0
        ? { run: vs, mode: p.get('mode') === 'a-wrong-b-right' ? 'a-wrong-b-right' : 'a-right-b-wrong', metric: isMetric(on) ? on : 'str_em', threshold: finite(p.get('at')) ?? 0.5 }
        : null,
  };
}

export function failureSearch(s: FailureState): string {
  const p = new URLSearchParams();
  if (s.status) p.set('status', s.status);
  if (s.type) p.set('type', s.type);
  if (s.collapsed !== null) p.set('collapsed', s.collapsed ? '1' : '0');
  if (s.miss !== null) p.set('miss', s.miss ? '1' : '0');
  if (s.tag) p.set('tag', s.tag);
  for (const m of FAILURE_METRICS) {
    if (s.below[m] !== undefined) p.set(`below.${m}`, String(s.below[m]));
    if (s.atLeast[m] !== undefined) p.set(`atleast.${m}`, String(s.atLeast[m]));
  }
  if (s.sort !== 'position') p.set('sort', s.sort);
  if (s.direction === 'desc') p.set('dir', 'desc');
  if (s.versus) {
    p.set('vs', String(s.versus.run));
    p.set('mode', s.versus.mode);
    if (s.versus.metric !== 'str_em') p.set('on', s.versus.metric);
    if (s.versus.threshold !== 0.5) p.set('at', String(s.versus.threshold));
  }
  const text = p.toString();
  return text ? `?${text}` : '';
}

/** The operation's input for the state (paging left to the caller). */
export function failureInput(run: number, s: FailureState): Input<'failure:list'> {
  const thresholds = FAILURE_METRICS.flatMap((metric) =>
    s.below[metric] !== undefined || s.atLeast[metric] !== undefined
      ? [{ metric, ...(s.below[metric] !== undefined ? { below: s.below[metric] } : {}), ...(s.atLeast[metric] !== undefined ? { atLeast: s.atLeast[metric] } : {}) }]
      : [],
  );
  return {
    run,
    ...(s.status ? { status: s.status } : {}),
    ...(s.type ? { type: s.type } : {}),
    ...(s.collapsed !== null ? { collapsed: s.collapsed } : {}),
    ...(s.miss !== null ? { retrievalMiss: s.miss } : {}),
    ...(s.tag ? { tag: s.tag } : {}),
    ...(thresholds.length ? { thresholds } : {}),
    ...(s.versus ? { versus: s.versus } : {}),
    sort: s.sort,
    direction: s.direction,
  };
}

/** The failure metrics' names, from the shared label table. */
export const METRIC_LABELS = Object.fromEntries(FAILURE_METRICS.map((m) => [m, metricLabel(m)])) as Record<FailureMetricName, string>;

/** A metric as shown: fractions as percent, the judge on 0-5, latency in ms, cost in dollars. */
export function showMetric(metric: FailureMetricName, value: number | null): string {
  if (value === null) return '–';
  if (metric === 'judge_mean') return value.toFixed(2);
  if (metric === 'latency_ms') return `${Math.round(value)}`;
  if (metric === 'cost_usd') return `$${value.toFixed(4)}`;
  return (value * 100).toFixed(0);
}
