import { useEffect, useState } from 'react';
import type { PipelineStage } from '../../../shared/domain';
import { RUN_STAGES } from '../../../shared/pipeline';
import { call } from '../../api';
import { ErrorNotice } from '../../components/bits';
import { useOp, useOpMutation } from '../../query';
import { ApiKeys } from './ApiKeys';
import { useAccess } from '../../access';

/** The config, checked as it is typed: valid JSON first, then the service's own check. */
function useConfigCheck(configText: string): { ok: boolean; message: string } | null {
  const [check, setCheck] = useState<{ ok: boolean; message: string } | null>(null);
  useEffect(() => {
    if (!configText) return;
    const timer = setTimeout(() => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(configText);
      } catch (e) {
        setCheck({ ok: false, message: `Not valid JSON: ${(e as Error).message}` });
        return;
      }
      call('pipeline:validate', { config: parsed }).then(
        (r) => setCheck(r.ok ? { ok: true, message: `Valid: ${r.detectors} detectors, ${r.filters} filters, endpoints ${r.endpoints.join(', ')}.` } : r),
        (e: Error) => setCheck({ ok: false, message: e.message }),
      );
    }, 250);
    return () => clearTimeout(timer);
  }, [configText]);
  return check;
}

/** Starting a run: the config (last used, or the example), the stages, a limit, the datasets. */
export function StartRunForm({ running }: { running: boolean }) {
  const defaults = useOp('pipeline:defaults', {});
  const datasets = useOp('dataset:list', {});
  const startRun = useOpMutation('pipeline:start');
  const [text, setText] = useState<string | null>(null);
  const [stages, setStages] = useState<PipelineStage[]>([...RUN_STAGES]);
  const [limit, setLimit] = useState('');
  const [chosen, setChosen] = useState<string[]>([]);
  const [noCache, setNoCache] = useState(false);
  const configText = text ?? (defaults.data ? JSON.stringify(defaults.data.last ?? defaults.data.example, null, 2) : '');
  const check = useConfigCheck(configText);
  const starting = useAccess().may('pipeline:start');
  const startBlocked = !starting.allowed
    ? starting.reason
    : running
    ? 'A run is going: wait for it, or cancel it.'
    : stages.length === 0
      ? 'Tick at least one stage.'
      : !check
        ? 'Checking the config…'
        : !check.ok
          ? 'Fix the config first: see the note under the editor.'
          : null;

  const start = () =>
    startRun.mutate({
      config: JSON.parse(configText) as unknown,
      stages: stages.length === RUN_STAGES.length ? [] : stages,
      ...(limit ? { limit: Number(limit) } : {}),
      datasets: chosen,
      noCache,
    });

  return (
    <section className="card">
      <h2>Start a run</h2>
      <p className="small muted">
        Items already done in a stage are passed over, and every answer already cached is reused, so starting again resumes. Stages run in order; each works on
        every item waiting for it.
      </p>
      <label className="small muted" htmlFor="pipeline-config">
        Config (JSON; see resources/pipeline.example.json)
      </label>
      <textarea id="pipeline-config" className="input mono" rows={16} value={configText} onChange={(e) => setText(e.target.value)} spellCheck={false} />
      <div className="row-gap">
        {check ? (
          <span className={`small ${check.ok ? 'flag-ok' : 'flag-bad'}`} data-testid="config-check">
            {check.message}
          </span>
        ) : null}
        <div className="spacer" />
        <button
          type="button"
          className="button small ghost"
          title="Runs against the bundled fake model: start it with `npx awb pipeline fake-endpoint`"
          onClick={() => defaults.data && setText(JSON.stringify(defaults.data.offline, null, 2))}
        >
          Load the offline demo
        </button>
        <button type="button" className="button small ghost" onClick={() => defaults.data && setText(JSON.stringify(defaults.data.example, null, 2))}>
          Load the example
        </button>
      </div>
      <div className="stage-chips" role="group" aria-label="Stages">
        {RUN_STAGES.map((s) => (
          <label key={s} className="check">
            <input
              type="checkbox"
              checked={stages.includes(s)}
              onChange={() => setStages(stages.includes(s) ? stages.filter((x) => x !== s) : RUN_STAGES.filter((x) => x === s || stages.includes(x)))}
            />{' '}
            {s}
          </label>
        ))}
      </div>
      <div className="row-gap">
        <label htmlFor="pipeline-limit" className="small">
          at most
        </label>
        <input
          id="pipeline-limit"
          className="input narrow-input"
          type="number"
          min={1}
          value={limit}
          onChange={(e) => setLimit(e.target.value)}
          placeholder="all"
        />
        <span className="small">items per stage</span>
        <label className="check small">
          <input type="checkbox" checked={noCache} onChange={(e) => setNoCache(e.target.checked)} /> fresh calls (ignore the cache)
        </label>
      </div>
      <div className="row-gap small">
        datasets:
        {datasets.data?.map((d) => (
          <label key={d.name} className="check">
            <input
              type="checkbox"
              checked={chosen.includes(d.name)}
              onChange={() => setChosen(chosen.includes(d.name) ? chosen.filter((x) => x !== d.name) : [...chosen, d.name])}
            />{' '}
            {d.name}
          </label>
        ))}
        <span className="muted">(none ticked: all)</span>
      </div>
      <div className="row-gap">
        <button type="button" className="button primary" disabled={startBlocked !== null} title={startBlocked ?? undefined} onClick={start}>
          Start
        </button>
        {startBlocked ? (
          <span className="small muted" data-testid="start-blocked">
            {startBlocked}
          </span>
        ) : null}
      </div>
      <ErrorNotice error={startRun.error} />
      {starting.allowed ? (
        <>
          <h3 className="small muted">API keys</h3>
          <ApiKeys />
        </>
      ) : null}
    </section>
  );
}
