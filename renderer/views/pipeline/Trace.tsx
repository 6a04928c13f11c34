import { ErrorNotice } from '../../components/bits';
import { useOp } from '../../query';

/** The question an item is about: a base question (bq:ID), or an instance's base question (inst:ID). */
function useItemQuestion(item: string, known: string | undefined): string | undefined {
  const [kind, id] = item.split(':');
  const ask = known === undefined && Number(id) > 0;
  const question = useOp('base-question:get', ask && kind === 'bq' ? { id: Number(id) } : null);
  const instance = useOp('instance:get', ask && kind === 'inst' ? { id: Number(id) } : null);
  return known || question.data?.question || instance.data?.baseQuestion.question;
}

export function Trace({ item, question: known }: { item: string; question?: string }) {
  const trace = useOp('pipeline:trace', { item });
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
      {trace.data && trace.data.calls.length === 0 && trace.data.stages.length === 0 ? (
        <div className="muted small">Nothing recorded for this item.</div>
      ) : null}
    </section>
  );
}
