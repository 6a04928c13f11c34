import { Fragment, useState } from 'react';
import { Link } from 'wouter';
import type { EvalItemRowView } from '../../../shared/api';
import { itemStatusLabel, metricInfo, metricLabel, runStatusLabel } from '../../../shared/eval/labels';
import { ErrorNotice } from '../../components/bits';
import { useOp } from '../../query';
import { FailureReasonsPanel } from '../failures/FailureReasons';
import { formatMetric } from './tables';

/** One run: its numbers overall and per type, and its items (filter, sort, open one's trace). */

const pct = (v: number | null) => (v === null ? '–' : (v * 100).toFixed(0));

function ItemTrace({ id }: { id: number }) {
  const item = useOp('evaluation:item', { id });
  if (!item.data) return <ErrorNotice error={item.error} />;
  const d = item.data;
  return (
    <div className="card small" data-testid="eval-item">
      <div>
        <strong>Gold:</strong>{' '}
        {d.gold.interpretations.map((i, n) => (
          <span key={n}>
            {n ? ' · ' : ''}
            {i.question ?? i.condition} → <em>{i.answers[0] ?? '—'}</em>
          </span>
        ))}
      </div>
      <div>
        <strong>Answer:</strong> {d.longAnswer ?? d.error}
      </div>
      {d.metrics.judge_rationale ? (
        <div>
          <strong>Judge:</strong> {String(d.metrics.judge_rationale)}
        </div>
      ) : null}
      <ol className="small">
        {d.steps.map((s) => (
          <li key={s.position}>
            <span className="mono">{s.kind}</span> {s.label}
            {s.callId !== null ? (
              <span className="muted">
                {' '}
                · call {s.callId}
                {s.cached ? ' (cached)' : ''}
              </span>
            ) : null}
          </li>
        ))}
      </ol>
    </div>
  );
}

export function RunDetail({ id }: { id: number }) {
  const run = useOp('evaluation:get', { id });
  const [status, setStatus] = useState<'' | 'done' | 'failed'>('');
  const [sort, setSort] = useState<'position' | 'str_em' | 'disambig_f1' | 'judge_mean' | 'latency_ms'>('position');
  const [open, setOpen] = useState<number | null>(null);
  const items = useOp('evaluation:items', { run: id, ...(status ? { status } : {}), sort, direction: 'asc', limit: 200 });
  if (!run.data) return <ErrorNotice error={run.error} />;
  const r = run.data;
  const metrics = Object.entries(r.metrics).filter(([, m]) => m.value !== null);
  return (
    <>
      <section className="card">
        <div className="row-gap">
          <Link href="/evaluation">← all runs</Link>
          <h2>
            Run #{r.id}: {r.methodLabel} × {r.model}
          </h2>
        </div>
        <div className="small muted">
          {r.source} · <span data-testid="run-status">{runStatusLabel(r)}</span> · n {r.done} of {r.total} (failed {r.failed}, left out of the means) · {r.calls} calls ({r.cachedCalls} cached) · ${r.costUsd.toFixed(4)}
          {r.corpus ? ` · ${r.corpus}, ${r.retrievalMode}, k=${r.k}` : ''}
          {r.reader ? ` · reader ${r.reader}` : ''}
          {r.judge ? ` · judge ${r.judge}` : ''}
        </div>
        {r.usage ? (
          <div className="small">
            Per query: latency p50 {((r.usage.latencyMs.p50 ?? 0) / 1000).toFixed(2)} s, p95 {((r.usage.latencyMs.p95 ?? 0) / 1000).toFixed(2)} s, p99{' '}
            {((r.usage.latencyMs.p99 ?? 0) / 1000).toFixed(2)} s · {(r.usage.tokensPerQuery ?? 0).toFixed(0)} tokens · ${(r.usage.costPerQuery ?? 0).toFixed(5)}
          </div>
        ) : null}
        {r.readerErrors ? (
          <div className="small flag-warn" data-testid="reader-errors">
            Disambig-F1 over {r.metrics.disambig_f1?.n ?? 0} items: the reader failed on {r.readerErrors} (their Disambig-F1 is left out; see their notes).
          </div>
        ) : null}
        {r.notes.map((n) => (
          <div key={n} className="small flag-warn">
            {n}
          </div>
        ))}
        <div style={{ overflowX: 'auto' }}>
        <table className="plain compact" data-testid="run-metrics">
          <thead>
            <tr>
              <th />
              {metrics.map(([k]) => (
                <th key={k} className="num" title={metricInfo(k)?.description}>
                  {metricLabel(k)}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            <tr>
              <td>all</td>
              {metrics.map(([k, m]) => (
                <td key={k} className="num" style={{ whiteSpace: 'nowrap' }}>
                  {formatMetric(m)}
                </td>
              ))}
            </tr>
            {Object.entries(r.byType).map(([type, byType]) => (
              <tr key={type}>
                <td>{type}</td>
                {metrics.map(([k]) => (
                  <td key={k} className="num" style={{ whiteSpace: 'nowrap' }}>
                    {formatMetric(byType[k])}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
        </div>
      </section>
      {r.failed ? <FailureReasonsPanel run={r.id} /> : null}
      <section className="card">
        <div className="row-gap">
          <h2>Items</h2>
          <span className="small muted">{items.data?.total ?? 0} shown</span>
          <Link href={`/evaluation/${id}/items`}>Inspect failures →</Link>
          <span className="spacer" />
          <select className="input" value={status} onChange={(e) => setStatus(e.target.value as typeof status)} aria-label="status">
            <option value="">all</option>
            <option value="done">{itemStatusLabel('done')}</option>
            <option value="failed">{itemStatusLabel('failed')}</option>
          </select>
          <select className="input" value={sort} onChange={(e) => setSort(e.target.value as typeof sort)} aria-label="sort">
            <option value="position">in order</option>
            {(['str_em', 'disambig_f1', 'judge_mean'] as const).map((m) => (
              <option key={m} value={m}>
                {metricLabel(m)}, lowest first
              </option>
            ))}
            <option value="latency_ms">{metricLabel('latency_ms')}, fastest first</option>
          </select>
        </div>
        <table className="plain" data-testid="eval-items">
          <thead>
            <tr>
              <th>#</th>
              <th>Question</th>
              <th>Type</th>
              <th className="num">{metricLabel('str_em')}</th>
              <th className="num">{metricLabel('disambig_f1')}</th>
              <th className="num">{metricLabel('judge_mean')}</th>
              <th>Flags</th>
            </tr>
          </thead>
          <tbody>
            {(items.data?.rows ?? []).map((i: EvalItemRowView) => (
              <Fragment key={i.id}>
                <tr className="clickable" onClick={() => setOpen(open === i.id ? null : i.id)}>
                  <td>{i.position + 1}</td>
                  <td>{i.question}</td>
                  <td>{i.ambiguityType}</td>
                  <td className="num">{pct(i.strEm)}</td>
                  <td className="num">{pct(i.disambigF1)}</td>
                  <td className="num">{i.judgeMean?.toFixed(1) ?? '–'}</td>
                  <td className="small">
                    {i.status !== 'done' ? (
                      <span className={i.status === 'failed' ? 'flag-bad' : 'muted'} title={i.error ?? ''}>
                        {itemStatusLabel(i.status)}
                      </span>
                    ) : null}
                    {i.collapsed ? <span className="flag-warn"> collapsed</span> : null}
                    {i.retrievalMiss ? <span className="flag-warn"> retrieval miss</span> : null}
                  </td>
                </tr>
                {open === i.id ? (
                  <tr>
                    <td colSpan={7}>
                      <ItemTrace id={i.id} />
                    </td>
                  </tr>
                ) : null}
              </Fragment>
            ))}
          </tbody>
        </table>
      </section>
    </>
  );
}
