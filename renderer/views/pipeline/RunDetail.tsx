import { ErrorNotice } from '../../components/bits';
import { useOp, useOpMutation } from '../../query';
import { CostTable } from './CostTable';

/**
 * One run opened in the runs table: what a kept instance cost, early exit per voting stage, its
 * batches at the provider, and, for a run waiting for batches (or stopped), a way to take it up again.
 */
export function RunDetail({ id, status }: { id: number; status: string }) {
  const shown = useOp('pipeline:show', { run: id });
  const resume = useOpMutation('pipeline:resume');
  const run = shown.data;
  return (
    <div className="stack" data-testid={`run-detail-${id}`}>
      <ErrorNotice error={shown.error ?? resume.error} />
      {status === 'waiting' || status === 'cancelled' ? (
        <div className="row-gap">
          <button type="button" className="button small" disabled={resume.isPending || resume.isSuccess} onClick={() => resume.mutate({ run: id })}>
            Resume run #{id}
          </button>
          <span className="small muted">
            {status === 'waiting' ? 'Batches of this run are still at the provider: resuming reads them back and goes on.' : 'Resuming goes on where it stopped; answers already paid for are not asked again.'}
          </span>
        </div>
      ) : null}
      {run?.voting?.some((v) => v.notNeeded) ? (
        <p className="small muted">
          Early exit:{' '}
          {run.voting
            .filter((v) => v.asked)
            .map((v) => `${v.stage}${v.key ? ` ${v.key}` : ''} ${v.notNeeded} of ${v.asked + v.notNeeded} votes not needed (asked in the order ${v.order.map((m) => m.slice(m.indexOf('/') + 1)).join(', ')})`)
            .join('; ')}
          .
        </p>
      ) : null}
      {run?.costPerKept ? <CostTable cost={run.costPerKept} title={`Cost per kept instance, run #${id}`} /> : null}
      {run?.batches?.length ? (
        <table className="plain compact numbers" data-testid="batches">
          <thead>
            <tr>
              <th>Batch</th>
              <th>Stage</th>
              <th>Model</th>
              <th>State</th>
              <th className="num">Answered</th>
              <th className="num">Failed</th>
            </tr>
          </thead>
          <tbody>
            {run.batches.map((b) => (
              <tr key={b.id}>
                <td className="mono small">{b.providerBatchId ?? `#${b.id} (not created)`}</td>
                <td>{b.stage}</td>
                <td className="mono small">{b.model}</td>
                <td>{b.state}{b.attempt > 1 ? ` (attempt ${b.attempt})` : ''}</td>
                <td className="num">{b.completed} / {b.requests}</td>
                <td className="num">{b.failed}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </div>
  );
}
