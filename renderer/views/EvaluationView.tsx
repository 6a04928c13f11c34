import { useJobs, useOp } from '../query';
import { CompareTables } from './evaluation/CompareTables';
import { PromptsPanel } from './evaluation/PromptsPanel';
import { RunDetail } from './evaluation/RunDetail';
import { EvalJobLine, EvalRunsTable } from './evaluation/RunsList';
import { StartEvalForm } from './evaluation/StartEvalForm';

/**
 * Evaluation: run a QA method with a model over a release split or a dataset, watch it (ETA,
 * cost, cancel), and compare runs: method × model, method × type with a chart, and one run's items.
 */
export function EvaluationView({ run }: { run?: number | undefined }) {
  const jobs = useJobs().filter((j) => j.kind === 'evaluation');
  const runs = useOp('evaluation:list', {});
  return (
    <div className="page">
      <div className="page-inner">
        <header className="page-head">
          <h1>Evaluation</h1>
          <span className="small muted">QA methods × models on a release or dataset: STR-EM, Disambig-F1, ROUGE-L, LLM judge, latency and cost</span>
        </header>
        {run !== undefined ? (
          <RunDetail id={run} />
        ) : (
          <>
            <div className="grid-2">
              <StartEvalForm running={jobs.some((j) => j.state === 'running')} />
              <div style={{ display: 'flex', flexDirection: 'column', gap: 12 }}>
                {jobs.slice(-3).map((j) => (
                  <EvalJobLine key={j.id} job={j} />
                ))}
                <section className="card">
                  <h2>Runs</h2>
                  <EvalRunsTable runs={runs.data ?? []} />
                </section>
              </div>
            </div>
            <CompareTables />
            <PromptsPanel />
          </>
        )}
      </div>
    </div>
  );
}
