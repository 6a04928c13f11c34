import type { CostPerKept } from '../../../shared/pipeline';
import { formatUsd } from '../../../shared/pipeline';

/**
 * What a kept instance cost: tokens and dollars per kept instance, per stage and per ambiguity
 * type, with the share of calls sent in batches and, for one run, the ratio to the same run asking
 * everyone synchronously. Money is "unknown" where a model without a price took part.
 */
export function CostTable({ cost, title }: { cost: CostPerKept; title: string }) {
  const types = Object.keys(cost.kept.byType).sort();
  const usd = (v: number | null) => (v === null ? 'unknown' : formatUsd(v));
  const tokens = (v: number | null) => (v === null ? '–' : Math.round(v).toLocaleString('en-US'));
  const ratio = cost.askEveryoneSync;
  return (
    <section className="card">
      <h2>{title}</h2>
      {cost.kept.total === 0 ? (
        <p className="small muted">No instance kept yet: nothing to divide by.</p>
      ) : (
        <table className="plain numbers" data-testid="cost-per-kept">
          <thead>
            <tr>
              <th>Stage</th>
              <th className="num">tokens / kept</th>
              <th className="num">USD / kept</th>
              {types.map((t) => (
                <th key={t} className="num">
                  USD / kept {t}
                </th>
              ))}
              <th className="num">calls in batches</th>
            </tr>
          </thead>
          <tbody>
            {cost.stages.map((s) => (
              <tr key={s.stage}>
                <td>{s.stage}</td>
                <td className="num">{tokens(s.perKept.tokens)}</td>
                <td className="num">{usd(s.perKept.usd)}</td>
                {types.map((t) => (
                  <td key={t} className="num">
                    {usd(s.byType[t]?.perKept.usd ?? null)}
                  </td>
                ))}
                <td className="num">{s.calls ? `${Math.round((100 * s.batchCalls) / s.calls)}%` : '–'}</td>
              </tr>
            ))}
            <tr>
              <th>all stages</th>
              <th className="num">{tokens(cost.total.perKept.tokens)}</th>
              <th className="num">{usd(cost.total.perKept.usd)}</th>
              {types.map((t) => (
                <th key={t} className="num">
                  {usd(cost.byType[t]?.perKept.usd ?? null)}
                </th>
              ))}
              <th className="num">{cost.total.calls ? `${Math.round((100 * cost.total.batchCalls) / cost.total.calls)}%` : '–'}</th>
            </tr>
          </tbody>
        </table>
      )}
      <p className="small muted">
        {cost.kept.total.toLocaleString('en-US')} kept ({types.map((t) => `${cost.kept.byType[t]} ${t}`).join(', ') || 'none'}).
        {cost.notNeeded.votes ? ` ${cost.notNeeded.votes.toLocaleString('en-US')} votes were not needed.` : ''}
        {ratio.tokensRatio !== null && cost.notNeeded.votes ? ` Asking everyone synchronously would have cost ${tokens(ratio.perKept.tokens)} tokens and ${usd(ratio.perKept.usd)} per kept instance (this: ${ratio.tokensRatio.toFixed(2)}× the tokens${ratio.usdRatio !== null ? `, ${ratio.usdRatio.toFixed(2)}× the money` : ''}).` : ''}
        {cost.unpriced.length ? ` No price for ${cost.unpriced.join(', ')}.` : ''}
      </p>
    </section>
  );
}
