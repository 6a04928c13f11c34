import { memo, useState } from 'react';
import { Link } from 'wouter';
import type { InstanceDetail, JudgingItem, JudgingSession } from '../../../shared/api';
import { ShortcutSheet } from '../../components/CommandPalette';
import { ErrorNotice } from '../../components/bits';
import { InstanceBody } from '../instance/InstanceBody';
import { CriteriaPanel } from './CriteriaPanel';
import { GuidelinesPanel } from './GuidelinesPanel';
import { JudgeBar } from './JudgeBar';
import { QueueStrip } from './QueueStrip';
import { sessionSearch, useJudgingLocation } from './session';
import { useJudging } from './useJudging';
import { useJudgingKeys } from './useJudgingKeys';

/**
 * The judging screen: the instance side by side on the left, the protocol's criteria on the
 * right, every decision by keyboard. A decision is on disk (committed to the database, or
 * appended and flushed to the pack's results file) before the next item shows.
 */

/** The instance side re-renders only when the item changes, not on every decision. */
const InstanceSide = memo(InstanceBody);

const JUDGING_SHORTCUTS: [string, string][] = [
  ['Y  1', 'yes (on a yes/no criterion)'],
  ['N  2', 'no'],
  ['0 … 9', 'a point on a rating scale, an option of a choice'],
  ['Tab  Shift Tab', 'next / previous criterion'],
  ['c', 'comment on the current criterion (Ctrl Enter saves)'],
  ['j  →  ↓', 'next item'],
  ['k  ←  ↑', 'previous item'],
  ['u  Ctrl Z', 'undo the last decision'],
  ['s', 'skip this item for now'],
  ['g  h', 'open or close the guidelines (judging keys keep working beside them)'],
  ['?', 'this sheet'],
];

/** Judge validation: the long answer rated is the evaluation run's, shown in place of the gold long answers (kept per item, so the memo holds). */
const judgedDetails = new WeakMap<JudgingItem, InstanceDetail>();
function judgedDetail(item: JudgingItem): InstanceDetail {
  if (!item.evalAnswer) return item.instance;
  let detail = judgedDetails.get(item);
  if (!detail) {
    detail = { ...item.instance, longAnswers: [{ id: -item.evalAnswer.itemId, position: 0, text: item.evalAnswer.longAnswer ?? '(the method gave no answer)', provenance: null, citations: [] }] };
    judgedDetails.set(item, detail);
  }
  return detail;
}

export function JudgingView() {
  const { session, position, goTo } = useJudgingLocation();
  if (!session) {
    return (
      <div className="page">
        <div className="page-inner">
          <div className="notice bad">Nothing to judge: open a campaign and pick an annotator, or open a pack.</div>
          <Link href="/campaigns">Campaigns</Link>
        </div>
      </div>
    );
  }
  return <JudgingScreen key={sessionSearch(session)} session={session} position={position} goTo={goTo} />;
}

function JudgingScreen({ session, position, goTo }: { session: JudgingSession; position: number | null; goTo: (position: number) => void }) {
  const judging = useJudging(session, position, goTo);
  const [guidelines, setGuidelines] = useState(false);
  const [sheet, setSheet] = useState(false);
  useJudgingKeys(judging, {
    enabled: !sheet,
    toggleGuidelines: () => setGuidelines((open) => !open),
    closeGuidelines: () => setGuidelines(false),
    openSheet: () => setSheet(true),
  });
  const { queue, item } = judging;
  return (
    <div className="judge" data-testid="judging">
      <JudgeBar judging={judging} guidelines={guidelines} onGuidelines={() => setGuidelines(!guidelines)} onSheet={() => setSheet(true)} />
      <QueueStrip queue={queue} current={item?.position} onOpen={judging.open} />
      {judging.notice ? (
        <div className="notice ok judge-notice" data-testid="judge-notice">
          {judging.notice}
        </div>
      ) : null}
      <ErrorNotice error={judging.error} />
      {/* Open guidelines take a column between the instance and the criteria, so one can judge while reading them. */}
      <div className="judge-body" style={guidelines ? { gridTemplateColumns: 'minmax(0, 1fr) minmax(280px, 30%) 380px' } : undefined}>
        <div className="judge-instance" data-testid="judge-instance" data-position={item?.position ?? ''}>
          {item ? <InstanceSide detail={judgedDetail(item)} linkBaseQuestion={!queue?.offline} /> : <div className="empty">Loading…</div>}
        </div>
        {guidelines && queue ? <GuidelinesPanel protocol={queue.protocol} onClose={() => setGuidelines(false)} /> : null}
        <CriteriaPanel judging={judging} />
      </div>
      {sheet ? <ShortcutSheet title="Judging keys" shortcuts={JUDGING_SHORTCUTS} onClose={() => setSheet(false)} /> : null}
    </div>
  );
}
