import { useJobs } from '../../query';
import { RunOverview } from './RunOverview';
import { StartRunForm } from './StartRunForm';

/** Start a run on the left; watch it, and every run before it, on the right. */
export function RunTab() {
  const jobs = useJobs().filter((j) => j.kind === 'pipeline');
  return (
    <div className="grid-2">
      <StartRunForm running={jobs.some((j) => j.state === 'running')} />
      <RunOverview jobs={jobs} />
    </div>
  );
}
