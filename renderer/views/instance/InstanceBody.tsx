import type { ReactNode } from 'react';
import { Link } from 'wouter';
import type { InstanceDetail } from '../../../shared/api';
import { AMBIGUITY_TYPE_DEFINITIONS } from '../../../shared/domain';
import { describeProvenance, plural, ProvenanceMark, StatusWord, TypeTag } from '../../components/bits';
import { LongAnswer, sharedProvenance } from './Answers';
import { hasSupport, InterpretationColumn, InterpretationSupport, JudgedInterpretation } from './Interpretation';
import { FrozenEvidence } from './Passages';

/**
 * An instance side by side: the question with its type and provenance, one column per
 * interpretation, the long answers, the frozen evidence list and the filter votes (when there are
 * any to show). The instance page reads each interpretation top to bottom; the judging screen
 * (`layout="judge"`) puts what is judged first, in sections a key jumps between (`data-section`):
 * the short answers, the long answers, then the evidence. Blind campaigns show no stage, trace,
 * status or automatic check (the pipeline's verdicts), which the instance page shows.
 */

export const JUDGING_SECTIONS = [
  { id: 'answers', key: 'a', label: 'short answers' },
  { id: 'long-answer', key: 'l', label: 'long answer' },
  { id: 'evidence', key: 'e', label: 'evidence' },
] as const;
export type JudgingSection = (typeof JUDGING_SECTIONS)[number]['id'];

function InstanceHead({ detail: d, linkBaseQuestion, common }: { detail: InstanceDetail; linkBaseQuestion: boolean; common: ReturnType<typeof sharedProvenance> }) {
  return (
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
  );
}

function LongAnswers({ detail: d, shared }: { detail: InstanceDetail; shared: string | null }) {
  return (
    <>
      {d.longAnswers.map((answer, i) => (
        <LongAnswer key={answer.id} answer={answer} interpretations={d.interpretations} index={i} count={d.longAnswers.length} shared={shared} blind={d.blind === true} />
      ))}
      {d.longAnswers.length === 0 ? <div className="muted small">No long answer.</div> : null}
    </>
  );
}

function FilterVotes({ detail: d }: { detail: InstanceDetail }) {
  if (!d.filterVotes.length) return null;
  return (
    <section className="card">
      <h2>Filter votes</h2>
      <table className="plain">
        <tbody>
          {d.filterVotes.map((v) => (
            <tr key={v.model}>
              <td className="mono">{v.model}</td>
              <td className={v.verdict === 'aligned' ? 'flag-ok' : v.verdict === 'not_needed' ? 'muted' : 'flag-bad'}>{v.verdict === 'not_needed' ? 'not needed' : v.verdict}</td>
              <td>{v.reason}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

const NO_INTERPRETATIONS = <div className="notice">This instance has no interpretations yet.</div>;

/** `labels` goes under the head on the instance page (the judging screen has none). */
export function InstanceBody({ detail: d, linkBaseQuestion = true, layout = 'read', labels }: { detail: InstanceDetail; linkBaseQuestion?: boolean; layout?: 'read' | 'judge'; labels?: ReactNode }) {
  const common = sharedProvenance(d);
  const shared = common ? describeProvenance(common) : null;
  const blind = d.blind === true;
  const columns = (Of: typeof InterpretationColumn) => (
    <div className="interpretations" data-testid="interpretations">
      {d.interpretations.map((interpretation) => (
        <Of key={interpretation.id} interpretation={interpretation} frozen={d.evidence} shared={shared} blind={blind} />
      ))}
    </div>
  );
  if (layout === 'read') {
    return (
      <>
        <InstanceHead detail={d} linkBaseQuestion={linkBaseQuestion} common={common} />
        {labels}
        {d.interpretations.length ? columns(InterpretationColumn) : NO_INTERPRETATIONS}
        <LongAnswers detail={d} shared={shared} />
        <FrozenEvidence detail={d} />
        <FilterVotes detail={d} />
      </>
    );
  }
  return (
    <>
      <InstanceHead detail={d} linkBaseQuestion={linkBaseQuestion} common={common} />
      <div data-section="answers">{d.interpretations.length ? columns(JudgedInterpretation) : NO_INTERPRETATIONS}</div>
      <div data-section="long-answer" className="judge-section">
        <LongAnswers detail={d} shared={shared} />
      </div>
      <div data-section="evidence" className="judge-section">
        <h3 className="section-title">Sub-questions and evidence</h3>
        {d.interpretations.some(hasSupport) ? (
          <div className="interpretations">
            {d.interpretations.map((interpretation) => (
              <InterpretationSupport key={interpretation.id} interpretation={interpretation} frozen={d.evidence} />
            ))}
          </div>
        ) : d.evidence.length ? null : (
          <div className="muted small">No sub-questions or evidence with this instance.</div>
        )}
        <FrozenEvidence detail={d} />
      </div>
      <FilterVotes detail={d} />
    </>
  );
}
