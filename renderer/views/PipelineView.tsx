import { Fragment, useEffect, useState } from 'react';
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { Link, useLocation, useSearch } from 'wouter';
import type { Job } from '../../shared/api';
import { PIPELINE_STAGES, type PipelineStage } from '../../shared/domain';
import { formatUsd, type Funnel, type PromptTemplate, type RunSummary } from '../../shared/pipeline';
import { call } from '../api';
import { ErrorNotice, formatEta, ProgressBar } from '../components/bits';
import { useApi, useJobs } from '../hooks';

/**
 * The construction pipeline: start a run (config, stages, limit, datasets), watch it with ETA
 * and cost, cancel it; the funnel per ambiguity type; the items that failed and the full trace
 * of any item; the prompt templates (every edit a new version); and the price table.
 */

const TABS = ['run', 'funnel', 'failures', 'prompts', 'prices'] as const;
type Tab = (typeof TABS)[number];


const failedItems = (run: RunSummary) => run.stages.reduce((n, s) => n + s.failed, 0);

/** A run's status, with its failed items: "done" in green only when nothing failed. */
function runStatus(run: RunSummary): { text: string; className: string } {
  const failed = failedItems(run);
  if (run.status === 'done') return failed ? { text: `done, ${failed} failed`, className: 'flag-warn' } : { text: 'done', className: 'flag-ok' };
  return { text: run.status, className: run.status === 'running' ? '' : 'flag-bad' };
}

/**
 * What a running pipeline job reports beside its counts. The service writes its detail as
 * "<stage> · <calls> calls, <cached> cached · <cost>", the cost as formatUsd writes it
 * (electron/services/pipeline/handlers.ts).
 */
interface LiveRun {
  stage: PipelineStage;
  /** The stages of this run, in order. */
  stages: readonly PipelineStage[];
  calls: number;
  cached: number;
  /** As formatUsd writes it. */
  cost: string;
}

const DETAIL = /^(\w+) · (\d+) calls, (\d+) cached · (\S+)$/;

function liveRun(job: Job): LiveRun | null {
  const match = job.detail ? DETAIL.exec(job.detail) : null;
  const stage = PIPELINE_STAGES.find((s) => s === match?.[1]);
  if (!match || !stage) return null;
  // The job's title lists the chosen stages ("Pipeline: clarify, decompose"), or none for all of them.
  const chosen = job.title.startsWith('Pipeline: ') ? PIPELINE_STAGES.filter((s) => job.title.slice('Pipeline: '.length).split(', ').includes(s)) : PIPELINE_STAGES;
  return { stage, stages: chosen.includes(stage) ? chosen : PIPELINE_STAGES, calls: Number(match[2]), cached: Number(match[3]), cost: match[4]! };
}

/**
 * The running pipeline: the current stage and its items, one fraction for both the bar and the
 * percentage, the stage's ETA (its pace so far, as the CLI shows it), calls and cost so far.
 */
function PipelineJobLine({ job }: { job: Job }) {
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
      <span data-testid="job-percent">{fraction === null ? 'starting…' : `${job.done.toLocaleString('en-US')} of ${job.total!.toLocaleString('en-US')} items · ${Math.floor(fraction * 100)}%`}</span>
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
      <button type="button" className="button small ghost" title="Cancel" aria-label={`Cancel ${job.title}`} onClick={() => void call('job:cancel', { id: job.id })}>
        ✕
      </button>
    </div>
  );
}

function RunsTable({ runs, going }: { runs: RunSummary[]; going: boolean }) {
  const [open, setOpen] = useState<number | null>(null);
  if (!runs.length) return <div className="muted small">{going ? 'The first run is going; it is listed here when it ends.' : 'No run yet.'}</div>;
  return (
    <table className="plain" data-testid="runs">
      <thead>
        <tr>
          <th>Run</th>
          <th>Status</th>
          <th>Started</th>
          <th className="num">Calls</th>
          <th className="num">Cached</th>
          <th className="num">Tokens in / out</th>
          <th className="num">Cost</th>
        </tr>
      </thead>
      <tbody>
        {runs.map((r) => (
          <Fragment key={r.id}>
            <tr className="clickable" onClick={() => setOpen(open === r.id ? null : r.id)}>
              <td>#{r.id}</td>
              <td className={runStatus(r).className} title={r.error ?? (failedItems(r) ? 'Failed items are retried by the next run; see the Failures tab' : undefined)}>
                {runStatus(r).text}
              </td>
              <td className="small muted">{r.startedAt.slice(0, 19).replace('T', ' ')}</td>
              <td className="num">{r.calls.toLocaleString('en-US')}</td>
              <td className="num">{r.cachedCalls.toLocaleString('en-US')}</td>
              <td className="num">
                {r.promptTokens.toLocaleString('en-US')} / {r.completionTokens.toLocaleString('en-US')}
              </td>
              <td className="num">{formatUsd(r.costUsd)}</td>
            </tr>
            {open === r.id ? (
              <tr>
                <td colSpan={7}>
                  <table className="plain compact numbers">
                    <thead>
                      <tr>
                        <th>Stage</th>
                        <th className="num">Items</th>
                        <th className="num">Done</th>
                        <th className="num">Removed</th>
                        <th className="num">Failed</th>
                        <th className="num">Calls</th>
                        <th className="num">Cached</th>
                        <th className="num">Cost</th>
                      </tr>
                    </thead>
                    <tbody>
                      {r.stages.map((s) => (
                        <tr key={s.stage}>
                          <td>{s.stage}</td>
                          <td className="num">{s.processed}</td>
                          <td className="num">{s.done}</td>
                          <td className="num">{s.removed}</td>
                          <td className="num">{s.failed}</td>
                          <td className="num">{s.calls}</td>
                          <td className="num">{s.cachedCalls}</td>
                          <td className="num">{formatUsd(s.costUsd)}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                  <details>
                    <summary className="small muted">The run's config</summary>
                    <pre className="code">{JSON.stringify(r.config, null, 2)}</pre>
                  </details>
                </td>
              </tr>
            ) : null}
          </Fragment>
        ))}
      </tbody>
    </table>
  );
}

function ApiKeys() {
  const keys = window.awb?.apiKeys;
  const [names, setNames] = useState<string[]>([]);
  const [name, setName] = useState('OPENROUTER_API_KEY');
  const [value, setValue] = useState('');
  const [error, setError] = useState<Error>();
  useEffect(() => {
    keys?.names().then(setNames, setError);
  }, [keys]);
  if (!keys) {
    return (
      <p className="small muted">
        API keys come from the environment variables each endpoint names (<span className="mono">apiKeyEnv</span>); set them before{' '}
        <span className="mono">npm start</span>. Local servers (Ollama, vLLM, llama.cpp) need none.
      </p>
    );
  }
  return (
    <div className="stack">
      <p className="small muted">Kept encrypted by the system keychain, never in the database. Stored: {names.length ? names.join(', ') : 'none'}.</p>
      <div className="row-gap">
        <input className="input mono" value={name} onChange={(e) => setName(e.target.value)} aria-label="Variable name" />
        <input className="input" type="password" value={value} onChange={(e) => setValue(e.target.value)} placeholder="key" aria-label="Key" />
        <button type="button" className="button small" disabled={!value} onClick={() => keys.set(name, value).then((n) => { setNames(n); setValue(''); }, setError)}>
          Save key
        </button>
        <button type="button" className="button small ghost" onClick={() => keys.set(name, null).then(setNames, setError)}>
          Forget
        </button>
      </div>
      <ErrorNotice error={error} />
    </div>
  );
}

function RunTab() {
  const defaults = useApi('pipeline:defaults', {});
  const status = useApi('pipeline:status', {});
  const datasets = useApi('dataset:list', {});
  const jobs = useJobs().filter((j) => j.kind === 'pipeline');
  const [text, setText] = useState<string | null>(null);
  const [stages, setStages] = useState<PipelineStage[]>([...PIPELINE_STAGES]);
  const [limit, setLimit] = useState('');
  const [chosen, setChosen] = useState<string[]>([]);
  const [noCache, setNoCache] = useState(false);
  const [check, setCheck] = useState<{ ok: boolean; message: string } | null>(null);
  const [error, setError] = useState<Error>();
  const configText = text ?? (defaults.data ? JSON.stringify(defaults.data.last ?? defaults.data.example, null, 2) : '');
  const running = jobs.filter((j) => j.state === 'running');
  const latest: Job | undefined = jobs.at(-1);
  const live = running[0] ? liveRun(running[0]) : null;
  const startBlocked =
    running.length > 0
      ? 'A run is going: wait for it, or cancel it.'
      : stages.length === 0
        ? 'Tick at least one stage.'
        : !check
          ? 'Checking the config…'
          : !check.ok
            ? 'Fix the config first: see the note under the editor.'
            : null;

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

  const start = async () => {
    setError(undefined);
    try {
      await call('pipeline:start', {
        config: JSON.parse(configText) as unknown,
        stages: stages.length === PIPELINE_STAGES.length ? [] : stages,
        ...(limit ? { limit: Number(limit) } : {}),
        datasets: chosen,
        noCache,
      });
    } catch (e) {
      setError(e as Error);
    }
  };

  return (
    <div className="grid-2">
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
          <button type="button" className="button small ghost" onClick={() => defaults.data && setText(JSON.stringify(defaults.data.example, null, 2))}>
            Load the example
          </button>
        </div>
        <div className="stage-chips" role="group" aria-label="Stages">
          {PIPELINE_STAGES.map((s) => (
            <label key={s} className="check">
              <input type="checkbox" checked={stages.includes(s)} onChange={() => setStages(stages.includes(s) ? stages.filter((x) => x !== s) : PIPELINE_STAGES.filter((x) => x === s || stages.includes(x)))} /> {s}
            </label>
          ))}
        </div>
        <div className="row-gap">
          <label htmlFor="pipeline-limit" className="small">
            at most
          </label>
          <input id="pipeline-limit" className="input narrow-input" type="number" min={1} value={limit} onChange={(e) => setLimit(e.target.value)} placeholder="all" />
          <span className="small">items per stage</span>
          <label className="check small">
            <input type="checkbox" checked={noCache} onChange={(e) => setNoCache(e.target.checked)} /> fresh calls (ignore the cache)
          </label>
        </div>
        <div className="row-gap small">
          datasets:
          {datasets.data?.map((d) => (
            <label key={d.name} className="check">
              <input type="checkbox" checked={chosen.includes(d.name)} onChange={() => setChosen(chosen.includes(d.name) ? chosen.filter((x) => x !== d.name) : [...chosen, d.name])} /> {d.name}
            </label>
          ))}
          <span className="muted">(none ticked: all)</span>
        </div>
        <div className="row-gap">
          <button type="button" className="button primary" disabled={startBlocked !== null} title={startBlocked ?? undefined} onClick={() => void start()}>
            Start
          </button>
          {startBlocked ? (
            <span className="small muted" data-testid="start-blocked">
              {startBlocked}
            </span>
          ) : null}
        </div>
        <ErrorNotice error={error} />
        <h3 className="small muted">API keys</h3>
        <ApiKeys />
      </section>
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
    </div>
  );
}

/** A stage's place in the running run: finished, in progress (items done of those waiting for it), waiting, or not in it. */
function stageInRun(stage: string, live: LiveRun | null, job: Job): string {
  if (!live) return '';
  const at = live.stages.indexOf(live.stage);
  const index = live.stages.indexOf(stage as PipelineStage);
  if (index === -1) return 'not in this run';
  if (index < at) return 'finished';
  if (index > at) return 'waiting';
  return job.total ? `in progress: ${job.done.toLocaleString('en-US')} of ${job.total.toLocaleString('en-US')}` : 'starting';
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
  const run = job.result as RunSummary;
  const failed = failedItems(run);
  return (
    <div className={`notice ${failed ? 'warn' : 'ok'}`} data-testid="pipeline-result">
      Run #{run.id} {run.status}
      {failed ? (
        <>
          , <Link href="/pipeline/failures">{failed} failed</Link>
        </>
      ) : null}
      : {run.calls.toLocaleString('en-US')} calls, {run.cachedCalls.toLocaleString('en-US')} from the cache, {formatUsd(run.costUsd)}.
    </div>
  );
}

const FUNNEL_COLOURS = ['var(--type-semantic)', 'var(--type-syntactic)', 'var(--type-constraint)', 'var(--type-unspecified)'];

function FunnelTab() {
  const funnel = useApi('pipeline:funnel', {});
  const f: Funnel | undefined = funnel.data;
  return (
    <div className="stack">
      <ErrorNotice error={funnel.error} />
      {f ? (
        <>
          <section className="card">
            <h2>Instances surviving each step, per ambiguity type</h2>
            <table className="plain numbers" data-testid="funnel">
              <thead>
                <tr>
                  <th>Step</th>
                  {f.types.map((t) => (
                    <th key={t} className="num">
                      {t}
                    </th>
                  ))}
                  <th className="num">total</th>
                </tr>
              </thead>
              <tbody>
                {f.rows.map((r) => (
                  <tr key={r.step}>
                    <td>{r.step}</td>
                    {f.types.map((t) => (
                      <td key={t} className="num">
                        {(r.counts[t] ?? 0).toLocaleString('en-US')}
                      </td>
                    ))}
                    <td className="num">{r.total.toLocaleString('en-US')}</td>
                  </tr>
                ))}
                <tr>
                  <td className="muted">average hops (kept)</td>
                  {f.types.map((t) => (
                    <td key={t} className="num muted">
                      {f.averageHops[t] ?? '–'}
                    </td>
                  ))}
                  <td className="num muted">{f.averageHops.all ?? '–'}</td>
                </tr>
                <tr>
                  <td className="muted">question length in words (kept)</td>
                  {f.types.map((t) => (
                    <td key={t} className="num muted">
                      {f.averageQuestionWords[t] ?? '–'}
                    </td>
                  ))}
                  <td className="num muted">{f.averageQuestionWords.all ?? '–'}</td>
                </tr>
              </tbody>
            </table>
          </section>
          <section className="card">
            <ResponsiveContainer width="100%" height={280}>
              <BarChart data={f.rows.slice(1).map((r) => ({ step: r.step, ...r.counts }))} margin={{ top: 8, right: 8, bottom: 0, left: 8 }}>
                <CartesianGrid strokeDasharray="3 3" stroke="var(--border)" vertical={false} />
                <XAxis dataKey="step" tick={{ fontSize: 11, fill: 'var(--text-2)' }} />
                {/* Counts of instances: whole numbers only. */}
                <YAxis
                  allowDecimals={false}
                  tick={{ fontSize: 11, fill: 'var(--text-2)' }}
                  label={{ value: 'instances', angle: -90, position: 'insideLeft', style: { textAnchor: 'middle', fontSize: 11, fill: 'var(--text-2)' } }}
                />
                <Tooltip contentStyle={{ background: 'var(--surface)', border: '1px solid var(--border)', fontSize: 12 }} />
                <Legend wrapperStyle={{ fontSize: 11 }} />
                {f.types.map((t, i) => (
                  <Bar key={t} dataKey={t} fill={FUNNEL_COLOURS[i % FUNNEL_COLOURS.length]} isAnimationActive={false} />
                ))}
              </BarChart>
            </ResponsiveContainer>
          </section>
        </>
      ) : null}
    </div>
  );
}

/** The question an item is about: a base question (bq:ID), or an instance's base question (inst:ID). */
function useItemQuestion(item: string, known: string | undefined): string | undefined {
  const [kind, id] = item.split(':');
  const ask = known === undefined && Number(id) > 0;
  const question = useApi('base-question:get', ask && kind === 'bq' ? { id: Number(id) } : null);
  const instance = useApi('instance:get', ask && kind === 'inst' ? { id: Number(id) } : null);
  return known || question.data?.question || instance.data?.baseQuestion.question;
}

function Trace({ item, question: known }: { item: string; question?: string }) {
  const trace = useApi('pipeline:trace', { item });
  const question = useItemQuestion(item, known);
  return (
    <section className="card" data-testid="trace">
      <h2>
        {question ?? 'Trace'} <span className="mono small muted">{item}</span>
      </h2>
      <div className="small muted">Every stage this item went through and every model call made for it.</div>
      <ErrorNotice error={trace.error} />
      {trace.data?.stages.map((s) => (
        <div key={s.stage} className="small">
          <strong>{s.stage}</strong> <span className={s.status === 'done' ? 'flag-ok' : 'flag-bad'}>{s.status}</span> {s.reason ?? ''}
          {s.rawOutput ? <pre className="code">{s.rawOutput}</pre> : null}
        </div>
      ))}
      {trace.data?.calls.map((c) => (
        <details key={c.id} className="call">
          <summary>
            <span className="mono">#{c.id}</span> {c.stage} · {c.model} · <span className={c.status === 'ok' ? 'flag-ok' : 'flag-bad'}>{c.status}</span>
            {c.latencyMs !== null ? ` · ${Math.round(c.latencyMs)} ms` : ''}
            {c.promptTokens !== null ? ` · ${c.promptTokens.toLocaleString('en-US')} in + ${(c.completionTokens ?? 0).toLocaleString('en-US')} out tokens` : ''}
            {c.error ? ` · ${c.error}` : ''}
          </summary>
          {c.messages.map((m, i) => (
            <div key={i}>
              <div className="small muted">{m.role}</div>
              <pre className="code">{m.content}</pre>
            </div>
          ))}
          <div className="small muted">raw answer</div>
          <pre className="code">{c.response ?? '(none)'}</pre>
        </details>
      ))}
      {trace.data && trace.data.calls.length === 0 && trace.data.stages.length === 0 ? <div className="muted small">Nothing recorded for this item.</div> : null}
    </section>
  );
}

function FailuresTab() {
  const search = useSearch();
  const [, navigate] = useLocation();
  const params = new URLSearchParams(search);
  const stage = (params.get('stage') ?? undefined) as PipelineStage | undefined;
  const item = params.get('item');
  const failures = useApi('pipeline:failures', stage ? { stage } : {});
  const [typed, setTyped] = useState(item ?? '');
  return (
    <div className="stack">
      <div className="row-gap">
        <select className="input" value={stage ?? ''} onChange={(e) => navigate(`/pipeline/failures${e.target.value ? `?stage=${e.target.value}` : ''}`)} aria-label="Stage">
          <option value="">every stage</option>
          {PIPELINE_STAGES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
        <div className="spacer" />
        <input
          className="input mono item-input"
          value={typed}
          onChange={(e) => setTyped(e.target.value.trim())}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && /^(bq|inst):\d+$/.test(typed)) navigate(`/pipeline/failures?item=${typed}`);
          }}
          placeholder="inst:12 or bq:7"
          aria-label="Item"
        />
        <button type="button" className="button small" disabled={!/^(bq|inst):\d+$/.test(typed)} onClick={() => navigate(`/pipeline/failures?item=${typed}`)}>
          Trace
        </button>
      </div>
      {item ? <Trace item={item} question={failures.data?.find((f) => f.item === item)?.question || undefined} /> : null}
      <table className="plain" data-testid="failures">
        <thead>
          <tr>
            <th>Item</th>
            <th>Stage</th>
            <th>Question</th>
            <th>Why</th>
          </tr>
        </thead>
        <tbody>
          {failures.data?.map((f) => (
            <tr key={`${f.stage}:${f.item}`} className="clickable" onClick={() => navigate(`/pipeline/failures?${stage ? `stage=${stage}&` : ''}item=${f.item}`)}>
              <td className="mono">{f.item}</td>
              <td>{f.stage}</td>
              <td>{f.question}</td>
              <td className="small">{f.reason}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {failures.data?.length === 0 ? <div className="empty">No failed item{stage ? ` in ${stage}` : ''}.</div> : null}
    </div>
  );
}

function PromptsTab() {
  const prompts = useApi('pipeline:prompts', {});
  const [selected, setSelected] = useState<string | null>(null);
  const current = prompts.data?.find((p) => p.stage === selected) ?? prompts.data?.[0];
  return (
    <div className="split">
      <nav className="side-list" aria-label="Prompts">
        {prompts.data?.map((p) => (
          <a key={p.stage} href="#" className={p.stage === current?.stage ? 'active' : ''} onClick={(e) => { e.preventDefault(); setSelected(p.stage); }}>
            {p.stage} <span className="small muted">v{p.version}</span>
          </a>
        ))}
      </nav>
      <div className="split-main">{current ? <PromptEditor key={`${current.stage}@${current.version}`} prompt={current} onSaved={() => prompts.reload()} /> : null}</div>
    </div>
  );
}

function PromptEditor({ prompt, onSaved }: { prompt: PromptTemplate; onSaved: () => void }) {
  const [system, setSystem] = useState(prompt.system);
  const [user, setUser] = useState(prompt.user);
  const [error, setError] = useState<Error>();
  const history = useApi('pipeline:prompt-history', { stage: prompt.stage });
  const changed = system !== prompt.system || user !== prompt.user;
  return (
    <div className="stack" data-testid="prompt-editor">
      <div className="small muted">
        {prompt.stage} v{prompt.version} {prompt.builtIn ? '(built in)' : ''}; saving makes v{prompt.version + 1}. Calls record the version they used, and a changed prompt
        is a new cache key.
      </div>
      <label className="small muted" htmlFor="prompt-system">
        System
      </label>
      <textarea id="prompt-system" className="input" rows={6} value={system} onChange={(e) => setSystem(e.target.value)} />
      <label className="small muted" htmlFor="prompt-user">
        User
      </label>
      <textarea id="prompt-user" className="input mono" rows={12} value={user} onChange={(e) => setUser(e.target.value)} />
      <div className="row-gap">
        <button type="button" className="button primary" disabled={!changed} onClick={() => call('pipeline:prompt-save', { stage: prompt.stage, system, user }).then(onSaved, setError)}>
          Save as v{prompt.version + 1}
        </button>
        <button type="button" className="button ghost" disabled={!changed} onClick={() => { setSystem(prompt.system); setUser(prompt.user); }}>
          Revert
        </button>
      </div>
      <ErrorNotice error={error} />
      <div className="small muted">History: {history.data?.map((h) => `v${h.version} (${h.createdAt.slice(0, 10)})`).join(', ')}</div>
    </div>
  );
}

function PricesTab() {
  const prices = useApi('pipeline:prices', {});
  const [rows, setRows] = useState<{ model: string; input: number; output: number }[] | null>(null);
  const [model, setModel] = useState('');
  const [input, setInput] = useState('');
  const [output, setOutput] = useState('');
  const [error, setError] = useState<Error>();
  const list = rows ?? prices.data ?? [];
  const save = (m: string, i: number | null, o: number | null) => call('pipeline:price-set', { model: m, input: i, output: o }).then(setRows, setError);
  return (
    <section className="card narrow-card">
      <h2>Prices, US dollars per million tokens</h2>
      <p className="small muted">Used for the cost of every call; a model missing here costs nothing in the totals. A config file's own prices take precedence.</p>
      <table className="plain numbers" data-testid="prices">
        <thead>
          <tr>
            <th>Model</th>
            <th className="num">Input</th>
            <th className="num">Output</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {list.map((p) => (
            <tr key={p.model}>
              <td className="mono">{p.model}</td>
              <td className="num">{p.input}</td>
              <td className="num">{p.output}</td>
              <td>
                <button type="button" className="button small ghost" onClick={() => void save(p.model, null, null)} aria-label={`Remove ${p.model}`}>
                  ✕
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className="row-gap">
        <input className="input mono" value={model} onChange={(e) => setModel(e.target.value)} placeholder="model, e.g. openai/gpt-4.1" aria-label="Model" />
        <input className="input narrow-input" type="number" min={0} step="any" value={input} onChange={(e) => setInput(e.target.value)} placeholder="input" aria-label="Input price" />
        <input className="input narrow-input" type="number" min={0} step="any" value={output} onChange={(e) => setOutput(e.target.value)} placeholder="output" aria-label="Output price" />
        <button type="button" className="button small" disabled={!model.trim() || input === '' || output === ''} onClick={() => void save(model.trim(), Number(input), Number(output)).then(() => { setModel(''); setInput(''); setOutput(''); })}>
          Set price
        </button>
      </div>
      <ErrorNotice error={error} />
    </section>
  );
}

export function PipelineView({ tab }: { tab: string }) {
  const [, navigate] = useLocation();
  const current: Tab = (TABS as readonly string[]).includes(tab) ? (tab as Tab) : 'run';
  return (
    <div className="page">
      <div className="page-inner">
        <header className="page-head">
          <h1>Pipeline</h1>
          <span className="small muted">detect → clarify → decompose → retrieve → answer → merge → shorten → collide → filter</span>
        </header>
        <div className="tabs" role="tablist">
          {TABS.map((t) => (
            <button key={t} type="button" role="tab" aria-selected={t === current} className={t === current ? 'active' : ''} onClick={() => navigate(`/pipeline${t === 'run' ? '' : `/${t}`}`)}>
              {t[0]!.toUpperCase() + t.slice(1)}
            </button>
          ))}
        </div>
        {current === 'run' ? <RunTab /> : null}
        {current === 'funnel' ? <FunnelTab /> : null}
        {current === 'failures' ? <FailuresTab /> : null}
        {current === 'prompts' ? <PromptsTab /> : null}
        {current === 'prices' ? <PricesTab /> : null}
      </div>
    </div>
  );
}
