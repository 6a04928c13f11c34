import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { Funnel } from '../../../shared/pipeline';
import { ErrorNotice } from '../../components/bits';
import { useOp } from '../../query';
import { CostTable } from './CostTable';

/** How many instances survive each step, per ambiguity type: a table, then a chart, then what a kept instance cost. */
const FUNNEL_COLOURS = ['var(--type-semantic)', 'var(--type-syntactic)', 'var(--type-constraint)', 'var(--type-unspecified)'];

export function FunnelTab() {
  const funnel = useOp('pipeline:funnel', {});
  const f: Funnel | undefined = funnel.data;
  return (
    <div className="stack">
      <ErrorNotice error={funnel.error} />
      {f ? (
        <>
          <section className="card">
            <h2>Instances surviving each step, per ambiguity type</h2>
            <table className="plain numbers" data-testid="funnel">
              <thead>
                <tr>
                  <th>Step</th>
                  {f.types.map((t) => (
                    <th key={t} className="num">
                      {t}
                    </th>
                  ))}
                  <th className="num">total</th>
                </tr>
              </thead>
              <tbody>
                {f.rows.map((r) => (
                  <tr key={r.step}>
                    <td>{r.step}</td>
                    {f.types.map((t) => (
                      <td key={t} className="num">
                        {(r.counts[t] ?? 0).toLocaleString('en-US')}
                      </td>
                    ))}
                    <td className="num">{r.total.toLocaleString('en-US')}</td>
                  </tr>
                ))}
                <tr>
                  <td className="muted">average hops (kept)</td>
                  {f.types.map((t) => (
                    <td key={t} className="num muted">
                      {f.averageHops[t] ?? '–'}
                    </td>
                  ))}
                  <td className="num muted">{f.averageHops.all ?? '–'}</td>
                </tr>
                <tr>
                  <td className="muted">question length in words (kept)</td>
                  {f.types.map((t) => (
                    <td key={t} className="num muted">
                      {f.averageQuestionWords[t] ?? '–'}
                    </td>
                  ))}
                  <td className="num muted">{f.averageQuestionWords.all ?? '–'}</td>
                </tr>
              </tbody>
            </table>
          </section>
          <section className="card">
            <ResponsiveContainer width="100%" height={280}>
              <BarChart data={f.rows.slice(1).map((r) => ({ step: r.step, ...r.counts }))} margin={{ top: 8, right: 8, bottom: 0, left: 8 }}>
                <CartesianGrid strokeDasharray="3 3" stroke="var(--border)" vertical={false} />
                <XAxis dataKey="step" tick={{ fontSize: 11, fill: 'var(--text-2)' }} />
                {/* Counts of instances: whole numbers only. */}
                <YAxis
                  allowDecimals={false}
                  tick={{ fontSize: 11, fill: 'var(--text-2)' }}
                  label={{ value: 'instances', angle: -90, position: 'insideLeft', style: { textAnchor: 'middle', fontSize: 11, fill: 'var(--text-2)' } }}
                />
                <Tooltip contentStyle={{ background: 'var(--surface)', border: '1px solid var(--border)', fontSize: 12 }} />
                <Legend wrapperStyle={{ fontSize: 11 }} />
                {f.types.map((t, i) => (
                  <Bar key={t} dataKey={t} fill={FUNNEL_COLOURS[i % FUNNEL_COLOURS.length]} isAnimationActive={false} />
                ))}
              </BarChart>
            </ResponsiveContainer>
          </section>
          {f.cost && f.cost.total.calls ? <CostTable cost={f.cost} title="Cost per kept instance, over every construction call" /> : null}
        </>
      ) : null}
    </div>
  );
}
