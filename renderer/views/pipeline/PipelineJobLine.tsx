import type { Job } from '../../../shared/api';
import { call } from '../../api';
import { formatEta, ProgressBar } from '../../components/bits';
import { liveRun } from './live-run';
import { IfAllowed } from '../../access';

/**
 * The running pipeline: the current stage and its items, one fraction for both the bar and the
 * percentage, the stage's ETA (its pace so far, as the CLI shows it), calls and cost so far.
 */
export function PipelineJobLine({ job }: { job: Job }) {
  const live = liveRun(job);
  const fraction = job.total ? job.done / job.total : null;
  const eta = formatEta(job.etaSeconds);
  return (
    <div className="job" data-testid="job">
      <span>{job.title}</span>
      {live ? (
        <span className="small">
          stage {live.stages.indexOf(live.stage) + 1} of {live.stages.length}: <strong>{live.stage}</strong>
        </span>
      ) : null}
      {/* A new bar per stage, so it never slides back from the last stage's 100% while the label says 0%. */}
      <ProgressBar key={live?.stage ?? ''} fraction={fraction} />
      <span data-testid="job-percent">
        {fraction === null
          ? 'starting…'
          : `${job.done.toLocaleString('en-US')} of ${job.total!.toLocaleString('en-US')} items · ${Math.floor(fraction * 100)}%`}
      </span>
      <span className="muted" title="Time left in this stage, from its pace so far">
        {eta || (fraction !== null ? 'ETA: estimating…' : '')}
      </span>
      {live ? (
        <span className="muted small" title="Calls and cost of the whole run so far">
          {live.calls.toLocaleString('en-US')} calls, {live.cached.toLocaleString('en-US')} cached · {live.cost}
        </span>
      ) : job.detail ? (
        <span className="muted small">{job.detail}</span>
      ) : null}
      <IfAllowed operation="job:cancel">
        <button type="button" className="button small ghost" title="Cancel" aria-label={`Cancel ${job.title}`} onClick={() => void call('job:cancel', { id: job.id })}>
          ✕
        </button>
      </IfAllowed>
    </div>
  );
}
