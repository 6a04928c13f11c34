import { Fragment, useState } from 'react';
import { formatCost, type RunSummary } from '../../../shared/pipeline';
import { failedItems, runStatus } from './live-run';
import { RunDetail } from './RunDetail';

/** A cost cell's explanation when some calls had no price (set one on the Prices tab). */
const unpricedTitle = (n = 0) => (n ? `${n.toLocaleString('en-US')} call${n === 1 ? '' : 's'} had no price (set one on the Prices tab): the priced calls alone cost this much` : undefined);

/** Every run, newest first; a click opens its stages and its config. */
export function RunsTable({ runs, going }: { runs: RunSummary[]; going: boolean }) {
  const [open, setOpen] = useState<number | null>(null);
  if (!runs.length) return <div className="muted small">{going ? 'The first run is going; it is listed here when it ends.' : 'No run yet.'}</div>;
  return (
    <table className="plain" data-testid="runs">
      <thead>
        <tr>
          <th>Run</th>
          <th>Status</th>
          <th>Started</th>
          <th className="num">Calls</th>
          <th className="num">Cached</th>
          <th className="num">Tokens in / out</th>
          <th className="num">Cost</th>
        </tr>
      </thead>
      <tbody>
        {runs.map((r) => (
          <Fragment key={r.id}>
            <tr className="clickable" onClick={() => setOpen(open === r.id ? null : r.id)}>
              <td>#{r.id}</td>
              <td
                className={runStatus(r).className}
                title={r.error ?? (failedItems(r) ? 'Failed items are retried by the next run; see the Failures tab' : undefined)}
              >
                {runStatus(r).text}
              </td>
              <td className="small muted">{r.startedAt.slice(0, 19).replace('T', ' ')}</td>
              <td className="num">{r.calls.toLocaleString('en-US')}</td>
              <td className="num">{r.cachedCalls.toLocaleString('en-US')}</td>
              <td className="num">
                {r.promptTokens.toLocaleString('en-US')} / {r.completionTokens.toLocaleString('en-US')}
              </td>
              <td className="num" title={unpricedTitle(r.unpricedCalls)}>
                {formatCost(r.costUsd, r.unpricedCalls)}
              </td>
            </tr>
            {open === r.id ? (
              <tr>
                <td colSpan={7}>
                  <table className="plain compact numbers">
                    <thead>
                      <tr>
                        <th>Stage</th>
                        <th className="num">Items</th>
                        <th className="num">Done</th>
                        <th className="num">Removed</th>
                        <th className="num">Failed</th>
                        <th className="num">Calls</th>
                        <th className="num">Cached</th>
                        <th className="num">Cost</th>
                      </tr>
                    </thead>
                    <tbody>
                      {r.stages.map((s) => (
                        <tr key={s.stage}>
                          <td>{s.stage}</td>
                          <td className="num">{s.processed}</td>
                          <td className="num">{s.done}</td>
                          <td className="num">{s.removed}</td>
                          <td className="num">{s.failed}</td>
                          <td className="num">{s.calls}</td>
                          <td className="num">{s.cachedCalls}</td>
                          <td className="num" title={unpricedTitle(s.unpricedCalls)}>
                            {formatCost(s.costUsd, s.unpricedCalls)}
                          </td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                  <RunDetail id={r.id} status={r.status} />
                  <details>
                    <summary className="small muted">The run's config</summary>
                    <pre className="code">{JSON.stringify(r.config, null, 2)}</pre>
                  </details>
                </td>
              </tr>
            ) : null}
          </Fragment>
        ))}
      </tbody>
    </table>
  );
}
