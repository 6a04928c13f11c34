import type { ReactNode } from 'react';
import type { EvidenceView, InterpretationView } from '../../../shared/api';
import { OwnProvenance, ShortAnswer } from './Answers';
import { interpretationStyle } from './colours';
import { answerMarks, EvidenceList, PassageText } from './Passages';

/**
 * One interpretation, as a column in its colour. Read whole on the instance page (clarified
 * question, sub-questions, evidence, short answer); split in two on the judging screen, where
 * what is judged comes first: the clarified question with its short answer at the top, the
 * sub-questions and evidence that support it further down.
 */

interface Props {
  interpretation: InterpretationView;
  shared: string | null;
}

function InterpretationHead({ interpretation, shared }: Props) {
  return (
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
  );
}

/** Sub-questions, ranked (or cited) evidence and the answer's own passage. */
function Support({ interpretation, frozen }: { interpretation: InterpretationView; frozen: EvidenceView[] }) {
  const cited = frozen.filter((e) => interpretation.citations.includes(e.rank));
  return (
    <>
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
    </>
  );
}

function ShortAnswerSection({ interpretation, frozen, shared, blind }: Props & { frozen: EvidenceView[]; blind: boolean }) {
  return (
    <section className="interpretation-section">
      <h3>Short answer</h3>
      <ShortAnswer interpretation={interpretation} evidence={[...interpretation.evidence, ...frozen]} shared={shared} blind={blind} />
    </section>
  );
}

function Column({ interpretation, testId, children }: { interpretation: InterpretationView; testId: string; children: ReactNode }) {
  return (
    <article className={`interpretation${interpretation.status === 'dropped' ? ' dropped' : ''}`} style={interpretationStyle(interpretation.position)} data-testid={testId}>
      {children}
    </article>
  );
}

/** The whole interpretation, top to bottom (the instance page). */
export function InterpretationColumn(props: Props & { frozen: EvidenceView[]; blind: boolean }) {
  return (
    <Column interpretation={props.interpretation} testId="interpretation">
      <InterpretationHead {...props} />
      <Support {...props} />
      <ShortAnswerSection {...props} />
    </Column>
  );
}

/** What is judged of an interpretation: its clarified question and short answer (the judging screen's top). */
export function JudgedInterpretation(props: Props & { frozen: EvidenceView[]; blind: boolean }) {
  return (
    <Column interpretation={props.interpretation} testId="interpretation">
      <InterpretationHead {...props} />
      <ShortAnswerSection {...props} />
    </Column>
  );
}

/** Whether an interpretation has sub-questions, evidence or an answer passage to show. */
export function hasSupport(interpretation: InterpretationView): boolean {
  return interpretation.subQuestions.length > 0 || interpretation.evidence.length > 0 || interpretation.answerPassage !== null || interpretation.citations.length > 0;
}

/** What supports an interpretation: its sub-questions and evidence (the judging screen, below the answers). */
export function InterpretationSupport({ interpretation, frozen }: { interpretation: InterpretationView; frozen: EvidenceView[] }) {
  const empty = !hasSupport(interpretation);
  return (
    <Column interpretation={interpretation} testId="interpretation-support">
      <header className="interpretation-head">
        <div className="interpretation-title">
          <span className="interpretation-badge" aria-hidden>
            {interpretation.position + 1}
          </span>
          <div className="muted small">{interpretation.clarifiedQuestion ?? interpretation.condition ?? ''}</div>
        </div>
      </header>
      {empty ? <div className="interpretation-section muted small">No sub-questions or evidence.</div> : <Support interpretation={interpretation} frozen={frozen} />}
    </Column>
  );
}
