import { memo, useMemo, useState } from 'react';
import type { CallTrace } from '../../../shared/pipeline';
import type { TraceStep } from '../../../shared/eval/types';

/** The failure view's trace, step by step, each call's prompt and raw output opened on demand (so a long trace paints at once). */

/** A call's prompt and raw output, rendered only once opened. */
function CallBody({ call }: { call: CallTrace }) {
  return (
    <div className="call-body">
      {call.messages.map((m, i) => (
        <div key={i}>
          <div className="small muted">{m.role}</div>
          <pre className="code">{m.content}</pre>
        </div>
      ))}
      <div className="small muted">raw output</div>
      <pre className="code">{call.response ?? '(none)'}</pre>
    </div>
  );
}

function Step({ step, call }: { step: TraceStep; call: CallTrace | undefined }) {
  const [open, setOpen] = useState(false);
  return (
    <li className={`trace-step kind-${step.kind}`} data-testid="trace-step">
      <button type="button" className="step-head" aria-expanded={open} onClick={() => setOpen(!open)}>
        <span className="mono step-kind">{step.kind}</span> {step.label}
        <span className="muted small">
          {call ? ` · ${call.model} · ${call.status}` : ''}
          {step.cached ? ' · cached' : ''}
          {step.latencyMs !== null ? ` · ${Math.round(step.latencyMs)} ms` : ''}
          {call?.promptTokens != null ? ` · ${call.promptTokens} + ${call.completionTokens ?? 0} tokens` : ''}
        </span>
      </button>
      {open ? (
        <div className="step-body">
          <pre className="code">{JSON.stringify(step.content, null, 2)}</pre>
          {call ? <CallBody call={call} /> : null}
        </div>
      ) : null}
    </li>
  );
}

export const Trace = memo(function Trace({ steps, calls }: { steps: TraceStep[]; calls: CallTrace[] }) {
  const byId = useMemo(() => new Map(calls.map((c) => [c.id, c])), [calls]);
  const stepCalls = new Set(steps.map((s) => s.callId));
  const other = calls.filter((c) => !stepCalls.has(c.id));
  return (
    <section className="card" data-testid="trace">
      <h2>
        Trace <span className="small muted">{steps.length} steps · {calls.length} calls</span>
      </h2>
      <ol className="trace">
        {steps.map((s) => (
          <Step key={s.position} step={s} call={s.callId !== null ? byId.get(s.callId) : undefined} />
        ))}
      </ol>
      {other.length ? (
        <details className="small">
          <summary>{other.length} more calls (repairs, retries)</summary>
          {other.map((c) => (
            <details key={c.id}>
              <summary>
                #{c.id} {c.stage} · {c.status}
              </summary>
              <CallBody call={c} />
            </details>
          ))}
        </details>
      ) : null}
    </section>
  );
});

