import { useState } from 'react';
import type { EvalStartRequest } from '../../../shared/api';
import { ErrorNotice } from '../../components/bits';
import { useOp, useOpMutation } from '../../query';
import { ItemSource } from './ItemSource';

/** Starting an evaluation run: method, model endpoint, release split or dataset, corpus, retrieval mode, limit. */

/** The endpoints the server offers (its last pipeline run's, or the example's): over the network, endpoints are chosen by name among these. */
export function defaultConfig(defaults: { example: unknown; last: unknown } | undefined): string {
  const endpoints = ((defaults?.last ?? defaults?.example) as { endpoints?: unknown } | null)?.endpoints ?? {};
  return JSON.stringify({ endpoints, prices: {} }, null, 2);
}

/** The bundled offline demo (resources/eval.offline.json): endpoints, and the run it suggests. */
interface OfflineDemo {
  endpoints: unknown;
  prices?: unknown;
  evaluation: { method: string; model: string; judge: string; reader: string; dataset: string; corpus: string; retrieval: 'bm25' | 'dense' | 'hybrid'; limit: number };
}

/** What the form remembers between visits (this browser only): the last run's choices, never a key. */
interface Remembered {
  method: string;
  model: string;
  config: string | null;
  judge: string;
  reader: string;
  corpus: string;
  mode: 'bm25' | 'dense' | 'hybrid';
  k: string;
}

const MEMORY = 'awb.evaluation.last-run';

function recall(): Partial<Remembered> {
  try {
    return (JSON.parse(localStorage.getItem(MEMORY) ?? '{}') as Partial<Remembered>) ?? {};
  } catch {
    return {};
  }
}

/** The config without anything that looks like a secret (keys are named by environment variable, but a pasted config may hold one). */
export function withoutSecrets(config: string): string | null {
  try {
    return JSON.stringify(JSON.parse(config, (key, value: unknown) => (/^(api_?key|apikey|token|password|secret)$/i.test(key) ? undefined : value)), null, 2);
  } catch {
    return null;
  }
}

function remember(choices: Remembered): void {
  localStorage.setItem(MEMORY, JSON.stringify({ ...choices, config: choices.config === null ? null : withoutSecrets(choices.config) }));
}

export function parseRef(text: string): { endpoint: string; model: string } {
  const slash = text.indexOf('/');
  return slash === -1 ? { endpoint: '', model: text } : { endpoint: text.slice(0, slash), model: text.slice(slash + 1) };
}

export function StartEvalForm({ running }: { running: boolean }) {
  const methods = useOp('evaluation:methods', {});
  const corpora = useOp('corpus:list', {});
  const start = useOpMutation('evaluation:start');
  const defaults = useOp('pipeline:defaults', {});
  const [last] = useState(recall);
  const [method, setMethod] = useState(last.method ?? 'naive-rag');
  const [edited, setConfig] = useState<string | null>(last.config ?? null);
  const config = edited ?? defaultConfig(defaults.data);
  const [model, setModel] = useState(last.model ?? 'local/llama3.1');
  const [source, setSource] = useState('');
  const [split, setSplit] = useState('');
  const [corpus, setCorpus] = useState(last.corpus ?? '');
  const [mode, setMode] = useState<'bm25' | 'dense' | 'hybrid'>(last.mode ?? 'bm25');
  const [k, setK] = useState(last.k ?? '10');
  const [limit, setLimit] = useState('');
  const [judge, setJudge] = useState(last.judge ?? '');
  const [reader, setReader] = useState(last.reader ?? '');

  let parsed: unknown = null;
  let configProblem: string | null = null;
  try {
    parsed = JSON.parse(config);
  } catch (e) {
    configProblem = `The config is not valid JSON: ${(e as Error).message}`;
  }
  const info = methods.data?.find((m) => m.method === method);
  const demo = defaults.data?.offlineEvaluation as OfflineDemo | undefined;
  const loadDemo = () => {
    if (!demo) return;
    const e = demo.evaluation;
    setConfig(JSON.stringify({ endpoints: demo.endpoints, prices: demo.prices ?? {} }, null, 2));
    setMethod(e.method);
    setModel(e.model);
    setJudge(e.judge);
    setReader(e.reader);
    setSource(`dataset:${e.dataset}`);
    setSplit('');
    setCorpus(e.corpus);
    setMode(e.retrieval);
    setLimit(String(e.limit));
  };
  const blocked = running ? 'A run is going: wait for it, or cancel it.' : (configProblem ?? (!source ? 'Choose a release or a dataset.' : null));

  const submit = () => {
    const [kind, name] = source.split(':', 2) as ['release' | 'dataset', string];
    const request: Partial<EvalStartRequest> & Record<string, unknown> = {
      method: method as EvalStartRequest['method'],
      model: parseRef(model),
      config: parsed,
      ...(kind === 'release' ? { release: name, ...(split ? { split } : {}) } : { dataset: name }),
      ...(corpus ? { corpus } : {}),
      retrieval: mode,
      k: Number(k),
      ...(limit ? { limit: Number(limit) } : {}),
      ...(judge ? { judge: parseRef(judge) } : {}),
      ...(reader ? { reader: reader.startsWith('http') ? { kind: 'http', url: reader } : { kind: 'llm', model: parseRef(reader) } } : {}),
    };
    start.mutate(request as never, { onSuccess: () => remember({ method, model, config: edited, judge, reader, corpus, mode, k }) });
  };

  return (
    <section className="card" data-testid="eval-start">
      <h2>Start a run</h2>
      <div style={{ display: 'grid', gridTemplateColumns: 'max-content 1fr', gap: '6px 10px', alignItems: 'center' }}>
        <label htmlFor="eval-method">Method</label>
        <select id="eval-method" className="input" value={method} onChange={(e) => setMethod(e.target.value)}>
          {methods.data?.map((m) => (
            <option key={m.method} value={m.method}>
              {m.label} ({m.source})
            </option>
          ))}
        </select>
        <label htmlFor="eval-model">Model</label>
        <input id="eval-model" className="input mono" value={model} onChange={(e) => setModel(e.target.value)} placeholder="endpoint/model" />
        <label htmlFor="eval-source">Items</label>
        <ItemSource id="eval-source" value={source} onChange={setSource} />
        {source.startsWith('release:') ? (
          <>
            <label htmlFor="eval-split">Split</label>
            <input id="eval-split" className="input" value={split} onChange={(e) => setSplit(e.target.value)} placeholder="all splits" />
          </>
        ) : null}
        <label htmlFor="eval-corpus">Corpus</label>
        <select id="eval-corpus" className="input" value={corpus} onChange={(e) => setCorpus(e.target.value)}>
          <option value="">{info?.retrieves ? 'choose…' : 'none needed'}</option>
          {corpora.data?.map((c) => (
            <option key={c.id} value={c.name}>
              {c.name} ({c.passages} passages
              {c.models.length ? '' : ', no vectors'})
            </option>
          ))}
        </select>
        <label htmlFor="eval-mode">Retrieval</label>
        <div className="row-gap">
          <select id="eval-mode" className="input" value={mode} onChange={(e) => setMode(e.target.value as typeof mode)}>
            <option value="bm25">BM25</option>
            <option value="dense">dense</option>
            <option value="hybrid">hybrid (RRF)</option>
          </select>
          <span className="small">k</span>
          <input className="input narrow-input" type="number" min={1} value={k} onChange={(e) => setK(e.target.value)} aria-label="passages per search" />
          <span className="small">at most</span>
          <input className="input narrow-input" type="number" min={1} value={limit} onChange={(e) => setLimit(e.target.value)} placeholder="all" aria-label="items" />
          <span className="small">items</span>
        </div>
        <label htmlFor="eval-judge">Judge</label>
        <input id="eval-judge" className="input mono" value={judge} onChange={(e) => setJudge(e.target.value)} placeholder="endpoint/model (optional)" />
        <label htmlFor="eval-reader">Reader</label>
        <input id="eval-reader" className="input mono" value={reader} onChange={(e) => setReader(e.target.value)} placeholder="endpoint/model or http://… (for Disambig-F1)" />
      </div>
      {info ? <p className="small muted">{info.description}</p> : null}
      {info ? (
        <details className="small" data-testid="method-paper">
          <summary>The paper’s steps, and where this implementation departs ({info.source})</summary>
          <ol>
            {info.paperSteps.map((step) => (
              <li key={step}>{step}</li>
            ))}
          </ol>
          <ul className="muted">
            {info.departures.map((d) => (
              <li key={d}>{d}</li>
            ))}
          </ul>
        </details>
      ) : null}
      <label className="small muted" htmlFor="eval-config">
        Endpoints and prices (JSON; a pipeline config works as is)
      </label>
      <textarea id="eval-config" className="input mono" rows={7} value={config} onChange={(e) => setConfig(e.target.value)} spellCheck={false} />
      {configProblem ? <span className="small flag-bad">{configProblem}</span> : null}
      <div className="row-gap">
        <div className="spacer" />
        <button type="button" className="button small ghost" title="Runs against the bundled fake model: start it with `npx awb pipeline fake-endpoint`" disabled={!demo} onClick={loadDemo}>
          Load the offline demo
        </button>
      </div>
      <div className="row-gap">
        <button type="button" className="button primary" disabled={blocked !== null || start.isPending} onClick={submit} title={blocked ?? undefined}>
          Start
        </button>
        {blocked ? <span className="small muted">{blocked}</span> : null}
      </div>
      <ErrorNotice error={start.error} />
    </section>
  );
}
