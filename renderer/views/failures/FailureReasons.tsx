import { Link } from 'wouter';
import { ErrorNotice, plural } from '../../components/bits';
import { useOp } from '../../query';

/**
 * Why a run's items failed, grouped: "37 × clarify: the output was not valid JSON …", most frequent
 * first, each with its first item one click away and the failed items listed in the failure table.
 */
export function FailureReasonsPanel({ run, limit = 8 }: { run: number; limit?: number }) {
  const reasons = useOp('failure:reasons', { run, limit });
  const r = reasons.data;
  return (
    <section className="card" data-testid="failure-reasons">
      <div className="card-head">
        <h2>Why items failed</h2>
        <span className="spacer" />
        {r?.failed ? (
          <Link href={`/evaluation/${run}/items?status=failed`} className="small">
            all {plural(r.failed, 'failed item')} →
          </Link>
        ) : null}
      </div>
      <ErrorNotice error={reasons.error} />
      {r && r.failed === 0 ? <div className="small muted">No item failed.</div> : null}
      {r?.groups.map((g) => (
        <div key={g.reason} className="reason-row small" data-testid="failure-reason">
          <span className="count">{g.count} ×</span>
          <span>
            {g.reason}{' '}
            <Link href={`/evaluation/${run}/items/${g.example.id}?status=failed`} className="muted" title={g.example.error}>
              first: item {g.example.id}
            </Link>
          </span>
        </div>
      ))}
      {r?.more ? <div className="small muted">and {plural(r.more, 'other reason')}</div> : null}
    </section>
  );
}
