import { useState } from 'react';
import { ErrorNotice } from '../../components/bits';
import { useOp, useOpMutation } from '../../query';
import { defaultConfig, parseRef, withoutSecrets } from '../evaluation/StartEvalForm';

/**
 * Starting an ask-first run: the endpoints (a pipeline config works as is), the model that reads
 * each question, the dataset, how many questions, and where the evidence comes from. The form
 * says what is missing as you type; the model becomes the config's generator.
 */

const MEMORY = 'awb.ask-first.last-run';

interface Remembered {
  model: string;
  config: string | null;
}

function recall(): Partial<Remembered> {
  try {
    return (JSON.parse(localStorage.getItem(MEMORY) ?? '{}') as Partial<Remembered>) ?? {};
  } catch {
    return {};
  }
}

/** What stops the run from starting, in the form's words; null when it can start. */
export function askFirstProblem(form: { config: unknown; configError: string | null; model: string; dataset: string; limit: string }): string | null {
  if (form.configError) return `The config is not valid JSON: ${form.configError}`;
  const endpoints = (form.config as { endpoints?: unknown } | null)?.endpoints;
  if (!endpoints || typeof endpoints !== 'object' || Array.isArray(endpoints)) return 'The config needs an "endpoints" object.';
  const { endpoint, model } = parseRef(form.model.trim());
  if (!endpoint || !model) return 'Name the model as endpoint/model.';
  if (!(endpoint in endpoints)) return `The config has no endpoint “${endpoint}” (it has ${Object.keys(endpoints).join(', ') || 'none'}).`;
  if (!form.dataset) return 'Choose a dataset.';
  if (form.limit && !(Number.isInteger(Number(form.limit)) && Number(form.limit) > 0)) return 'At most: a whole number above 0, or empty for every question.';
  return null;
}

export function StartAskFirstForm({ running }: { running: boolean }) {
  const defaults = useOp('pipeline:defaults', {});
  const datasets = useOp('dataset:list', {});
  const corpora = useOp('corpus:list', {});
  const start = useOpMutation('ask-first:start');
  const [last] = useState(recall);
  const [edited, setConfig] = useState<string | null>(last.config ?? null);
  const config = edited ?? defaultConfig(defaults.data);
  const [model, setModel] = useState(last.model ?? '');
  const [dataset, setDataset] = useState('');
  const [limit, setLimit] = useState('');
  const [corpus, setCorpus] = useState('');

  let parsed: unknown = null;
  let configError: string | null = null;
  try {
    parsed = JSON.parse(config);
  } catch (e) {
    configError = (e as Error).message;
  }
  const blocked = running ? 'A run is going: wait for it, or cancel it.' : askFirstProblem({ config: parsed, configError, model, dataset, limit });

  const submit = () => {
    const request = {
      dataset,
      config: { ...(parsed as object), generator: parseRef(model.trim()) },
      ...(limit ? { limit: Number(limit) } : {}),
      ...(corpus ? { corpus } : {}),
    };
    start.mutate(request as never, {
      onSuccess: () =>
        localStorage.setItem(
          MEMORY,
          JSON.stringify({
            model,
            config: edited === null ? null : withoutSecrets(edited),
          }),
        ),
    });
  };

  return (
    <section className="card" data-testid="ask-first-start">
      <h2>Start a run</h2>
      <div
        style={{
          display: 'grid',
          gridTemplateColumns: 'max-content 1fr',
          gap: '6px 10px',
          alignItems: 'center',
        }}
      >
        <label htmlFor="ask-model">Model</label>
        <input id="ask-model" className="input mono" value={model} onChange={(e) => setModel(e.target.value)} placeholder="endpoint/model" />
        <label htmlFor="ask-dataset">Dataset</label>
        <select id="ask-dataset" className="input" value={dataset} onChange={(e) => setDataset(e.target.value)}>
          <option value="">choose…</option>
          {datasets.data?.map((d) => (
            <option key={d.id} value={d.name}>
              {d.name}
            </option>
          ))}
        </select>
        <label htmlFor="ask-corpus">Evidence</label>
        <select id="ask-corpus" className="input" value={corpus} onChange={(e) => setCorpus(e.target.value)}>
          <option value="">each question’s own paragraphs</option>
          {corpora.data?.map((c) => (
            <option key={c.id} value={c.name}>
              search {c.name} (hybrid, top 5)
            </option>
          ))}
        </select>
        <label htmlFor="ask-limit">At most</label>
        <div className="row-gap">
          <input id="ask-limit" className="input narrow-input" type="number" min={1} value={limit} onChange={(e) => setLimit(e.target.value)} placeholder="all" />
          <span className="small">labelled questions</span>
        </div>
      </div>
      <label className="small muted" htmlFor="ask-config">
        Endpoints and prices (JSON; a pipeline config works as is)
      </label>
      <textarea id="ask-config" className="input mono" rows={7} value={config} onChange={(e) => setConfig(e.target.value)} spellCheck={false} />
      <div className="row-gap">
        <button type="button" className="button primary" disabled={blocked !== null || start.isPending} onClick={submit} title={blocked ?? undefined}>
          Start
        </button>
        {blocked ? (
          <span className="small muted" data-testid="ask-first-blocked">
            {blocked}
          </span>
        ) : null}
      </div>
      <ErrorNotice error={start.error} />
    </section>
  );
}
