import { Link } from 'wouter';
import type { Job } from '../../../shared/api';
import { formatCost } from '../../../shared/pipeline';
import { useOp } from '../../query';
import { failedItems, liveRun, stageInRun } from './live-run';
import { PipelineJobLine } from './PipelineJobLine';
import { RunsTable } from './RunsTable';

/** The right of the Run tab: what runs now and how the last run ended, where items stand, every run. */
export function RunOverview({ jobs }: { jobs: Job[] }) {
  const status = useOp('pipeline:status', {});
  const running = jobs.filter((j) => j.state === 'running');
  const latest: Job | undefined = jobs.at(-1);
  const live = running[0] ? liveRun(running[0]) : null;
  return (
    <div className="stack">
      <section className="card" data-testid="pipeline-jobs">
        <h2>Now</h2>
        {running.length ? running.map((j) => <PipelineJobLine key={j.id} job={j} />) : <div className="muted small">Nothing running.</div>}
        {latest && latest.state !== 'running' ? <RunResult job={latest} /> : null}
      </section>
      <section className="card">
        <h2>Where items stand</h2>
        <table className="plain compact numbers" data-testid="stage-status">
          <thead>
            <tr>
              <th>Stage</th>
              <th className="num">Done</th>
              <th className="num">Failed</th>
              <th className="num" title="Items the stage has taken up: done + failed (failed ones are tried again by the next run)">
                Total
              </th>
              {running[0] ? <th title="Where the running run is: stages finished, the one in progress, the ones waiting">This run</th> : null}
            </tr>
          </thead>
          <tbody>
            {status.data?.stages.map((s) => (
              <tr key={s.stage}>
                <td>{s.stage}</td>
                <td className="num">{s.done.toLocaleString('en-US')}</td>
                <td className="num">{s.failed ? <Link href={`/pipeline/failures?stage=${s.stage}`}>{s.failed}</Link> : 0}</td>
                <td className="num">{(s.done + s.failed).toLocaleString('en-US')}</td>
                {running[0] ? <td className="small">{stageInRun(s.stage, live, running[0])}</td> : null}
              </tr>
            ))}
          </tbody>
        </table>
        {running[0] ? <div className="small muted">Done and failed counts catch up when the run ends.</div> : null}
      </section>
      <section className="card">
        <h2>Runs</h2>
        <RunsTable runs={status.data?.runs ?? []} going={Boolean(running[0])} />
      </section>
    </div>
  );
}

/** The last run's outcome: green only when every item went through. */
function RunResult({ job }: { job: Job }) {
  if (job.state !== 'done') {
    return (
      <div className="notice bad" data-testid="pipeline-result">
        The run {job.state}
        {job.error ? `: ${job.error.message}` : ''}.
      </div>
    );
  }
  const run = job.kind === 'pipeline' ? job.result : null;
  if (!run) return null;
  const failed = failedItems(run);
  return (
    <div className={`notice ${failed ? 'warn' : 'ok'}`} data-testid="pipeline-result">
      Run #{run.id} {run.status}
      {failed ? (
        <>
          , <Link href="/pipeline/failures">{failed} failed</Link>
        </>
      ) : null}
      : {run.calls.toLocaleString('en-US')} calls, {run.cachedCalls.toLocaleString('en-US')} from the cache, {formatCost(run.costUsd, run.unpricedCalls, true)}.
    </div>
  );
}
