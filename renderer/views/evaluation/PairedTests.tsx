import { useState } from 'react';
import { Bar, BarChart, CartesianGrid, ErrorBar, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { EvalComparison } from '../../../shared/api';
import { formatMetricValue, metricLabel, runStatusLabel } from '../../../shared/eval/labels';
import { ErrorNotice, plural } from '../../components/bits';
import { useOp } from '../../query';

/**
 * Two runs on the same items, tested as pairs: per metric, B − A with its paired-bootstrap 95%
 * interval (drawn as a bar with an error bar), the bootstrap p, Wilcoxon signed-rank p, and McNemar
 * on per-item correctness with its discordant counts. Items both runs finished are paired; an item
 * one run failed on counts as a failure (score 0, incorrect) unless the user leaves such pairs out,
 * and the panel says how many failed on each side or were left out. Items only one run has are
 * left out of every test.
 */

const p = (v: number | undefined | null) => (v === undefined || v === null ? '–' : v < 0.0001 ? '< 0.0001' : v.toFixed(4));

function DifferenceChart({ comparison }: { comparison: EvalComparison }) {
  const data = comparison.metrics
    .filter((m) => m.bootstrap)
    .map((m) => {
      const b = m.bootstrap!;
      const low = b.ciLow ?? b.difference;
      const high = b.ciHigh ?? b.difference;
      return { label: metricLabel(m.metric), difference: b.difference, interval: [b.difference - low, high - b.difference] as [number, number] };
    });
  if (!data.length) return null;
  return (
    <ResponsiveContainer width="100%" height={220}>
      <BarChart data={data} margin={{ top: 8, right: 8, bottom: 0, left: 8 }}>
        <CartesianGrid strokeDasharray="3 3" stroke="var(--border)" vertical={false} />
        <XAxis dataKey="label" tick={{ fontSize: 11, fill: 'var(--text-2)' }} interval={0} />
        <YAxis tick={{ fontSize: 11, fill: 'var(--text-2)' }} />
        <ReferenceLine y={0} stroke="var(--text-2)" />
        <Tooltip contentStyle={{ background: 'var(--surface)', border: '1px solid var(--border)', fontSize: 12 }} formatter={(v) => (typeof v === 'number' ? v.toFixed(2) : String(v))} />
        <Bar dataKey="difference" name="B − A" fill="var(--accent)" isAnimationActive={false}>
          <ErrorBar dataKey="interval" width={6} stroke="var(--text)" direction="y" />
        </Bar>
      </BarChart>
    </ResponsiveContainer>
  );
}

export function PairedTests({ a, b }: { a: number; b: number }) {
  const [exclude, setExclude] = useState(false);
  const comparison = useOp('evaluation:compare', { a, b, errors: exclude ? 'exclude' : 'fail' });
  const c = comparison.data;
  if (!c) return <ErrorNotice error={comparison.error} />;
  const answered = (run: EvalComparison['a']) => run.done;
  const failures =
    c.errorsPolicy === 'exclude'
      ? ` ${plural(c.excluded, 'pair')} where a run failed ${c.excluded === 1 ? 'is' : 'are'} left out.`
      : ` An item one run failed on counts as a failure there (score 0, incorrect): A failed ${c.failedA}, B failed ${c.failedB}, both ${c.failedBoth}.`;
  return (
    <section className="card" data-testid="paired-tests">
      <div className="card-head">
        <h2>Paired tests</h2>
        <span className="small muted">
          A: run {c.a.id}, {c.a.methodLabel} × {c.a.model} ({runStatusLabel(c.a)}) · B: run {c.b.id}, {c.b.methodLabel} × {c.b.model} ({runStatusLabel(c.b)})
        </span>
      </div>
      <div className={`small ${c.paired < Math.max(answered(c.a), answered(c.b)) || c.failedA + c.failedB + c.excluded > 0 ? 'flag-warn' : 'muted'}`} data-testid="paired-count">
        {plural(c.paired, 'item')} both runs finished {c.paired === 1 ? 'is' : 'are'} paired (A answered {answered(c.a)}, B {answered(c.b)}); items only one run has are left out of every test.
        {failures}
        {c.a.source !== c.b.source ? ` The runs are on different items (${c.a.source} and ${c.b.source}): only the items they share are compared.` : ''}
      </div>
      <label className="small">
        <input type="checkbox" checked={exclude} onChange={(e) => setExclude(e.target.checked)} data-testid="exclude-errors" /> Leave out items a run failed on (instead of counting them as failures)
      </label>
      <table className="plain compact numbers" data-testid="paired-table">
        <thead>
          <tr>
            <th>Metric</th>
            <th className="num">A</th>
            <th className="num">B</th>
            <th className="num">B − A [95% CI]</th>
            <th className="num">bootstrap p</th>
            <th className="num">Wilcoxon p</th>
            <th className="num">McNemar: A only / B only, p</th>
          </tr>
        </thead>
        <tbody>
          {c.metrics.map((m) => (
            <tr key={m.metric}>
              <td>{metricLabel(m.metric)}</td>
              <td className="num">{formatMetricValue(m.metric, m.meanA)}</td>
              <td className="num">{formatMetricValue(m.metric, m.meanB)}</td>
              <td className="num">{m.bootstrap ? `${m.bootstrap.difference.toFixed(2)} [${m.bootstrap.ciLow?.toFixed(2) ?? '–'}, ${m.bootstrap.ciHigh?.toFixed(2) ?? '–'}]` : '–'}</td>
              <td className={`num${m.bootstrap && m.bootstrap.pValue < 0.05 ? ' flag-ok' : ''}`}>{p(m.bootstrap?.pValue)}</td>
              <td className="num">{p(m.wilcoxon?.pValue)}</td>
              <td className="num">{m.mcnemar ? `${m.mcnemar.onlyA} / ${m.mcnemar.onlyB}, ${p(m.mcnemar.pValue)}` : '–'}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className="small muted">
        Paired bootstrap of the mean difference (1,000 resamples of the items, seeded); Wilcoxon signed-rank on per-item scores; McNemar on "correct" per item (score ≥ 0.5 of its scale), exact when
        few items disagree.
      </div>
      <DifferenceChart comparison={c} />
    </section>
  );
}
