import { useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { FAILURE_METRICS, type FailureMetricName, type FailureRow } from '../../../shared/api';
import { AMBIGUITY_TYPES } from '../../../shared/domain';
import { itemStatusLabel, methodLabel } from '../../../shared/eval/labels';
import { ErrorNotice, plural } from '../../components/bits';
import { DataTable, type Column } from '../../components/DataTable';
import { opQuery, useOp, useOpMutation } from '../../query';
import { JudgeValidationPanel } from './JudgeValidation';
import { failureInput, failureSearch, METRIC_LABELS, parseFailureState, showMetric, type FailureState } from './params';
import { FailureReasonsPanel } from './FailureReasons';
import { TagChart } from './TagChart';

/**
 * The failure table of a run: every item with its metrics and tags, filtered on any metric
 * threshold, type, collapsed answers, retrieval misses, errors and tags, sorted by any metric,
 * optionally side by side with another run on the same items. The filters live in the URL.
 */

const PERCENT = new Set<FailureMetricName>(['str_em', 'disambig_f1', 'rouge_l']);
/** Thresholds are typed in the unit the table shows (percent for fractions). */
const toShown = (m: FailureMetricName, v: number | undefined) => (v === undefined ? '' : String(PERCENT.has(m) ? Math.round(v * 1000) / 10 : v));
const fromShown = (m: FailureMetricName, text: string): number | undefined => {
  if (text.trim() === '' || !Number.isFinite(Number(text))) return undefined;
  return PERCENT.has(m) ? Number(text) / 100 : Number(text);
};

function metricColumn(metric: FailureMetricName, key: keyof FailureRow, width = '86px'): Column<FailureRow> {
  return {
    id: metric,
    header: METRIC_LABELS[metric],
    cell: ({ row }) => {
      const v = row.original[key] as number | null;
      const other = row.original.other ? (row.original.other as Record<string, unknown>)[key as string] : undefined;
      return (
        <span>
          {showMetric(metric, v)}
          {other !== undefined ? <span className="muted"> / {showMetric(metric, other as number | null)}</span> : null}
        </span>
      );
    },
    meta: { width, numeric: true, sortKey: metric, label: METRIC_LABELS[metric] },
  };
}

function columns(versus: boolean): Column<FailureRow>[] {
  return [
    { id: 'position', header: '#', cell: ({ row }) => row.original.position + 1, meta: { width: '56px', numeric: true, sortKey: 'position', label: 'position' } },
    {
      id: 'question',
      header: 'Question',
      cell: ({ row }) => (
        <span className="clip" title={row.original.answer ?? row.original.error ?? ''}>
          {row.original.question}
        </span>
      ),
      meta: { width: 'minmax(160px, 1fr)', label: 'question' },
    },
    { id: 'type', header: 'Type', cell: ({ row }) => <span className={`tag tag-${row.original.ambiguityType}`}>{row.original.ambiguityType}</span>, meta: { width: '120px', label: 'type' } },
    metricColumn('str_em', 'strEm', versus ? '104px' : '76px'),
    metricColumn('disambig_f1', 'disambigF1', versus ? '150px' : '140px'),
    metricColumn('rouge_l', 'rougeL', versus ? '104px' : '82px'),
    metricColumn('judge_mean', 'judgeMean', versus ? '120px' : '96px'),
    metricColumn('latency_ms', 'latencyMs', '70px'),
    {
      id: 'flags',
      header: 'Failure',
      cell: ({ row }) => {
        const r = row.original;
        return (
          <span className="small failure-flags">
            {r.status === 'failed' ? <span className="flag-bad" title={r.error ?? ''}>no answer (error)</span> : null}
            {r.status === 'pending' ? <span className="muted">{itemStatusLabel('pending')}</span> : null}
            {r.collapsed ? <span className="flag-warn">collapsed</span> : null}
            {r.retrievalMiss ? <span className="flag-warn" title="retrieval miss: no gold evidence passage retrieved">miss</span> : null}
            {r.other?.status === 'failed' ? <span className="flag-bad" title={r.other.error ?? ''}>B: no answer (error)</span> : null}
          </span>
        );
      },
      meta: { width: '124px', label: 'failure' },
    },
    {
      id: 'tags',
      header: 'Tags',
      cell: ({ row }) => (
        <span className="small clip" title={row.original.tags.join(', ')}>
          {row.original.tags.map((t) => (
            <span key={t} className="chip">
              {t}
            </span>
          ))}
        </span>
      ),
      meta: { width: '136px', label: 'tags' },
    },
  ];
}

function ThresholdInput({ metric, kind, state, update }: { metric: FailureMetricName; kind: 'below' | 'atLeast'; state: FailureState; update: (patch: Partial<FailureState>) => void }) {
  const [text, setText] = useState(toShown(metric, state[kind][metric]));
  useEffect(() => setText(toShown(metric, state[kind][metric])), [metric, kind, state]);
  const commit = () => {
    const value = fromShown(metric, text);
    const next = { ...state[kind] };
    if (value === undefined) delete next[metric];
    else next[metric] = value;
    update({ [kind]: next });
  };
  return (
    <input
      className="input threshold"
      inputMode="decimal"
      aria-label={`${METRIC_LABELS[metric]} ${kind === 'below' ? 'below' : 'at least'}`}
      placeholder={kind === 'below' ? '<' : '≥'}
      value={text}
      onChange={(e) => setText(e.target.value)}
      onBlur={commit}
      onKeyDown={(e) => {
        if (e.key === 'Enter') commit();
      }}
    />
  );
}

function Tristate({ label, value, onChange, testId }: { label: string; value: boolean | null; onChange: (v: boolean | null) => void; testId: string }) {
  return (
    <label className="tristate small">
      <span>{label}</span>
      <select className="input" data-testid={testId} value={value === null ? '' : value ? '1' : '0'} onChange={(e) => onChange(e.target.value === '' ? null : e.target.value === '1')}>
        <option value="">any</option>
        <option value="1">yes</option>
        <option value="0">no</option>
      </select>
    </label>
  );
}

export function FailureFilters({ state, update, tags }: { state: FailureState; update: (patch: Partial<FailureState>) => void; tags: string[] }) {
  return (
    <aside className="facets failure-filters" aria-label="Filters">
      <section>
        <h3>Metric thresholds</h3>
        <div className="small muted">Percent for {['str_em', 'disambig_f1', 'rouge_l'].map((m) => METRIC_LABELS[m as FailureMetricName]).join(', ')}; 0-5 for the judge; ms; $.</div>
        {FAILURE_METRICS.map((m) => (
          <div key={m} className="threshold-row">
            <span className="small">{METRIC_LABELS[m]}</span>
            <ThresholdInput metric={m} kind="atLeast" state={state} update={update} />
            <ThresholdInput metric={m} kind="below" state={state} update={update} />
          </div>
        ))}
      </section>
      <section>
        <h3>Item</h3>
        <label className="tristate small">
          <span>Type</span>
          <select className="input" aria-label="type" value={state.type ?? ''} onChange={(e) => update({ type: e.target.value || null })}>
            <option value="">any</option>
            {AMBIGUITY_TYPES.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </label>
        <label className="tristate small">
          <span>Status</span>
          <select className="input" aria-label="status" value={state.status ?? ''} onChange={(e) => update({ status: (e.target.value || null) as FailureState['status'] })}>
            <option value="">any</option>
            {(['done', 'failed', 'pending'] as const).map((status) => (
              <option key={status} value={status}>
                {itemStatusLabel(status)}
              </option>
            ))}
          </select>
        </label>
        <Tristate label="Collapsed" value={state.collapsed} onChange={(collapsed) => update({ collapsed })} testId="filter-collapsed" />
        <Tristate label="Retrieval miss" value={state.miss} onChange={(miss) => update({ miss })} testId="filter-miss" />
        <label className="tristate small">
          <span>Tag</span>
          <select className="input" aria-label="tag" value={state.tag ?? ''} onChange={(e) => update({ tag: e.target.value || null })}>
            <option value="">any</option>
            {tags.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </label>
      </section>
    </aside>
  );
}

export function FailureTable({ run, compare, header }: { run: number; compare?: boolean; header?: ReactNode }) {
  const search = useSearch();
  const [, navigate] = useLocation();
  const state = useMemo(() => parseFailureState(search), [search]);
  const [selected, setSelected] = useState(0);
  const input = useMemo(() => failureInput(run, state), [run, state]);
  const head = useOp('failure:list', { ...input, limit: 1 });
  const tags = useOp('failure-tag:list', {});
  const suggest = useOpMutation('failure-tag:suggest');
  // The rules run once per run and visit (idempotent: a tag a person took off stays off).
  const suggested = useRef<number | null>(null);
  const runStatus = head.data?.run.status;
  useEffect(() => {
    if (runStatus && runStatus !== 'running' && suggested.current !== run) {
      suggested.current = run;
      suggest.mutate({ run });
    }
  }, [run, runStatus, suggest]);
  const listKey = `${run}${failureSearch(state)}`;
  const href = (s: FailureState) => (compare ? `/evaluation/compare?a=${run}&b=${s.versus?.run ?? ''}${failureSearch(s).replace('?', '&')}` : `/evaluation/${run}/items${failureSearch(s)}`);
  const update = (patch: Partial<FailureState>) => {
    setSelected(0);
    navigate(href({ ...state, ...patch }));
  };
  const pageQuery = useCallback((offset: number, limit: number) => opQuery('failure:list', { ...input, offset, limit, count: false }), [input]);
  const cols = useMemo(() => columns(state.versus !== null), [state.versus]);
  const info = head.data?.run;
  const versus = head.data?.versus;
  return (
    <div className="browse failures" data-testid="failure-table">
      <FailureFilters state={state} update={update} tags={(tags.data ?? []).map((t) => t.key)} />
      <section className="table-area">
        <div className="toolbar">
          <Link href={`/evaluation/${run}`} className="small">
            ← run {run}
          </Link>
          <strong>{info ? `${methodLabel(info.method)} × ${info.model}` : `Run ${run}`}</strong>
          {versus ? (
            <span className="versus small">
              vs <strong>{`${methodLabel(versus.method)} × ${versus.model}`}</strong> (run {versus.id}):{' '}
              <select
                className="input"
                aria-label="side by side"
                value={state.versus!.mode}
                onChange={(e) => update({ versus: { ...state.versus!, mode: e.target.value as 'a-right-b-wrong' | 'a-wrong-b-right' } })}
              >
                <option value="a-right-b-wrong">A right, B wrong</option>
                <option value="a-wrong-b-right">A wrong, B right</option>
              </select>{' '}
              on {METRIC_LABELS[state.versus!.metric]} ≥ {showMetric(state.versus!.metric, state.versus!.threshold)}
            </span>
          ) : null}
          <span className="spacer" />
          <span className="summary" data-testid="row-count">
            {plural(head.data?.total ?? undefined, 'item')}
          </span>
          {info?.status === 'running' ? <span className="chip">running: {info.done + info.failed} of {info.total}</span> : null}
        </div>
        {header}
        <ErrorNotice error={head.error} />
        {/* The first page waits for the rule tags of a finished run, so its rows show them. */}
        {runStatus === 'running' || suggest.isSuccess || suggest.isError ? (
        <DataTable
          columns={cols}
          listKey={listKey}
          total={head.data?.total ?? undefined}
          pageQuery={pageQuery}
          sort={{ column: state.sort, direction: state.direction }}
          onSort={(sort, direction) => update({ sort: sort as FailureState['sort'], direction })}
          visibility={{}}
          selected={selected}
          onSelect={setSelected}
          onOpen={(row) => navigate(`/evaluation/${run}/items/${row.id}${failureSearch(state)}`)}
          emptyText="No item of this run matches the filters."
        />
        ) : (
          <div className="empty">Loading…</div>
        )}
        {compare ? null : (
          <div className="failure-panels">
            <FailureReasonsPanel run={run} />
            <TagChart runs={[run]} />
            <JudgeValidationPanel run={run} />
          </div>
        )}
      </section>
    </div>
  );
}
