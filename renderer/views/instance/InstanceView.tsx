import { useMemo, useState, type CSSProperties } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import type { EvidenceView, InstanceDetail, InterpretationView, LongAnswerView, PassageView, Provenance } from '../../shared/api';
import { checkSpan, locateAnswer, sentenceAround } from '../../shared/checks';
import { AMBIGUITY_TYPE_DEFINITIONS } from '../../shared/domain';
import { listStateToSearch, parseInstanceParams } from '../list-params';
import { call } from '../api';
import { describeProvenance, ErrorNotice, plural, ProvenanceMark, StatusWord, TypeTag, wordCut } from '../components/bits';
import { Highlight, type Mark } from '../components/Highlight';
import { useKeys } from '../hooks';
import { useOp } from '../query';

const CIRCLED = ['①', '②', '③', '④', '⑤', '⑥', '⑦', '⑧', '⑨', '⑩'];

/** One colour per interpretation, used for its column, its spans and its answer in the long answer. */
function interpretationStyle(position: number): CSSProperties {
  return { '--c': `var(--interpretation-${(position % 8) + 1})` } as CSSProperties;
}

function interpretationLabel(position: number): string {
  return CIRCLED[position] ?? `(${position + 1})`;
}

/** A passage with marks; long ones collapse to the sentence around the first mark. */
export function PassageText({ passage, marks }: { passage: PassageView; marks: Mark[] }) {
  const [open, setOpen] = useState(false);
  const text = passage.text;
  if (open || text.length <= 420) {
    return (
      <div className="passage-text">
        <Highlight text={text} marks={marks} />
        {open ? (
          <>
            {' '}
            <button type="button" className="more" onClick={() => setOpen(false)}>
              less
            </button>
          </>
        ) : null}
      </div>
    );
  }
  const focus = marks[0] ? sentenceAround(text, marks[0]) : { start: 0, end: wordCut(text, 300) };
  const shown = text.slice(focus.start, focus.end);
  const shifted = marks
    .filter((m) => m.start >= focus.start && m.end <= focus.end)
    .map((m) => ({ ...m, start: m.start - focus.start, end: m.end - focus.start }));
  return (
    <div className="passage-text">
      {focus.start > 0 ? '… ' : ''}
      <Highlight text={shown} marks={shifted} />
      {focus.end < text.length ? ' … ' : ' '}
      <button type="button" className="more" onClick={() => setOpen(true)}>
        show all
      </button>
    </div>
  );
}

function answerMarks(interpretation: InterpretationView, passage: PassageView): { marks: Mark[]; isSource: boolean } {
  const answer = interpretation.shortAnswer;
  if (!answer) return { marks: [], isSource: false };
  if (answer.passageId === passage.id && answer.start !== null && answer.end !== null) {
    return { marks: [{ start: answer.start, end: answer.end, title: 'The short answer’s recorded span' }], isSource: true };
  }
  const found = locateAnswer(passage.text, answer);
  return {
    marks: found ? [{ start: found.start, end: found.end, className: 'hl', title: found.alias ? `Alias “${found.alias}”` : 'The short answer' }] : [],
    isSource: false,
  };
}

function EvidenceList({ interpretation, evidence }: { interpretation: InterpretationView; evidence: EvidenceView[] }) {
  return (
    <>
      {evidence.map((e) => {
        const { marks, isSource } = answerMarks(interpretation, e.passage);
        return (
          <div key={e.id} className={`passage${isSource ? ' answer-source' : ''}`} data-testid="evidence">
            <div className="passage-head">
              <span className="rank">#{e.rank}</span>
              <span className="title" title={e.passage.title}>
                {e.passage.title || 'untitled'}
              </span>
              <span className="src" title={`${e.origin ? `${e.origin} · ` : ''}corpus ${e.passage.corpus}`}>
                {e.score !== null ? `similarity ${e.score.toFixed(3)} · ` : ''}
                {e.origin || e.passage.corpus}
              </span>
            </div>
            <PassageText passage={e.passage} marks={marks} />
          </div>
        );
      })}
    </>
  );
}

function ShortAnswer({ interpretation, evidence, shared, blind }: { interpretation: InterpretationView; evidence: EvidenceView[]; shared: string | null; blind: boolean }) {
  const answer = interpretation.shortAnswer;
  if (!answer) return <div className="muted">No short answer.</div>;
  const passage = interpretation.answerPassage ?? evidence.find((e) => e.passage.id === answer.passageId)?.passage ?? null;
  let check: { level: 'ok' | 'warn' | 'bad' | 'none'; text: string };
  if (answer.passageId === null) {
    check = { level: 'none', text: 'no source passage' };
  } else if (!passage) {
    check = { level: 'bad', text: 'its passage is missing' };
  } else if (answer.start === null || answer.end === null) {
    check = locateAnswer(passage.text, answer)
      ? { level: 'ok', text: 'found in its passage (no span recorded)' }
      : { level: 'bad', text: 'not found in its passage' };
  } else {
    const result = checkSpan(passage.text, answer.start, answer.end, answer.text);
    check =
      result === 'verbatim'
        ? { level: 'ok', text: 'verbatim span of its passage' }
        : result === 'normalised'
          ? { level: 'ok', text: 'span matches after normalising' }
          : {
              level: 'bad',
              text:
                result === 'out_of_range'
                  ? 'the recorded span lies outside its passage'
                  : `the recorded span reads “${passage.text.slice(answer.start, answer.end)}”, not the answer`,
            };
  }
  return (
    <div className="answer" data-testid="short-answer">
      <span className="answer-text">{answer.text}</span>
      <OwnProvenance provenance={answer.provenance} shared={shared} />
      {answer.aliases.length ? <span className="aliases">also: {answer.aliases.join(' · ')}</span> : null}
      {blind ? null : check.level === 'none' ? (
        // Imported answers often come without their passage: a quiet note, not a check.
        <span className="answer-note" title="The source gives this answer without the passage it comes from, so it cannot be checked against one.">
          {check.text}
        </span>
      ) : (
        <span className={`small flag-${check.level}`}>
          {{ ok: '✓', warn: '⚠', bad: '✗' }[check.level]} {check.text}
        </span>
      )}
    </div>
  );
}

/**
 * The one provenance every field of an instance shares (say, all from one dataset), if they do:
 * it is then shown once in the header instead of beside every field.
 */
function sharedProvenance(d: InstanceDetail): Provenance | null {
  const all = [
    ...d.interpretations.flatMap((r) => [r.provenance ?? r.conditionProvenance, r.shortAnswer?.provenance ?? null]),
    ...d.longAnswers.map((a) => a.provenance),
  ].filter((p): p is Provenance => p !== null);
  const first = all[0];
  if (!first || all.length < 2) return null;
  const described = describeProvenance(first);
  return all.every((p) => describeProvenance(p) === described) ? first : null;
}

/** A field's provenance mark, left out when it is the one the whole instance shares. */
function OwnProvenance({ provenance, shared }: { provenance: Provenance | null; shared: string | null }) {
  if (provenance && shared !== null && describeProvenance(provenance) === shared) return null;
  return <ProvenanceMark provenance={provenance} />;
}

function InterpretationColumn({ interpretation, frozen, shared, blind }: { interpretation: InterpretationView; frozen: EvidenceView[]; shared: string | null; blind: boolean }) {
  const cited = frozen.filter((e) => interpretation.citations.includes(e.rank));
  return (
    <article className={`interpretation${interpretation.status === 'dropped' ? ' dropped' : ''}`} style={interpretationStyle(interpretation.position)} data-testid="interpretation">
      <header className="interpretation-head">
        <div className="interpretation-title">
          <span className="interpretation-badge" aria-label={`Interpretation ${interpretation.position + 1}`}>
            {interpretation.position + 1}
          </span>
          <div>
            {interpretation.clarifiedQuestion ? <div data-testid="clarified-question">{interpretation.clarifiedQuestion}</div> : null}
            {interpretation.condition ? (
              <div className="muted" data-testid="condition">
                <strong>Condition:</strong> {interpretation.condition}
              </div>
            ) : null}
          </div>
        </div>
        <div className="meta">
          <OwnProvenance provenance={interpretation.provenance ?? interpretation.conditionProvenance} shared={shared} />
          {typeof interpretation.extra.wikipage === 'string' ? <span className="small">Wikipedia: {interpretation.extra.wikipage}</span> : null}
          {interpretation.status === 'dropped' ? <span className="flag-bad small">dropped: {interpretation.droppedReason}</span> : null}
        </div>
      </header>
      {interpretation.subQuestions.length ? (
        <section className="interpretation-section">
          <h3>Sub-questions</h3>
          <ol className="subq">
            {interpretation.subQuestions.map((s, i) => (
              <li key={i}>
                {s.question} {s.answer ? <span className="arrow">→ {s.answer}</span> : null}
              </li>
            ))}
          </ol>
        </section>
      ) : null}
      {interpretation.evidence.length || cited.length ? (
        <section className="interpretation-section">
          <h3>Evidence{interpretation.evidence.length ? ' (ranked)' : ' (cited)'}</h3>
          <EvidenceList interpretation={interpretation} evidence={interpretation.evidence.length ? interpretation.evidence : cited} />
        </section>
      ) : null}
      {interpretation.answerPassage ? (
        <section className="interpretation-section">
          <h3>Answer passage</h3>
          <div className="passage answer-source">
            <div className="passage-head">
              <span className="title">{interpretation.answerPassage.title}</span>
            </div>
            <PassageText passage={interpretation.answerPassage} marks={answerMarks(interpretation, interpretation.answerPassage).marks} />
          </div>
        </section>
      ) : null}
      <section className="interpretation-section">
        <h3>Short answer</h3>
        <ShortAnswer interpretation={interpretation} evidence={[...interpretation.evidence, ...frozen]} shared={shared} blind={blind} />
      </section>
    </article>
  );
}

function LongAnswer({ answer, interpretations, index, count, shared, blind }: { answer: LongAnswerView; interpretations: InterpretationView[]; index: number; count: number; shared: string | null; blind: boolean }) {
  // Interpretations whose answers land on the same words share one mark, with a badge per interpretation.
  const spans = new Map<string, { start: number; end: number; interpretations: InterpretationView[] }>();
  const missing: InterpretationView[] = [];
  for (const interpretation of interpretations) {
    if (!interpretation.shortAnswer) continue;
    const found = locateAnswer(answer.text, interpretation.shortAnswer);
    if (!found) {
      missing.push(interpretation);
      continue;
    }
    const key = `${found.start}:${found.end}`;
    const span = spans.get(key) ?? { start: found.start, end: found.end, interpretations: [] };
    span.interpretations.push(interpretation);
    spans.set(key, span);
  }
  const marks: Mark[] = [...spans.values()].map((span) => ({
    start: span.start,
    end: span.end,
    style: interpretationStyle(span.interpretations[0]!.position),
    title: `${span.interpretations.length === 1 ? 'Interpretation' : 'Interpretations'} ${span.interpretations.map((r) => r.position + 1).join(', ')}`,
    after: (
      <span className="mark-badges" aria-hidden>
        {span.interpretations.map((r) => (
          <span key={r.id} className="cite-dot" style={interpretationStyle(r.position)}>
            {r.position + 1}
          </span>
        ))}
      </span>
    ),
  }));
  const withAnswers = interpretations.filter((r) => r.shortAnswer).length;
  return (
    <section className="long-answer" data-testid="long-answer">
      <div className="meta">
        <h2>Long answer{count > 1 ? ` ${index + 1} of ${count}` : ''}</h2>
        <OwnProvenance provenance={answer.provenance} shared={shared} />
      </div>
      <div className="long-answer-text">
        <Highlight text={answer.text} marks={blind ? [] : marks} />
      </div>
      {/* Blind review: whether every short answer appears is the judges' call (the long_answer criterion): neither marked nor checked. */}
      {blind ? null : <div className="checks" data-testid="long-answer-checks">
        {missing.length === 0 && withAnswers > 0 ? (
          <span className="flag-ok">{withAnswers === 1 ? '✓ the short answer appears in it' : `✓ all ${withAnswers} short answers appear in it`}</span>
        ) : null}
        {missing.map((interpretation) => (
          <span key={interpretation.id} className="flag-bad" data-testid="missing-answer">
            ✗ {interpretationLabel(interpretation.position)} “{interpretation.shortAnswer!.text}” does not appear in this long answer
          </span>
        ))}
      </div>}
      {answer.citations.length ? (
        <details>
          <summary className="small muted">{plural(answer.citations.length, 'cited passage')}</summary>
          <div className="interpretation-section">
            {answer.citations.map((c, i) => (
              <div key={i} className="passage">
                <div className="passage-head">
                  <span className="rank">[{i + 1}]</span>
                  <span className="title">{c.passage.title || 'untitled'}</span>
                </div>
                <PassageText passage={c.passage} marks={[]} />
              </div>
            ))}
          </div>
        </details>
      ) : null}
    </section>
  );
}

function FrozenEvidence({ detail }: { detail: InstanceDetail }) {
  if (detail.evidence.length === 0) return null;
  return (
    <section className="card" data-testid="frozen-evidence">
      <h2>Evidence list ({plural(detail.evidence.length, 'passage')}, frozen with the instance)</h2>
      {detail.evidence.map((e) => {
        const citing = detail.interpretations.filter((r) => r.citations.includes(e.rank));
        return (
          <div key={e.id} className="passage">
            <div className="passage-head">
              <span className="rank">#{e.rank}</span>
              <span className="title">{e.passage.title || 'untitled'}</span>
              <span className="cite-dots" title={citing.length ? `Cited by ${citing.length === 1 ? 'interpretation' : 'interpretations'} ${citing.map((r) => r.position + 1).join(', ')}` : 'Not cited'}>
                {citing.map((r) => (
                  <span key={r.id} className="cite-dot" style={interpretationStyle(r.position)}>
                    {r.position + 1}
                  </span>
                ))}
              </span>
              <span className="src">
                {e.score !== null ? `similarity ${e.score.toFixed(3)}` : ''} {e.origin}
              </span>
            </div>
            <PassageText passage={e.passage} marks={[]} />
          </div>
        );
      })}
    </section>
  );
}

/**
 * An instance side by side: the question with its type and provenance, one column per interpretation
 * (clarified question, sub-questions, evidence, short answer), the long answers, the frozen
 * evidence list and the filter votes (when there are any to show). The judging screen shows the
 * same thing, with the votes held back in blind campaigns.
 */
export function InstanceBody({ detail: d, linkBaseQuestion = true }: { detail: InstanceDetail; linkBaseQuestion?: boolean }) {
  const common = sharedProvenance(d);
  const shared = common ? describeProvenance(common) : null;
  return (
    <>
      <header className="question-head" data-testid="instance-head">
        <div className="question-text" data-testid="original-question">
          {d.baseQuestion.question}
        </div>
        <div className="meta">
          <TypeTag type={d.ambiguityType} />
          <span className="definition">{AMBIGUITY_TYPE_DEFINITIONS[d.ambiguityType]}</span>
        </div>
        <div className="meta">
          {d.blind ? <span className="muted" title="A blind campaign: the status and the pipeline's verdicts are withheld">blind review</span> : <StatusWord status={d.status} />}
          {d.removedReason ? (
            <span className="flag-bad">
              removed at {d.removedStage ?? 'a stage'}: {d.removedReason}
            </span>
          ) : null}
          <span>{d.baseQuestion.hops ? plural(d.baseQuestion.hops, 'hop') : 'no hop count'}</span>
          <span>{plural(d.interpretations.length, 'interpretation')}</span>
          <span>
            {d.baseQuestion.dataset} ·{' '}
            {linkBaseQuestion && !d.blind ? (
              <Link href={`/base-questions/${d.baseQuestion.id}`} className="mono" title="Open the base question (b)">
                {d.baseQuestion.sourceId}
              </Link>
            ) : (
              <span className="mono">{d.baseQuestion.sourceId}</span>
            )}
          </span>
          {/* Blind review: no stage and no trace, which carry the pipeline's verdicts. */}
          <span className="muted" data-testid="instance-id">
            instance #{d.id}
            {d.blind ? null : <> · stage {d.stage}</>}
            {d.stage !== 'imported' && linkBaseQuestion && !d.blind ? (
              <>
                {' · '}
                <Link href={`/pipeline/failures?item=inst:${d.id}`} title="Every stage and model call that built this instance">
                  trace
                </Link>
              </>
            ) : null}
          </span>
          {common ? (
            <span className="small" data-testid="shared-provenance">
              provenance of every field: <ProvenanceMark provenance={common} />
            </span>
          ) : null}
        </div>
      </header>
      {d.interpretations.length ? (
        <div className="interpretations" data-testid="interpretations">
          {d.interpretations.map((interpretation) => (
            <InterpretationColumn key={interpretation.id} interpretation={interpretation} frozen={d.evidence} shared={shared} blind={d.blind === true} />
          ))}
        </div>
      ) : (
        <div className="notice">This instance has no interpretations yet.</div>
      )}
      {d.longAnswers.map((answer, i) => (
        <LongAnswer key={answer.id} answer={answer} interpretations={d.interpretations} index={i} count={d.longAnswers.length} shared={shared} blind={d.blind === true} />
      ))}
      {d.longAnswers.length === 0 ? <div className="muted small">No long answer.</div> : null}
      <FrozenEvidence detail={d} />
      {d.filterVotes.length ? (
        <section className="card">
          <h2>Filter votes</h2>
          <table className="plain">
            <tbody>
              {d.filterVotes.map((v) => (
                <tr key={v.model}>
                  <td className="mono">{v.model}</td>
                  <td className={v.verdict === 'aligned' ? 'flag-ok' : 'flag-bad'}>{v.verdict}</td>
                  <td>{v.reason}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      ) : null}
    </>
  );
}

export function InstanceView({ id }: { id: number }) {
  const search = useSearch();
  const [, navigate] = useLocation();
  const detail = useOp('instance:get', { id });
  const listState = useMemo(() => parseInstanceParams(search), [search]);
  const at = Number(new URLSearchParams(search).get('at') ?? NaN);
  const listSearch = listStateToSearch(listState);
  const back = () => navigate(`/instances${listSearch ? `${listSearch}&` : '?'}row=${Number.isInteger(at) ? at : 0}`);

  const step = async (delta: number) => {
    if (!Number.isInteger(at)) return;
    const next = at + delta;
    if (next < 0) return;
    const page = await call('instance:list', { ...listState, offset: next, limit: 1 });
    const row = page.rows[0];
    if (row) navigate(`/instances/${row.id}${listSearch ? `${listSearch}&` : '?'}at=${next}`, { replace: true });
  };

  useKeys((event) => {
    if (event.metaKey || event.ctrlKey || event.altKey) return;
    if (event.key === 'Escape') back();
    else if (event.key === 'j' || event.key === 'ArrowDown' || event.key === 'ArrowRight') void step(1);
    else if (event.key === 'k' || event.key === 'ArrowUp' || event.key === 'ArrowLeft') void step(-1);
    else if (event.key === 'b' && detail.data) navigate(`/base-questions/${detail.data.baseQuestion.id}`);
    else return;
    event.preventDefault();
  });

  const d = detail.data;
  return (
    <div className="page">
      <div className="page-inner">
        <div className="crumbs">
          <button type="button" className="button small ghost" onClick={back}>
            ← Instances <kbd>Esc</kbd>
          </button>
          {Number.isInteger(at) ? (
            <>
              <span>row {at + 1}</span>
              <button type="button" className="button small" onClick={() => void step(-1)} disabled={at <= 0}>
                ↑ previous <kbd>k</kbd>
              </button>
              <button type="button" className="button small" onClick={() => void step(1)}>
                ↓ next <kbd>j</kbd>
              </button>
            </>
          ) : null}
        </div>
        <ErrorNotice error={detail.error} />
        {d ? <InstanceBody detail={d} /> : null}
      </div>
    </div>
  );
}
