import type { EvidenceView, InstanceDetail, InterpretationView, LongAnswerView, Provenance } from '../../../shared/api';
import { checkSpan, locateAnswer } from '../../../shared/checks';
import { describeProvenance, plural, ProvenanceMark } from '../../components/bits';
import { Highlight, type Mark } from '../../components/Highlight';
import { interpretationLabel, interpretationStyle } from './colours';
import { PassageText } from './Passages';

/** What is judged: each short answer with its check, and the long answers with every short answer marked in them. */

export function ShortAnswer({ interpretation, evidence, shared, blind }: { interpretation: InterpretationView; evidence: EvidenceView[]; shared: string | null; blind: boolean }) {
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
export function sharedProvenance(d: InstanceDetail): Provenance | null {
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
export function OwnProvenance({ provenance, shared }: { provenance: Provenance | null; shared: string | null }) {
  if (provenance && shared !== null && describeProvenance(provenance) === shared) return null;
  return <ProvenanceMark provenance={provenance} />;
}

export function LongAnswer({ answer, interpretations, index, count, shared, blind }: { answer: LongAnswerView; interpretations: InterpretationView[]; index: number; count: number; shared: string | null; blind: boolean }) {
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

