import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { ErrorNotice } from '../../components/bits';
import { opKey, useOp, useOpMutation } from '../../query';
import { OpButton } from '../../access';

/** The price table the cost of every call is worked out from. */
export function PricesTab() {
  const prices = useOp('pipeline:prices', {});
  const client = useQueryClient();
  const setPrice = useOpMutation('pipeline:price-set', { onSuccess: (list) => client.setQueryData(opKey('pipeline:prices', {}), list) });
  const [model, setModel] = useState('');
  const [input, setInput] = useState('');
  const [output, setOutput] = useState('');
  const list = prices.data ?? [];
  const save = (m: string, i: number | null, o: number | null, onSaved?: () => void) =>
    setPrice.mutate({ model: m, input: i, output: o }, { onSuccess: onSaved });
  return (
    <section className="card narrow-card">
      <h2>Prices, US dollars per million tokens</h2>
      <p className="small muted">
        Used for the cost of every call; a model missing here has an unknown cost (and a run with a cost ceiling refuses it). A config file's own prices take precedence. Batch calls cost half unless a batch price is set (<code>awb pipeline price MODEL IN OUT --batch-input … --batch-output …</code>).
      </p>
      <table className="plain numbers" data-testid="prices">
        <thead>
          <tr>
            <th>Model</th>
            <th className="num">Input</th>
            <th className="num">Output</th>
            <th className="num" title="Calls sent through a Batch API; half the synchronous price when not set">Batch in / out</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {list.map((p) => (
            <tr key={p.model}>
              <td className="mono">{p.model}</td>
              <td className="num">{p.input}</td>
              <td className="num">{p.output}</td>
              <td className="num muted">{p.batchInput !== undefined ? `${p.batchInput} / ${p.batchOutput}` : 'half'}</td>
              <td>
                <button type="button" className="button small ghost" onClick={() => save(p.model, null, null)} aria-label={`Remove ${p.model}`}>
                  ✕
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className="row-gap">
        <input className="input mono" value={model} onChange={(e) => setModel(e.target.value)} placeholder="model, e.g. openai/gpt-4.1" aria-label="Model" />
        <input
          className="input narrow-input"
          type="number"
          min={0}
          step="any"
          value={input}
          onChange={(e) => setInput(e.target.value)}
          placeholder="input"
          aria-label="Input price"
        />
        <input
          className="input narrow-input"
          type="number"
          min={0}
          step="any"
          value={output}
          onChange={(e) => setOutput(e.target.value)}
          placeholder="output"
          aria-label="Output price"
        />
        <OpButton
          operation="pipeline:price-set"
          className="button small"
          disabled={!model.trim() || input === '' || output === ''}
          onClick={() =>
            save(model.trim(), Number(input), Number(output), () => {
              setModel('');
              setInput('');
              setOutput('');
            })
          }
        >
          Set price
        </OpButton>
      </div>
      <ErrorNotice error={setPrice.error} />
    </section>
  );
}
