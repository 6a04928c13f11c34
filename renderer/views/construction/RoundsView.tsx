import { Bar, CartesianGrid, ComposedChart, Legend, Line, ResponsiveContainer, Scatter, Tooltip, XAxis, YAxis } from 'recharts';
import { useLocation } from 'wouter';
import type { RoundFunnel } from '../../../shared/construction';
import { ErrorNotice } from '../../components/bits';
import { useOp } from '../../query';

/**
 * CondAmbigQA's construction in rounds, per dataset (`/rounds/:dataset`): how many items each
 * round drafted, accepted and sent back, the acceptance against the paper's (40% after round 1,
 * 85% after round 3), and cost and time per item. Starting a round and reviewing are in the CLI
 * (`awb round …`) and the judging screen (the round's review campaign).
 */

const pct = (v: number | null) => (v === null ? '–' : `${(v * 100).toFixed(1)}%`);
const money = (v: number | null) => (v === null ? '–' : `$${v.toFixed(4)}`);
const seconds = (ms: number | null) => (ms === null ? '–' : `${(ms / 1000).toFixed(1)} s`);
const AXIS = { fontSize: 11, fill: 'var(--text-2)' };
const TOOLTIP = { background: 'var(--surface)', border: '1px solid var(--border)', fontSize: 12 };

function RoundTable({ f }: { f: RoundFunnel }) {
  return (
    <table className="plain numbers" data-testid="round-funnel">
      <thead>
        <tr>
          {['Round', 'drafted', 'reviewed', 'accepted', 'rejected', 'pending', 'acceptance', 'accepted so far', 'cost / item', 'model time / item', 'review time / item'].map((h, i) => (
            <th key={h} className={i ? 'num' : undefined}>
              {h}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {f.rounds.map((r) => (
          <tr key={r.round}>
            <td>{r.round}</td>
            <td className="num">{r.drafted}</td>
            <td className="num">{r.reviewed}</td>
            <td className="num">{r.accepted}</td>
            <td className="num">{r.rejected}</td>
            <td className="num">{r.pending}</td>
            <td className="num">{pct(r.acceptance)}</td>
            <td className="num">{pct(r.cumulativeAcceptance)}</td>
            <td className="num">{money(r.costPerItem)}</td>
            <td className="num">{seconds(r.llmMsPerItem)}</td>
            <td className="num">{seconds(r.reviewMsPerItem)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

const paperPercent = (f: RoundFunnel, round: number) => {
  const reported = f.reference.find((p) => p.round === round);
  return reported ? reported.acceptance * 100 : null;
};

function AcceptanceChart({ f }: { f: RoundFunnel }) {
  const data = f.rounds.map((r) => ({
    round: `round ${r.round}`,
    accepted: r.accepted,
    rejected: r.rejected,
    pending: r.pending,
    'accepted so far (%)': r.cumulativeAcceptance === null ? null : Math.round(r.cumulativeAcceptance * 1000) / 10,
    'paper (%)': paperPercent(f, r.round),
  }));
  return (
    <ResponsiveContainer width="100%" height={280}>
      <ComposedChart data={data} margin={{ top: 8, right: 8, bottom: 0, left: 8 }}>
        <CartesianGrid strokeDasharray="3 3" stroke="var(--border)" vertical={false} />
        <XAxis dataKey="round" tick={AXIS} />
        <YAxis yAxisId="items" allowDecimals={false} tick={AXIS} label={{ value: 'items', angle: -90, position: 'insideLeft', style: { textAnchor: 'middle', ...AXIS } }} />
        <YAxis yAxisId="pct" orientation="right" domain={[0, 100]} tick={AXIS} unit="%" />
        <Tooltip contentStyle={TOOLTIP} />
        <Legend wrapperStyle={{ fontSize: 11 }} />
        <Bar yAxisId="items" dataKey="accepted" stackId="d" fill="var(--ok, #2f9e44)" isAnimationActive={false} />
        <Bar yAxisId="items" dataKey="rejected" stackId="d" fill="var(--danger, #e03131)" isAnimationActive={false} />
        <Bar yAxisId="items" dataKey="pending" stackId="d" fill="var(--text-2)" isAnimationActive={false} />
        <Line yAxisId="pct" dataKey="accepted so far (%)" stroke="var(--accent)" strokeWidth={2} isAnimationActive={false} connectNulls />
        <Scatter yAxisId="pct" dataKey="paper (%)" fill="var(--type-constraint)" shape="diamond" isAnimationActive={false} />
      </ComposedChart>
    </ResponsiveContainer>
  );
}

function CostChart({ f }: { f: RoundFunnel }) {
  const data = f.rounds.map((r) => ({ round: `round ${r.round}`, 'cost / item ($)': r.costPerItem, 'review time / item (s)': r.reviewMsPerItem === null ? null : r.reviewMsPerItem / 1000 }));
  return (
    <ResponsiveContainer width="100%" height={220}>
      <ComposedChart data={data} margin={{ top: 8, right: 8, bottom: 0, left: 8 }}>
        <CartesianGrid strokeDasharray="3 3" stroke="var(--border)" vertical={false} />
        <XAxis dataKey="round" tick={AXIS} />
        <YAxis yAxisId="cost" tick={AXIS} />
        <YAxis yAxisId="time" orientation="right" tick={AXIS} />
        <Tooltip contentStyle={TOOLTIP} />
        <Legend wrapperStyle={{ fontSize: 11 }} />
        <Bar yAxisId="cost" dataKey="cost / item ($)" fill="var(--accent)" isAnimationActive={false} />
        <Line yAxisId="time" dataKey="review time / item (s)" stroke="var(--type-syntactic)" strokeWidth={2} isAnimationActive={false} />
      </ComposedChart>
    </ResponsiveContainer>
  );
}

export function RoundsView({ dataset }: { dataset: string | null }) {
  const [, navigate] = useLocation();
  const datasets = useOp('dataset:list', {});
  const funnel = useOp('round:funnel', dataset ? { dataset } : null);
  const f = funnel.data;
  return (
    <div className="page">
      <div className="page-inner stack">
        <h1>Construction rounds</h1>
        <label>
          Dataset{' '}
          <select value={dataset ?? ''} onChange={(e) => navigate(e.target.value ? `/rounds/${encodeURIComponent(e.target.value)}` : '/rounds')} aria-label="Dataset">
            <option value="">choose…</option>
            {(datasets.data ?? []).map((d) => (
              <option key={d.id} value={d.name}>
                {d.name}
              </option>
            ))}
          </select>
        </label>
        <ErrorNotice error={datasets.error ?? funnel.error} />
        {f && f.rounds.length === 0 ? <p className="muted">No rounds yet for “{f.dataset}”: start one with awb round start --dataset “{f.dataset}”.</p> : null}
        {f && f.rounds.length > 0 ? (
          <>
            <section className="card">
              <h2>
                {f.items} items: {f.accepted} accepted, {f.building} in progress, {f.removed} given up · {money(f.costPerAccepted)} per accepted item
              </h2>
              <AcceptanceChart f={f} />
            </section>
            <section className="card">
              <RoundTable f={f} />
            </section>
            <section className="card">
              <h2>Cost and review time per item</h2>
              <CostChart f={f} />
            </section>
          </>
        ) : null}
      </div>
    </div>
  );
}
