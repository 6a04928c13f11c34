import { plural } from '../components/bits';
import { useJobs, useOp } from '../query';
import { JobLine } from '../views/ImportView';
import { TeamStatusBar } from '../views/team/SyncStatus';

/** The bar along the bottom: the database, what it holds, who is signed in, and work under way. */
export function StatusBar() {
  const stats = useOp('stats:get', {});
  const info = useOp('app:info', {});
  const running = useJobs().filter((j) => j.state === 'running');
  return (
    <footer className="statusbar" data-testid="statusbar">
      <span className="mono" title="Database file">
        {info.data?.databasePath ?? ''}
      </span>
      <span>{plural(stats.data?.instances, 'instance')}</span>
      <span>{plural(stats.data?.baseQuestions, 'base question')}</span>
      <span>{plural(stats.data?.passages, 'passage')}</span>
      <span className="spacer" />
      <TeamStatusBar />
      {running.map((job) => (
        <JobLine key={job.id} job={job} />
      ))}
      <span className="muted">{info.data?.mode === 'desktop' ? 'desktop' : 'browser mode'}</span>
    </footer>
  );
}
