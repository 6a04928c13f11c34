import type { CSSProperties } from 'react';
import { JUDGE_CRITERIA, type FailureItemView } from '../../../shared/api';
import { formatMetricValue, metricInfo, metricLabel, METRIC_LABELS } from '../../../shared/eval/labels';
import { Highlight, type Mark } from '../../components/Highlight';

/**
 * The failure view's reading panels: the gold interpretations with their short answers beside the
 * method's long answer (each short answer marked where it was found, in its interpretation's
 * colour, or listed as missing), the verdict, the retrieved passages against the gold evidence, and
 * the item's metrics and judge scores, named from the shared label table.
 */

const colour = (index: number): CSSProperties => ({ '--c': `var(--interpretation-${(index % 8) + 1})` }) as CSSProperties;
const VERDICTS: Record<string, string> = {
  covered: 'nothing is missing',
  partial: 'it leaves some interpretations out',
  missed: 'it misses every interpretation',
  error: 'the method failed on this item',
  'no-gold': 'no gold short answers to check',
};

export function GoldSide({ view }: { view: FailureItemView }) {
  const { item, coverage } = view;
  return (
    <section className="card" data-testid="gold">
      <h2>Gold interpretations</h2>
      {item.gold.interpretations.map((g, i) => {
        const c = coverage.interpretations[i]!;
        return (
          <div key={i} className="gold-interpretation" style={colour(i)} data-testid="gold-interpretation" data-found={c.found ? 'yes' : 'no'}>
            <span className="cite-dot">{i + 1}</span>
            <div>
              <div>{g.question ?? g.condition ?? item.question}</div>
              <div className="small">
                <strong>{g.answers[0] ?? '—'}</strong>
                {g.answers.length > 1 ? <span className="muted"> also: {g.answers.slice(1).join(' · ')}</span> : null}{' '}
                {g.answers.length ? c.found ? <span className="flag-ok">✓ found{c.span?.alias ? ` (as “${c.span.alias}”)` : c.span ? '' : ' after normalisation'}</span> : <span className="flag-bad">✗ missing</span> : null}
              </div>
            </div>
          </div>
        );
      })}
    </section>
  );
}

export function AnswerSide({ view }: { view: FailureItemView }) {
  const { item, coverage } = view;
  const marks: Mark[] = coverage.interpretations.flatMap((c) =>
    c.span ? [{ start: c.span.start, end: c.span.end, style: colour(c.index), title: `Interpretation ${c.index + 1}`, after: <span className="cite-dot" style={colour(c.index)}>{c.index + 1}</span> }] : [],
  );
  return (
    <section className="card" data-testid="method-answer">
      <div className="card-head">
        <h2>The method’s long answer</h2>
        <span className={`chip verdict-${coverage.verdict}`} data-testid="verdict">
          {coverage.verdict === 'error' ? 'no answer (error)' : coverage.verdict}
        </span>
      </div>
      {item.status === 'failed' ? <div className="notice bad" data-testid="item-error">{item.error}</div> : null}
      {item.longAnswer !== null ? (
        <div className="long-answer-text" data-testid="long-answer">
          <Highlight text={item.longAnswer} marks={marks} />
        </div>
      ) : null}
      <div className="small">
        {coverage.verdict === 'error' ? VERDICTS.error : coverage.withAnswers ? `Covers ${coverage.covered} of ${coverage.withAnswers} interpretations: ${VERDICTS[coverage.verdict]}.` : VERDICTS['no-gold']}
      </div>
      {item.collapsed ? (
        <div className="small flag-warn" data-testid="collapsed">
          Collapsed: commits to {typeof item.metrics.committed_interpretations === 'number' ? (item.metrics.committed_interpretations === 0 ? 'no' : 'one') : 'at most one'} interpretation while the gold has {item.gold.interpretations.length}.
        </div>
      ) : null}
      {item.shortAnswers.length ? <div className="small muted">Short answers it commits to: {item.shortAnswers.join(' · ')}</div> : null}
      {item.interpretations.length ? (
        <div className="small">
          <strong>Its interpretations</strong>
          <ol>
            {item.interpretations.map((m, i) => (
              <li key={i}>
                {m.question}
                {m.condition ? <span className="muted"> (if {m.condition})</span> : null} → {m.answer ?? <span className="muted">no answer</span>}
              </li>
            ))}
          </ol>
        </div>
      ) : null}
    </section>
  );
}

export function Retrieval({ view }: { view: FailureItemView }) {
  const { retrieval } = view;
  if (retrieval.groups.length === 0) return null;
  return (
    <section className="card" data-testid="retrieval">
      <h2>
        Retrieved passages{' '}
        <span className={`small ${retrieval.goldFound ? 'flag-ok' : 'flag-bad'}`}>
          {retrieval.goldEvidence ? `${retrieval.goldFound} of ${retrieval.goldEvidence} gold evidence passages retrieved` : 'no gold evidence to compare with'}
        </span>
      </h2>
      {retrieval.groups.map((g, i) => (
        <details key={i} open={i === 0}>
          <summary className="small">
            {g.interpretation ?? 'For the question'} · {g.passages.length} passages, {g.hits} gold
          </summary>
          <ol className="small passages">
            {g.passages.map((p) => (
              <li key={`${p.rank}-${p.key}`} className={p.gold ? 'gold-hit' : ''}>
                {p.gold ? <span className="flag-ok">gold </span> : null}
                <strong>{p.title}</strong> <span className="muted mono">{p.key}</span>
                <div className="muted">{p.text.length > 240 ? `${p.text.slice(0, 240)}…` : p.text}</div>
              </li>
            ))}
          </ol>
        </details>
      ))}
    </section>
  );
}

/** The item's numeric metrics in the order of the label table, then any the table does not know yet; judge grades apart. */
function itemMetrics(m: Record<string, unknown>): string[] {
  const numeric = Object.keys(m).filter((k) => typeof m[k] === 'number' && !k.startsWith('judge_') && k !== 'latency_ms' && k !== 'cost_usd');
  const known = Object.keys(METRIC_LABELS).filter((k) => numeric.includes(k));
  return [...known, ...numeric.filter((k) => !known.includes(k)).sort()];
}

export function Metrics({ view }: { view: FailureItemView }) {
  const m = view.item.metrics;
  const num = (key: string) => (typeof m[key] === 'number' ? (m[key] as number) : null);
  const judge = JUDGE_CRITERIA.map((c) => `judge_${c}`).map((key) => [key, num(key)] as const);
  return (
    <section className="card" data-testid="item-metrics">
      <h2>Metrics</h2>
      <div className="metric-grid small">
        {itemMetrics(m).map((key) => (
          <span key={key} title={metricInfo(key)?.description}>
            {metricLabel(key)} <strong>{formatMetricValue(key, num(key), { fraction: true })}</strong>
          </span>
        ))}
        <span>
          {metricLabel('latency_ms')} <strong>{formatMetricValue('latency_ms', view.item.latencyMs)}</strong>
        </span>
        <span>
          calls <strong>{view.item.calls}</strong> · {view.item.promptTokens + view.item.completionTokens} tokens · <strong>{formatMetricValue('cost_usd', view.item.costUsd)}</strong>
        </span>
      </div>
      {judge.some(([, v]) => v !== null) ? (
        <div data-testid="judge-scores">
          <div className="metric-grid small">
            {judge.map(([key, v]) => (
              <span key={key}>
                {metricLabel(key)} <strong>{v ?? '–'}</strong>/5
              </span>
            ))}
          </div>
          {typeof m.judge_rationale === 'string' ? <div className="small judge-rationale">{m.judge_rationale}</div> : null}
        </div>
      ) : (
        <div className="small muted">{typeof m.judge_error === 'string' ? m.judge_error : 'Not judged.'}</div>
      )}
    </section>
  );
}
