import { Link } from 'wouter';
import type { EvalRunSummary, Job } from '../../../shared/api';
import { metricLabel, runStatusLabel } from '../../../shared/eval/labels';
import { JobCard } from '../../components/JobCard';

/** Evaluation jobs (progress, ETA, cancel; a finished one until dismissed) and every run, newest first, with two chosen to compare. */

const value = (m: { value: number | null } | undefined) => (m?.value == null ? '–' : m.value.toFixed(1));

export function EvalJobLine({ job, onDismiss }: { job: Job; onDismiss?: (() => void) | undefined }) {
  return <JobCard job={job} onDismiss={onDismiss} testId="eval-job" {...(job.kind === 'evaluation' && job.result ? { outcome: runStatusLabel(job.result) } : {})} />;
}

const statusClass = (r: EvalRunSummary) => (r.status === 'done' && r.failed < r.total ? (r.failed ? 'flag-warn' : 'flag-ok') : r.status === 'running' ? '' : 'flag-bad');

export function EvalRunsTable({ runs, selected, onToggle }: { runs: EvalRunSummary[]; selected: readonly number[]; onToggle: (id: number) => void }) {
  if (!runs.length) return <div className="muted small">No evaluation run yet: start one on the left, or with `awb eval run`.</div>;
  return (
    <div style={{ overflowX: 'auto' }}>
    <table className="plain" data-testid="eval-runs">
      <thead>
        <tr>
          <th title="tick two to compare" style={{ width: 24 }} />
          <th>Run</th>
          <th>Status</th>
          <th className="num">Answered</th>
          {(['str_em', 'disambig_f1', 'judge_mean'] as const).map((m) => (
            <th key={m} className="num">
              {metricLabel(m)}
            </th>
          ))}
          <th className="num">Cost</th>
        </tr>
      </thead>
      <tbody>
        {runs.map((r) => (
          <tr key={r.id} className={selected.includes(r.id) ? 'selected' : undefined}>
            <td>
              <input type="checkbox" aria-label={`compare run ${r.id}`} checked={selected.includes(r.id)} onChange={() => onToggle(r.id)} />
            </td>
            <td title={`${r.source}${r.corpus ? ` · ${r.corpus}, ${r.retrievalMode}` : ''}`}>
              <Link href={`/evaluation/${r.id}`}>#{r.id}</Link> {r.methodLabel} <span className="mono small muted">× {r.model}</span>
            </td>
            <td className={statusClass(r)} title={r.error ?? undefined}>
              {runStatusLabel(r)}
            </td>
            <td className="num">
              {r.done}/{r.total}
            </td>
            <td className="num">{value(r.metrics.str_em)}</td>
            <td className="num">{value(r.metrics.disambig_f1)}</td>
            <td className="num">{r.metrics.judge_mean?.value == null ? '–' : r.metrics.judge_mean.value.toFixed(2)}</td>
            <td className="num">${r.costUsd.toFixed(4)}</td>
          </tr>
        ))}
      </tbody>
    </table>
    </div>
  );
}
