import { Link, useLocation, useSearch } from 'wouter';
import { metricLabel } from '../../shared/eval/labels';
import { NotAllowed, useAccess } from '../access';
import { useJobCards } from '../components/JobCard';
import { useOp } from '../query';
import { CompareTables } from './evaluation/CompareTables';
import { PromptsPanel } from './evaluation/PromptsPanel';
import { RunDetail } from './evaluation/RunDetail';
import { EvalJobLine, EvalRunsTable } from './evaluation/RunsList';
import { ScorePredictions } from './evaluation/ScorePredictions';
import { StartEvalForm } from './evaluation/StartEvalForm';

/**
 * Evaluation: run a QA method with a model over a release split or a dataset, watch it (ETA,
 * cost, cancel), choose two runs to compare (paired tests, then the items where they disagree),
 * the method × model and method × type tables with a chart, and predictions made elsewhere scored.
 * The runs chosen to compare live in the URL (`/evaluation?select=3,5`).
 */

function useSelection(): [number[], (id: number) => void] {
  const search = new URLSearchParams(useSearch());
  const [, navigate] = useLocation();
  const selected = (search.get('select') ?? '').split(',').map(Number).filter((n) => n > 0);
  const toggle = (id: number) => {
    // Two at most: choosing a third lets go of the first chosen.
    const next = selected.includes(id) ? selected.filter((s) => s !== id) : [...selected, id].slice(-2);
    navigate(next.length ? `/evaluation?select=${next.join(',')}` : '/evaluation', { replace: true });
  };
  return [selected, toggle];
}

function Runs() {
  const runs = useOp('evaluation:list', {});
  const [selected, toggle] = useSelection();
  const [a, b] = selected;
  return (
    <section className="card">
      <div className="row-gap">
        <h2>Runs</h2>
        <span className="spacer" />
        <span className="small muted">{selected.length === 2 ? '' : 'Tick two runs to compare them.'}</span>
        {a !== undefined && b !== undefined ? (
          <Link href={`/evaluation/compare?a=${a}&b=${b}`} className="button primary small" data-testid="compare-selected">
            Compare #{a} and #{b}
          </Link>
        ) : (
          <button type="button" className="button small" disabled>
            Compare
          </button>
        )}
      </div>
      <EvalRunsTable runs={runs.data ?? []} selected={selected} onToggle={toggle} />
    </section>
  );
}

export function EvaluationView({ run }: { run?: number | undefined }) {
  const { cards, dismiss } = useJobCards('evaluation', 'awb.evaluation.dismissed-job');
  const mayStart = useAccess().may('evaluation:start');
  return (
    <div className="page">
      <div className="page-inner">
        <header className="page-head">
          <h1>Evaluation</h1>
          <span className="small muted">QA methods × models on a release or dataset: {['str_em', 'disambig_f1', 'rouge_l', 'judge_mean', 'latency_ms', 'cost_usd'].map(metricLabel).join(', ')}</span>
        </header>
        {run !== undefined ? (
          <RunDetail id={run} />
        ) : (
          <>
            <div className="grid-2">
              {mayStart.allowed ? <StartEvalForm running={cards.some((j) => j.state === 'running')} /> : <section className="card"><h2>Start a run</h2><NotAllowed permission={mayStart} what="start evaluation runs" /></section>}
              <div style={{ display: 'flex', flexDirection: 'column', gap: 12 }}>
                {cards.map((j) => (
                  <EvalJobLine key={j.id} job={j} onDismiss={j.state === 'running' ? undefined : () => dismiss(j.id)} />
                ))}
                <Runs />
              </div>
            </div>
            <CompareTables />
            <div className="grid-2">
              <ScorePredictions />
              <PromptsPanel />
            </div>
          </>
        )}
      </div>
    </div>
  );
}
