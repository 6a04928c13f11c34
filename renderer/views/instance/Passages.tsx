import { useState } from 'react';
import type { EvidenceView, InstanceDetail, InterpretationView, PassageView } from '../../../shared/api';
import { locateAnswer, sentenceAround } from '../../../shared/checks';
import { plural, wordCut } from '../../components/bits';
import { Highlight, type Mark } from '../../components/Highlight';
import { interpretationStyle } from './colours';

/** Passages: one with its marks, an interpretation's ranked evidence, and the instance's frozen list. */

/** Ranked evidence shows this many passages (and the one the short answer comes from) until "show more". */
export const EVIDENCE_SHOWN = 3;

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

export function answerMarks(interpretation: InterpretationView, passage: PassageView): { marks: Mark[]; isSource: boolean } {
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

/**
 * An interpretation's evidence, best first: the top three, and the passage its short answer comes
 * from wherever it ranks; "show more" opens the rest. Most of a long ranked list is rarely what is
 * judged, and would push the answers out of sight.
 */
export function EvidenceList({ interpretation, evidence }: { interpretation: InterpretationView; evidence: EvidenceView[] }) {
  const [all, setAll] = useState(false);
  const shown = all ? evidence : evidence.filter((e, i) => i < EVIDENCE_SHOWN || e.passage.id === interpretation.shortAnswer?.passageId);
  const hidden = evidence.length - shown.length;
  return (
    <>
      {shown.map((e) => {
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
      {hidden > 0 || all ? (
        <button type="button" className="button small ghost more-evidence" onClick={() => setAll(!all)} data-testid="more-evidence">
          {all ? 'show the top three' : `show ${plural(hidden, 'more passage')}`}
        </button>
      ) : null}
    </>
  );
}

export function FrozenEvidence({ detail }: { detail: InstanceDetail }) {
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

