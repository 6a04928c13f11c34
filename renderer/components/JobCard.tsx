import { useState, type ReactNode } from 'react';
import type { Job } from '../../shared/api';
import { call } from '../api';
import { useJobs } from '../query';
import { DoneOfTotal, formatEta } from './bits';

/**
 * A long job on its screen: progress, ETA and Cancel while it runs; its outcome once done, until
 * dismissed. The evaluation and ask-first screens show their jobs this way.
 */

export function JobCard({ job, onDismiss, outcome, testId, children }: { job: Job; onDismiss?: (() => void) | undefined; outcome?: string; testId: string; children?: ReactNode }) {
  return (
    <div className="card" data-testid={testId}>
      <div className="row-gap">
        <strong>{job.title}</strong>
        <span className="spacer" />
        {job.state === 'running' ? (
          <button type="button" className="button small" onClick={() => void call('job:cancel', { id: job.id })}>
            Cancel
          </button>
        ) : (
          <>
            <span className={job.state === 'done' ? 'flag-ok' : 'flag-bad'}>{outcome ?? job.state}</span>
            {onDismiss ? (
              <button type="button" className="button small ghost" aria-label={`Dismiss ${job.title}`} onClick={onDismiss}>
                ✕
              </button>
            ) : null}
          </>
        )}
      </div>
      <div className="row-gap small muted">
        <DoneOfTotal done={job.done} total={job.total ?? 0} />
        <span>{job.state === 'running' ? `ETA ${formatEta(job.etaSeconds)}` : null}</span>
        <span>{job.detail}</span>
      </div>
      {job.error ? <div className="small flag-bad">{job.error.message}</div> : null}
      {children}
    </div>
  );
}

/** Running jobs of one kind, and the newest finished one until dismissed (remembered for the session): finished cards do not pile up. */
export function useJobCards(kind: Job['kind'], storageKey: string): { cards: Job[]; dismiss: (id: string) => void } {
  const jobs = useJobs().filter((j) => j.kind === kind);
  const [dismissed, setDismissed] = useState(() => sessionStorage.getItem(storageKey));
  const running = jobs.filter((j) => j.state === 'running');
  const finished = jobs.filter((j) => j.state !== 'running').at(-1);
  const cards = finished && finished.id !== dismissed ? [...running, finished] : running;
  return {
    cards,
    dismiss: (id) => {
      sessionStorage.setItem(storageKey, id);
      setDismissed(id);
    },
  };
}
