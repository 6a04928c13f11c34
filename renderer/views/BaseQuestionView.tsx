import { useMemo, useState } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { locateAnswer } from '../../shared/checks';
import { listStateToSearch, parseBaseQuestionParams } from '../list-params';
import { call } from '../api';
import { ErrorNotice, plural, StatusWord, TypeTag } from '../components/bits';
import { type Mark } from '../components/Highlight';
import { useKeys } from '../hooks';
import { useOp } from '../query';
import { LabelsCard } from './instance/Labels';
import { PassageText } from './instance/Passages';

/** A base question: its gold decomposition, answer and aliases, and its paragraphs. */
export function BaseQuestionView({ id }: { id: number }) {
  const search = useSearch();
  const [, navigate] = useLocation();
  const detail = useOp('base-question:get', { id });
  const listState = useMemo(() => parseBaseQuestionParams(search), [search]);
  const listSearch = listStateToSearch(listState);
  const at = Number(new URLSearchParams(search).get('at') ?? NaN);
  const [focusStep, setFocusStep] = useState<number | null>(null);
  const back = () => navigate(`/base-questions${listSearch ? `${listSearch}&` : '?'}row=${Number.isInteger(at) ? at : 0}`);
  const step = async (delta: number) => {
    if (!Number.isInteger(at) || at + delta < 0) return;
    const page = await call('base-question:list', { ...listState, offset: at + delta, limit: 1 });
    const row = page.rows[0];
    if (row) navigate(`/base-questions/${row.id}${listSearch ? `${listSearch}&` : '?'}at=${at + delta}`, { replace: true });
  };
  useKeys((event) => {
    if (event.metaKey || event.ctrlKey || event.altKey) return;
    if (event.key === 'Escape') back();
    else if (event.key === 'j' || event.key === 'ArrowDown') void step(1);
    else if (event.key === 'k' || event.key === 'ArrowUp') void step(-1);
    else return;
    event.preventDefault();
  });

  const d = detail.data;
  const supportOf = new Map<number, number[]>();
  d?.decomposition.forEach((s) => {
    if (s.supportPosition !== null) supportOf.set(s.supportPosition, [...(supportOf.get(s.supportPosition) ?? []), s.position]);
  });
  return (
    <div className="page">
      <div className="page-inner">
        <div className="crumbs">
          <button type="button" className="button small ghost" onClick={back}>
            ← Base questions <kbd>Esc</kbd>
          </button>
          {Number.isInteger(at) ? <span>row {at + 1} · <kbd>j</kbd>/<kbd>k</kbd> to move</span> : null}
        </div>
        <ErrorNotice error={detail.error} />
        {d ? (
          <>
            <header className="question-head">
              <div className="question-text" data-testid="original-question">
                {d.question}
              </div>
              <div className="meta">
                <span>{d.hops ? plural(d.hops, 'hop') : 'no hop count'}</span>
                <span>
                  {d.dataset} · <span className="mono">{d.sourceId}</span>
                </span>
                {d.answerable !== null ? <span title="The source dataset's own flag; the label in force is under Labels">{d.answerable ? 'answerable' : 'unanswerable'} in the source</span> : null}
                <span className="muted">{d.licence}</span>
              </div>
            </header>
            <div className="two-col">
              <div style={{ display: 'flex', flexDirection: 'column', gap: 16 }}>
                <section className="card" data-testid="gold-answer">
                  <h3>Gold answer</h3>
                  {d.answer ? <div className="answer-text" style={{ alignSelf: 'flex-start' }}>{d.answer}</div> : <span className="muted">none</span>}
                  {d.aliases.length ? <div className="aliases">aliases: {d.aliases.join(' · ')}</div> : null}
                </section>
                <LabelsCard target={{ baseQuestionId: d.id }} />
                {d.decomposition.length ? (
                  <section className="card" data-testid="decomposition">
                    <h3>Gold decomposition</h3>
                    <ol className="steps">
                      {d.decomposition.map((s) => (
                        <li
                          key={s.position}
                          className={focusStep === s.position ? 'active' : ''}
                          onMouseEnter={() => setFocusStep(s.position)}
                          onMouseLeave={() => setFocusStep(null)}
                        >
                          <span className={s.style === 'relation' ? 'mono' : ''}>{s.question}</span>
                          {s.answer ? <span className="muted"> → {s.answer}</span> : null}
                          {s.supportPosition !== null ? <span className="small muted"> (paragraph {s.supportPosition + 1})</span> : null}
                        </li>
                      ))}
                    </ol>
                    <div className="small muted">
                      {d.decomposition.some((s) => s.style === 'relation')
                        ? 'Steps in monospace use the relation form “Entity >> relation”; #1, #2 stand for earlier answers.'
                        : null}
                    </div>
                  </section>
                ) : null}
                {d.instances.length ? (
                  <section className="card">
                    <h3>Instances</h3>
                    {d.instances.map((i) => (
                      <div key={i.id} className="meta">
                        <Link href={`/instances/${i.id}`}>instance #{i.id}</Link>
                        <TypeTag type={i.ambiguityType} />
                        <StatusWord status={i.status} />
                      </div>
                    ))}
                  </section>
                ) : null}
              </div>
              <section className="card" data-testid="paragraphs">
                <h3>
                  Paragraphs ({d.paragraphs.length}, {d.paragraphs.filter((p) => p.isSupporting).length} supporting)
                </h3>
                {d.paragraphs.length === 0 ? <span className="muted">This base question has no paragraphs.</span> : null}
                {[...d.paragraphs]
                  .sort((a, b) => Number(b.isSupporting) - Number(a.isSupporting) || a.position - b.position)
                  .map((p) => {
                    const steps = supportOf.get(p.position) ?? [];
                    const marks: Mark[] = [];
                    for (const s of steps) {
                      const step = d.decomposition[s];
                      const found = step?.answer ? locateAnswer(p.passage.text, { text: step.answer, aliases: [] }) : null;
                      if (found) marks.push({ start: found.start, end: found.end, className: '' });
                    }
                    const active = focusStep !== null && steps.includes(focusStep);
                    return (
                      <div key={p.position} className={`passage${p.isSupporting ? ' supporting' : ''}`} data-testid={p.isSupporting ? 'supporting-paragraph' : 'paragraph'} style={active ? { outline: '2px solid var(--accent)' } : undefined}>
                        <div className="passage-head">
                          <span className="rank">{p.position + 1}</span>
                          <span className="title">{p.passage.title}</span>
                          <span className="src">
                            {p.isSupporting ? <strong className="flag-ok">supporting{steps.length ? ` step ${steps.map((s) => s + 1).join(', ')}` : ''}</strong> : null}
                          </span>
                        </div>
                        <PassageText passage={p.passage} marks={marks} />
                      </div>
                    );
                  })}
              </section>
            </div>
          </>
        ) : null}
      </div>
    </div>
  );
}
