import { useEffect, useState } from 'react';
import { useLocation, useSearch } from 'wouter';
import { runStatusLabel } from '../../../shared/eval/labels';
import { useOp } from '../../query';
import { PairedTests } from '../evaluation/PairedTests';
import { FailureTable } from './FailureTable';

/**
 * `/evaluation/compare?a=..&b=..`: two runs compared, the paired tests above run A's items side by
 * side with run B's (where A is right and B wrong, or the reverse). Without two runs, a picker.
 */

function RunPicker() {
  const runs = useOp('evaluation:list', {});
  const [, navigate] = useLocation();
  const [a, setA] = useState('');
  const [b, setB] = useState('');
  const select = (label: string, value: string, set: (v: string) => void) => (
    <label className="row-gap">
      {label}
      <select className="input" aria-label={`run ${label}`} value={value} onChange={(e) => set(e.target.value)}>
        <option value="">choose a run…</option>
        {(runs.data ?? []).map((r) => (
          <option key={r.id} value={r.id}>
            #{r.id} {r.methodLabel} × {r.model} on {r.source} ({runStatusLabel(r)})
          </option>
        ))}
      </select>
    </label>
  );
  return (
    <div className="page">
      <div className="page-inner narrow">
        <h1>Compare two runs</h1>
        <p className="muted">Runs over the same release split or dataset are compared item by item: paired tests per metric, then the items where one is right and the other wrong.</p>
        <div className="card" data-testid="compare-picker">
          {select('A', a, setA)}
          {select('B', b, setB)}
          <div>
            <button type="button" className="button primary" disabled={!a || !b || a === b} onClick={() => navigate(`/evaluation/compare?a=${a}&b=${b}`)}>
              Compare
            </button>
            {a && a === b ? <span className="small flag-bad"> Choose two different runs.</span> : null}
          </div>
        </div>
      </div>
    </div>
  );
}

export function CompareFailures() {
  const search = useSearch();
  const [, navigate] = useLocation();
  const p = new URLSearchParams(search);
  const a = Number(p.get('a'));
  const b = Number(p.get('b'));
  const ok = Number.isInteger(a) && a > 0 && Number.isInteger(b) && b > 0;
  const needsVersus = ok && !p.get('vs');
  useEffect(() => {
    // The item list is the failure table of A with B beside it: keep one URL shape for both.
    if (!needsVersus) return;
    const next = new URLSearchParams(search);
    next.set('vs', String(b));
    if (!next.get('mode')) next.set('mode', 'a-right-b-wrong');
    navigate(`/evaluation/compare?${next.toString()}`, { replace: true });
  }, [needsVersus, search, b, navigate]);
  if (!ok) return <RunPicker />;
  return (
    <FailureTable
      run={a}
      compare
      header={
        <details open className="compare-tests">
          <summary className="small muted">Paired tests</summary>
          <PairedTests a={a} b={b} />
        </details>
      }
    />
  );
}
