import { memo, useEffect, useMemo, useRef, useState, type CSSProperties } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import type { CallTrace } from '../../../shared/pipeline';
import type { FailureItemView, InstanceFlagView, ItemTagView } from '../../../shared/api';
import type { TraceStep } from '../../../shared/eval/types';
import { ShortcutSheet } from '../../components/CommandPalette';
import { ErrorNotice } from '../../components/bits';
import { Highlight, type Mark } from '../../components/Highlight';
import { useKeys } from '../../hooks';
import { useOp, useOpMutation } from '../../query';
import { failureInput, failureSearch, parseFailureState } from './params';

/**
 * The failure view of one evaluation item: the gold interpretations with their short answers
 * beside the method's long answer (each short answer marked where it was found, in its
 * interpretation's colour, or listed as missing), the verdict (covered, partial, collapsed,
 * missed), retrieved passages per interpretation against the gold evidence, the per-item metrics
 * and the judge's scores with rationale, tags and review flags, and the trace step by step with
 * every call's prompt and raw output (collapsed, so a long trace paints at once).
 */

const SHORTCUTS: [string, string][] = [
  ['j', 'next item'],
  ['k', 'previous item'],
  ['t', 'tag this item'],
  ['f', "flag the item's instance for review"],
  ['o', 'open the instance'],
  ['u', 'back to the table'],
  ['?', 'this sheet'],
];

const colour = (index: number): CSSProperties => ({ '--c': `var(--interpretation-${(index % 8) + 1})` }) as CSSProperties;
const VERDICTS: Record<string, string> = {
  covered: 'nothing is missing',
  partial: 'it leaves some interpretations out',
  missed: 'it misses every interpretation',
  error: 'the method failed on this item',
  'no-gold': 'no gold short answers to check',
};

/** Who is acting (tags and flags carry a name); remembered on this machine. */
function useWho(): [string, (name: string) => void] {
  const [who, setWho] = useState(() => localStorage.getItem('awb.who') ?? '');
  return [who, (name: string) => {
    localStorage.setItem('awb.who', name);
    setWho(name);
  }];
}

function GoldSide({ view }: { view: FailureItemView }) {
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

function AnswerSide({ view }: { view: FailureItemView }) {
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

function Retrieval({ view }: { view: FailureItemView }) {
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

const METRIC_ROWS: [string, string, 'pct' | 'num' | 'ms' | 'usd'][] = [
  ['str_em', 'STR-EM', 'pct'],
  ['disambig_f1', 'Disambig-F1', 'pct'],
  ['rouge_l', 'ROUGE-L', 'pct'],
  ['token_f1', 'token F1', 'pct'],
  ['d_f1', 'D-F1', 'pct'],
  ['citation_precision', 'citation precision', 'pct'],
  ['answer_count_difference', 'answer-count difference', 'num'],
];

function Metrics({ view }: { view: FailureItemView }) {
  const m = view.item.metrics;
  const num = (key: string) => (typeof m[key] === 'number' ? (m[key] as number) : null);
  const show = (v: number | null, kind: 'pct' | 'num' | 'ms' | 'usd') => (v === null ? '–' : kind === 'pct' ? (v * 100).toFixed(1) : kind === 'ms' ? `${Math.round(v)} ms` : kind === 'usd' ? `$${v.toFixed(4)}` : String(v));
  const judge = ['relevance', 'faithfulness', 'informativeness', 'correctness'].map((c) => [c, num(`judge_${c}`)] as const);
  return (
    <section className="card" data-testid="item-metrics">
      <h2>Metrics</h2>
      <div className="metric-grid small">
        {METRIC_ROWS.filter(([key]) => key in m).map(([key, label, kind]) => (
          <span key={key}>
            {label} <strong>{show(num(key), kind)}</strong>
          </span>
        ))}
        <span>
          latency <strong>{show(view.item.latencyMs, 'ms')}</strong>
        </span>
        <span>
          calls <strong>{view.item.calls}</strong> · {view.item.promptTokens + view.item.completionTokens} tokens · <strong>{show(view.item.costUsd, 'usd')}</strong>
        </span>
      </div>
      {judge.some(([, v]) => v !== null) ? (
        <div data-testid="judge-scores">
          <div className="metric-grid small">
            {judge.map(([c, v]) => (
              <span key={c}>
                {c} <strong>{v ?? '–'}</strong>/5
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

function Tags({ view, who, tagOpen, setTagOpen }: { view: FailureItemView; who: string; tagOpen: boolean; setTagOpen: (open: boolean) => void }) {
  const taxonomy = useOp('failure-tag:list', {});
  const add = useOpMutation('failure-tag:add');
  const remove = useOpMutation('failure-tag:remove');
  const [tag, setTag] = useState('');
  const select = useRef<HTMLSelectElement>(null);
  useEffect(() => {
    if (tagOpen) select.current?.focus();
  }, [tagOpen]);
  const current = view.tags.filter((t) => !t.removedAt);
  const past = view.tags.filter((t) => t.removedAt);
  const submit = () => {
    if (!tag || !who) return;
    add.mutate({ item: view.item.id, tag, who }, { onSuccess: () => setTagOpen(false) });
  };
  return (
    <section className="card" data-testid="tags">
      <div className="card-head">
        <h2>Tags</h2>
        <span className="spacer" />
        <button type="button" className="button small" onClick={() => setTagOpen(!tagOpen)}>
          Tag <kbd>t</kbd>
        </button>
      </div>
      {current.length === 0 ? <div className="small muted">No tags.</div> : null}
      {current.map((t: ItemTagView) => (
        <div key={`${t.key}-${t.createdAt}`} className="small tag-line" data-testid="item-tag">
          <span className="chip">{t.label}</span> <span className="muted">{t.source === 'rule' ? `suggested by ${t.who}` : `by ${t.who}`} · {t.createdAt.slice(0, 16).replace('T', ' ')}</span>
          {t.note ? <span className="muted"> · {t.note}</span> : null}
          <button type="button" className="button ghost small" disabled={!who} title={who ? 'Take the tag off' : 'Give your name first'} onClick={() => remove.mutate({ item: view.item.id, tag: t.key, who })}>
            ✕
          </button>
        </div>
      ))}
      {tagOpen ? (
        <form
          className="row-gap small"
          onSubmit={(e) => {
            e.preventDefault();
            submit();
          }}
        >
          <select ref={select} className="input" aria-label="tag to add" value={tag} onChange={(e) => setTag(e.target.value)} onKeyDown={(e) => {
              if (e.key === 'Escape') setTagOpen(false);
              if (e.key === 'Enter') {
                e.preventDefault();
                submit();
              }
            }}>
            <option value="">choose a tag…</option>
            {(taxonomy.data ?? []).map((t) => (
              <option key={t.key} value={t.key}>
                {t.label}
              </option>
            ))}
          </select>
          <button type="submit" className="button small primary" disabled={!tag || !who}>
            Add
          </button>
          {!who ? <span className="flag-bad">give your name above first</span> : null}
        </form>
      ) : null}
      <ErrorNotice error={add.error ?? remove.error} />
      {past.length ? (
        <details className="small">
          <summary className="muted">{past.length} removed</summary>
          {past.map((t) => (
            <div key={`${t.key}-${t.createdAt}`} className="muted">
              {t.label}: set by {t.who}, taken off by {t.removedBy} · {t.removedAt?.slice(0, 16).replace('T', ' ')}
            </div>
          ))}
        </details>
      ) : null}
    </section>
  );
}

function Flags({ view, who, flagOpen, setFlagOpen }: { view: FailureItemView; who: string; flagOpen: boolean; setFlagOpen: (open: boolean) => void }) {
  const flag = useOpMutation('instance-flag:add', { onSuccess: () => setFlagOpen(false) });
  const [reason, setReason] = useState('');
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (flagOpen) input.current?.focus();
  }, [flagOpen]);
  const instance = view.item.instanceId;
  return (
    <section className="card" data-testid="flags">
      <div className="card-head">
        <h2>Review</h2>
        <span className="spacer" />
        {instance !== null ? (
          <>
            <Link href={`/instances/${instance}`} className="button small">
              Open instance <kbd>o</kbd>
            </Link>
            <button type="button" className="button small" onClick={() => setFlagOpen(!flagOpen)}>
              Flag for review <kbd>f</kbd>
            </button>
          </>
        ) : (
          <span className="small muted">This item has no instance in the database.</span>
        )}
      </div>
      {view.flags.map((f: InstanceFlagView) => (
        <div key={f.id} className="small" data-testid="flag">
          <span className={f.resolvedAt ? 'muted' : 'flag-bad'}>⚑</span> {f.reason} <span className="muted">— {f.who}{f.resolvedAt ? `, resolved by ${f.resolvedBy}` : ''}</span>
        </div>
      ))}
      {flagOpen && instance !== null ? (
        <form
          className="row-gap small"
          onSubmit={(e) => {
            e.preventDefault();
            if (reason.trim() && who) flag.mutate({ instance, item: view.item.id, reason, who });
          }}
        >
          <input ref={input} className="input grow" aria-label="reason" placeholder="What is wrong with the benchmark item?" value={reason} onChange={(e) => setReason(e.target.value)} onKeyDown={(e) => e.key === 'Escape' && setFlagOpen(false)} />
          <button type="submit" className="button small primary" disabled={!reason.trim() || !who}>
            Flag
          </button>
        </form>
      ) : null}
      <ErrorNotice error={flag.error} />
    </section>
  );
}

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

const Trace = memo(function Trace({ steps, calls }: { steps: TraceStep[]; calls: CallTrace[] }) {
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

/** The neighbours of an item in the filtered list the user came from (falls back to the run's order). */
function useNeighbours(run: number, id: number, view: FailureItemView | undefined): { previous: number | null; next: number | null } {
  const search = useSearch();
  const filtered = search.length > 1;
  const list = useOp('failure:list', filtered ? { ...failureInput(run, parseFailureState(search)), limit: 500, count: false } : null);
  if (filtered && list.data) {
    const ids = list.data.rows.map((r) => r.id);
    const at = ids.indexOf(id);
    if (at >= 0) return { previous: ids[at - 1] ?? null, next: ids[at + 1] ?? null };
  }
  return { previous: view?.previous ?? null, next: view?.next ?? null };
}

export function FailureItem({ run, id }: { run: number; id: number }) {
  const result = useOp('failure:item', { id });
  const view = result.data;
  const search = useSearch();
  const [, navigate] = useLocation();
  const [who, setWho] = useWho();
  const [sheet, setSheet] = useState(false);
  const [tagOpen, setTagOpen] = useState(false);
  const [flagOpen, setFlagOpen] = useState(false);
  const { previous, next } = useNeighbours(run, id, view);
  const suffix = failureSearch(parseFailureState(search));
  const go = (item: number | null) => {
    if (item !== null) navigate(`/evaluation/${run}/items/${item}${suffix}`);
  };
  useKeys(
    (event) => {
      if (event.metaKey || event.ctrlKey || event.altKey) return;
      if (event.key === 'Escape') {
        setTagOpen(false);
        setFlagOpen(false);
        return;
      }
      const actions: Record<string, () => void> = {
        j: () => go(next),
        k: () => go(previous),
        t: () => setTagOpen(true),
        f: () => setFlagOpen(true),
        o: () => view?.item.instanceId != null && navigate(`/instances/${view.item.instanceId}`),
        u: () => navigate(`/evaluation/${run}/items${suffix}`),
        '?': () => setSheet(true),
      };
      const action = actions[event.key];
      if (action) {
        event.preventDefault();
        action();
      }
    },
    !sheet,
  );
  return (
    <div className="page failure-item" data-testid="failure-item" data-item={view?.item.id ?? ''}>
      <div className="page-inner">
        <div className="page-head">
          <Link href={`/evaluation/${run}/items${suffix}`} className="small">
            ← items of run {run}
          </Link>
          <span className="spacer" />
          <label className="small">
            You: <input className="input" aria-label="your name" placeholder="your name" value={who} onChange={(e) => setWho(e.target.value)} />
          </label>
          <button type="button" className="button small" data-testid="previous-item" disabled={previous === null} onClick={() => go(previous)}>
            ← <kbd>k</kbd>
          </button>
          <button type="button" className="button small" data-testid="next-item" disabled={next === null} onClick={() => go(next)}>
            <kbd>j</kbd> →
          </button>
          <button type="button" className="button small ghost" onClick={() => setSheet(true)}>
            <kbd>?</kbd>
          </button>
        </div>
        <ErrorNotice error={result.error} />
        {view ? (
          <>
            <div className="item-title">
              <h1 data-testid="item-question">{view.item.question}</h1>
              <div className="small muted">
                <span className={`tag tag-${view.item.ambiguityType}`}>{view.item.ambiguityType}</span> item {view.item.position + 1} of {view.run.total} · {view.run.method} × {view.run.model} ·{' '}
                <span className="mono">{view.item.key}</span>
              </div>
            </div>
            <div className="failure-columns">
              <GoldSide view={view} />
              <AnswerSide view={view} />
            </div>
            <div className="failure-columns">
              <Metrics view={view} />
              <div className="stack">
                <Tags view={view} who={who} tagOpen={tagOpen} setTagOpen={setTagOpen} />
                <Flags view={view} who={who} flagOpen={flagOpen} setFlagOpen={setFlagOpen} />
              </div>
            </div>
            <Retrieval view={view} />
            <Trace steps={view.item.steps} calls={view.item.trace} />
          </>
        ) : result.isLoading ? (
          <div className="empty">Loading…</div>
        ) : null}
      </div>
      {sheet ? <ShortcutSheet title="Failure view" shortcuts={SHORTCUTS} onClose={() => setSheet(false)} /> : null}
    </div>
  );
}
