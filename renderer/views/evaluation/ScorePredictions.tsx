import { useState } from 'react';
import type { ScoreReport } from '../../../shared/api';
import { formatMetricValue, metricInfo, metricLabel } from '../../../shared/eval/labels';
import { ErrorNotice } from '../../components/bits';
import { FileField } from '../../components/FileField';
import { useOp, useOpMutation } from '../../query';
import { ItemSource } from './ItemSource';

/**
 * Scoring predictions made elsewhere (a JSON Lines file, one `{source_id, answer, short_answers?,
 * citations?}` per line) against a release split or a dataset, with every metric that needs no LLM,
 * overall and per ambiguity type with bootstrap intervals. In browser mode the file is uploaded.
 */

function ScoreTable({ report }: { report: ScoreReport }) {
  const metrics = Object.keys(report.metrics).filter((m) => report.metrics[m] !== null);
  const types = Object.keys(report.byType);
  return (
    <div style={{ overflowX: 'auto' }}>
      <div className="small muted" data-testid="score-summary">
        {report.n} items · {report.predictions} predictions · {report.missing} without a prediction{report.unknown.length ? ` · ${report.unknown.length} ids not in the items` : ''}
      </div>
      <table className="plain compact numbers" data-testid="score-table">
        <thead>
          <tr>
            <th>Metric</th>
            <th className="num">all [95% CI]</th>
            {types.map((t) => (
              <th key={t} className="num">
                {t}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {metrics.map((m) => {
            const ci = report.details[m]?.ci;
            return (
              <tr key={m}>
                <td title={metricInfo(m)?.description}>{metricLabel(m)}</td>
                <td className="num">
                  {formatMetricValue(m, report.metrics[m])}
                  {ci ? <span className="muted"> [{formatMetricValue(m, ci.low)}, {formatMetricValue(m, ci.high)}]</span> : null}
                </td>
                {types.map((t) => (
                  <td key={t} className="num">
                    {formatMetricValue(m, report.byType[t]!.metrics[m])}
                  </td>
                ))}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

export function ScorePredictions() {
  const releases = useOp('release:list', {});
  const score = useOpMutation('evaluation:score');
  const [source, setSource] = useState('');
  const [split, setSplit] = useState('');
  const [file, setFile] = useState('');
  const [kind, name] = source.split(':', 2) as ['release' | 'dataset' | '', string];
  const submit = () => {
    // A release is chosen as NAME@VERSION; scoring takes its id.
    const release = releases.data?.find((r) => `${r.name}@${r.version}` === name);
    score.mutate({ ...(kind === 'release' ? { release: release?.id ?? 0, ...(split ? { split } : {}) } : { dataset: name }), predictions: file } as never);
  };
  return (
    <section className="card" data-testid="score-predictions">
      <h2>Score predictions</h2>
      <p className="small muted">
        A JSON Lines file of answers made elsewhere, one <span className="mono">{'{"source_id", "answer", "short_answers"?, "citations"?}'}</span> per line, scored with every metric that needs no LLM.
      </p>
      <div style={{ display: 'grid', gridTemplateColumns: 'max-content 1fr', gap: '6px 10px', alignItems: 'center' }}>
        <label htmlFor="score-source">Against</label>
        <ItemSource id="score-source" value={source} onChange={setSource} />
        {kind === 'release' ? (
          <>
            <label htmlFor="score-split">Split</label>
            <input id="score-split" className="input" value={split} onChange={(e) => setSplit(e.target.value)} placeholder="all splits" />
          </>
        ) : null}
        <label htmlFor="score-file">Predictions</label>
        <FileField id="score-file" value={file} onChange={setFile} save={false} accept=".jsonl,.ndjson,.json" />
      </div>
      <div className="row-gap">
        <button type="button" className="button primary" disabled={!source || !file || score.isPending} onClick={submit}>
          {score.isPending ? 'Scoring…' : 'Score'}
        </button>
      </div>
      <ErrorNotice error={score.error} />
      {score.data ? <ScoreTable report={score.data} /> : null}
    </section>
  );
}
