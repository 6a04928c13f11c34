import { useState } from 'react';
import { Bar, BarChart, CartesianGrid, ErrorBar, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { EvalTableRow } from '../../../shared/api';
import { saveFile } from '../../download';
import { useOp } from '../../query';
import { formatMetric, shownMetrics, tableText } from './tables';

/** Method × model and method × type (MARCH Tables 3 and 4), with a chart of one metric by type. */

const COLOURS = ['var(--type-semantic)', 'var(--type-syntactic)', 'var(--type-constraint)', 'var(--type-unspecified)'];

function MetricTable({ rows, title, testId }: { rows: EvalTableRow[]; title: string; testId: string }) {
  const metrics = shownMetrics(rows);
  const byType = rows.some((r) => r.type);
  return (
    <section className="card">
      <div className="row-gap">
        <h2>{title}</h2>
        <span className="spacer" />
        <button type="button" className="button small ghost" onClick={() => saveFile(`${testId}.csv`, tableText(rows, 'csv'), 'text/csv')}>
          CSV
        </button>
        <button type="button" className="button small ghost" onClick={() => saveFile(`${testId}.md`, tableText(rows, 'markdown'), 'text/markdown')}>
          Markdown
        </button>
        <button type="button" className="button small ghost" onClick={() => saveFile(`${testId}.tex`, tableText(rows, 'latex'), 'text/x-tex')}>
          LaTeX
        </button>
      </div>
      {rows.length === 0 ? (
        <div className="small muted">No finished run yet.</div>
      ) : (
        <table className="plain" data-testid={testId}>
          <thead>
            <tr>
              <th>Method</th>
              <th>Model</th>
              {byType ? <th>Type</th> : null}
              <th className="num" title="items scored · items whose method failed (left out of the means)">n · failed</th>
              {metrics.map((m) => (
                <th key={m.key} className="num">
                  {m.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={`${r.runId}-${r.type ?? ''}`}>
                <td>{r.methodLabel}</td>
                <td className="mono small">{r.model}</td>
                {byType ? <td>{r.type}</td> : null}
                <td className="num">
                  {r.n}
                  {r.failed ? <span className="flag-bad"> · {r.failed} failed</span> : null}
                </td>
                {metrics.map((m) => (
                  <td key={m.key} className="num" title={r.metrics[m.key]?.ci ? `95% CI ${r.metrics[m.key]!.ci!.low.toFixed(2)}–${r.metrics[m.key]!.ci!.high.toFixed(2)}` : undefined}>
                    {formatMetric(r.metrics[m.key])}
                    {m.key === 'disambig_f1' && r.readerErrors ? <span className="flag-warn small" title="items whose reader failed: their Disambig-F1 is left out"> ({r.readerErrors} reader errors)</span> : null}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

export function CompareTables() {
  const tables = useOp('evaluation:table', {});
  const [metric, setMetric] = useState('str_em');
  const byType = tables.data?.byType ?? [];
  const types = [...new Set(byType.map((r) => r.type!))];
  // Each bar carries its bootstrap 95% interval as an error bar ([below, above] the value).
  const chart = [...new Set(byType.map((r) => `${r.methodLabel} · ${r.model}`))].map((label) => ({
    label,
    ...Object.fromEntries(
      byType
        .filter((r) => `${r.methodLabel} · ${r.model}` === label)
        .flatMap((r) => {
          const m = r.metrics[metric];
          const interval = m?.value != null && m.ci ? [m.value - m.ci.low, m.ci.high - m.value] : [0, 0];
          return [
            [r.type!, m?.value ?? null],
            [`${r.type!}-ci`, interval],
          ];
        }),
    ),
  }));
  return (
    <>
      <MetricTable rows={tables.data?.byModel ?? []} title="Method × model" testId="eval-by-model" />
      <MetricTable rows={byType} title="Method × ambiguity type" testId="eval-by-type" />
      {byType.length ? (
        <section className="card">
          <div className="row-gap">
            <h2>By type</h2>
            <span className="small muted">bars: the mean; whiskers: its bootstrap 95% interval</span>
            <select className="input" value={metric} onChange={(e) => setMetric(e.target.value)} aria-label="metric">
              {shownMetrics(byType).map((m) => (
                <option key={m.key} value={m.key}>
                  {m.label}
                </option>
              ))}
            </select>
          </div>
          <ResponsiveContainer width="100%" height={260}>
            <BarChart data={chart} margin={{ top: 8, right: 8, bottom: 0, left: 8 }}>
              <CartesianGrid strokeDasharray="3 3" stroke="var(--border)" vertical={false} />
              <XAxis dataKey="label" tick={{ fontSize: 11, fill: 'var(--text-2)' }} />
              <YAxis tick={{ fontSize: 11, fill: 'var(--text-2)' }} />
              <Tooltip contentStyle={{ background: 'var(--surface)', border: '1px solid var(--border)', fontSize: 12 }} />
              <Legend wrapperStyle={{ fontSize: 12 }} />
              {types.map((t, i) => (
                <Bar key={t} dataKey={t} fill={COLOURS[i % COLOURS.length]} isAnimationActive={false}>
                  <ErrorBar dataKey={`${t}-ci`} width={4} stroke="var(--text)" direction="y" />
                </Bar>
              ))}
            </BarChart>
          </ResponsiveContainer>
        </section>
      ) : null}
    </>
  );
}
