import { useLocation } from 'wouter';
import { FailuresTab } from './FailuresTab';
import { FunnelTab } from './FunnelTab';
import { PricesTab } from './PricesTab';
import { PromptsTab } from './PromptsTab';
import { RunTab } from './RunTab';

/**
 * The construction pipeline, one tab each: start a run and watch it (ETA, cost, cancel); the
 * funnel per ambiguity type; the items that failed and the full trace of any item; the prompt
 * templates (every edit a new version); and the price table.
 */

const TABS = { run: RunTab, funnel: FunnelTab, failures: FailuresTab, prompts: PromptsTab, prices: PricesTab } as const;
type Tab = keyof typeof TABS;

export function PipelineView({ tab }: { tab: string }) {
  const [, navigate] = useLocation();
  const current: Tab = tab in TABS ? (tab as Tab) : 'run';
  const Current = TABS[current];
  return (
    <div className="page">
      <div className="page-inner">
        <header className="page-head">
          <h1>Pipeline</h1>
          <span className="small muted">detect → clarify → decompose → retrieve → answer → shorten → collide → merge → filter</span>
        </header>
        <div className="tabs" role="tablist">
          {(Object.keys(TABS) as Tab[]).map((t) => (
            <button
              key={t}
              type="button"
              role="tab"
              aria-selected={t === current}
              className={t === current ? 'active' : ''}
              onClick={() => navigate(`/pipeline${t === 'run' ? '' : `/${t}`}`)}
            >
              {t[0]!.toUpperCase() + t.slice(1)}
            </button>
          ))}
        </div>
        <Current />
      </div>
    </div>
  );
}
