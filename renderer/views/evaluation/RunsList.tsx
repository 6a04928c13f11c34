import { Link } from 'wouter';
import type { EvalRunSummary, Job } from '../../../shared/api';
import { call } from '../../api';
import { DoneOfTotal, formatEta } from '../../components/bits';
const mean = (m: { value: number | null } | undefined) => (m?.value == null ? '–' : m.value.toFixed(1));

/** Running evaluation jobs (progress, ETA, cancel) and every run, newest first. */

export function EvalJobLine({ job }: { job: Job }) {
  return (
    <div className="card" data-testid="eval-job">
      <div className="row-gap">
        <strong>{job.title}</strong>
        <span className="spacer" />
        {job.state === 'running' ? (
          <button type="button" className="button small" onClick={() => void call('job:cancel', { id: job.id })}>
            Cancel
          </button>
        ) : (
          <span className={job.state === 'done' ? 'flag-ok' : 'flag-bad'}>{job.state}</span>
        )}
      </div>
      <div className="row-gap small muted">
        <DoneOfTotal done={job.done} total={job.total ?? 0} />
        <span>{job.state === 'running' ? `ETA ${formatEta(job.etaSeconds)}` : null}</span>
        <span>{job.detail}</span>
      </div>
      {job.error ? <div className="small flag-bad">{job.error.message}</div> : null}
    </div>
  );
}

export function EvalRunsTable({ runs }: { runs: EvalRunSummary[] }) {
  if (!runs.length) return <div className="muted small">No evaluation run yet: start one on the left, or with `awb eval run`.</div>;
  return (
    <table className="plain" data-testid="eval-runs">
      <thead>
        <tr>
          <th>Run</th>
          <th>Method</th>
          <th>Model</th>
          <th>Status</th>
          <th className="num">Done · failed</th>
          <th className="num">STR-EM</th>
          <th className="num">Disambig-F1</th>
          <th className="num">Judge</th>
          <th className="num">Cost</th>
        </tr>
      </thead>
      <tbody>
        {runs.map((r) => (
          <tr key={r.id}>
            <td>
              <Link href={`/evaluation/${r.id}`}>#{r.id}</Link>
            </td>
            <td title={`${r.source}${r.corpus ? ` · ${r.corpus}, ${r.retrievalMode}` : ''}`}>{r.methodLabel}</td>
            <td className="mono small">{r.model}</td>
            <td className={r.status === 'done' && r.failed < r.total ? (r.failed ? 'flag-warn' : 'flag-ok') : r.status === 'running' ? '' : 'flag-bad'} title={r.error ?? undefined}>
              {r.statusLabel}
            </td>
            <td className="num">
              {r.done}/{r.total} · {r.failed}
            </td>
            <td className="num">{mean(r.metrics.str_em)}</td>
            <td className="num">{mean(r.metrics.disambig_f1)}</td>
            <td className="num">{mean(r.metrics.judge_mean)}</td>
            <td className="num">${r.costUsd.toFixed(4)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
