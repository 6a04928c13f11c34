import { memo, useCallback, useDeferredValue, useRef, useState } from 'react';
import { Link } from 'wouter';
import type { InstanceDetail, JudgingItem, JudgingSession } from '../../../shared/api';
import { ShortcutSheet } from '../../components/CommandPalette';
import { useCacheNewsAfterPaint } from '../../query';
import { InstanceBody, type JudgingSection } from '../instance/InstanceBody';
import { CompletionCard } from './CompletionCard';
import { CriteriaPanel } from './CriteriaPanel';
import { GuidelinesPanel } from './GuidelinesPanel';
import { JudgeBar } from './JudgeBar';
import { JudgeToasts } from './JudgeToasts';
import { QueueStrip } from './QueueStrip';
import { SectionNav } from './SectionNav';
import { sessionSearch, useJudgingLocation } from './session';
import { useJudging } from './useJudging';
import { useJudgingKeys } from './useJudgingKeys';

/**
 * The judging screen: the instance side by side on the left (what is judged first, evidence
 * below), the protocol's criteria on the right, every decision by keyboard. The next item shows
 * in the frame after the key that completes this one; the decision goes to disk meanwhile
 * (committed to the database, or appended and flushed to the pack's results file), and the bar
 * says "saving…" until it is there. The queue ends on a completion card.
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
  ['s', 'skip this item for now (the end of the queue lists skipped items)'],
  ['a  l  e', 'jump to the short answers, the long answer, the evidence'],
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
  useCacheNewsAfterPaint();
  const scroller = useRef<HTMLDivElement>(null);
  // Each item opens at its top, where what is judged is (set before the item changes, so no layout is forced after).
  const goToTop = useCallback(
    (to: number) => {
      const side = scroller.current;
      if (side && side.scrollTop !== 0) side.scrollTop = 0;
      goTo(to);
    },
    [goTo],
  );
  const judging = useJudging(session, position, goToTop);
  const [guidelines, setGuidelines] = useState(false);
  const [sheet, setSheet] = useState(false);
  const { queue, item, finished } = judging;
  // The item ahead renders when nothing more urgent waits (a key pressed meanwhile goes first).
  const upcoming = useDeferredValue(judging.upcoming);
  // The short answers go back to the top, with the question; the others scroll their section to the top.
  const jump = (section: JudgingSection) => {
    const side = scroller.current;
    if (section === 'answers') side?.scrollTo({ top: 0 });
    else side?.querySelector(`[data-testid="judged-item"]:not(.upcoming) [data-section="${section}"]`)?.scrollIntoView({ block: 'start' });
  };
  useJudgingKeys(judging, {
    enabled: !sheet,
    toggleGuidelines: () => setGuidelines((open) => !open),
    closeGuidelines: () => setGuidelines(false),
    openSheet: () => setSheet(true),
    jump,
  });
  return (
    <div className="judge" data-testid="judging">
      <JudgeBar judging={judging} guidelines={guidelines} onGuidelines={() => setGuidelines(!guidelines)} onSheet={() => setSheet(true)} />
      <QueueStrip queue={queue} current={finished ? undefined : item?.position} onOpen={judging.open} />
      <div className="judge-body">
        <div className="judge-left">
          {finished && queue ? (
            <div className="judge-instance">
              <CompletionCard queue={queue} onOpen={judging.open} />
            </div>
          ) : (
            <>
              <SectionNav onJump={jump} />
              <div className="judge-instance" ref={scroller} data-testid="judge-instance" data-position={item?.position ?? ''}>
                {item ? (
                  // The item a decision moves to is rendered and laid out ahead, hidden in the same
                  // place, so the key that moves there only shows it (no layout of a new item).
                  [item, ...(upcoming && upcoming.position !== item.position ? [upcoming] : [])].map((shown) => (
                    <div
                      key={shown.position}
                      className={shown === item ? 'judged-item' : 'judged-item upcoming'}
                      data-testid="judged-item"
                      data-position={shown.position}
                      aria-hidden={shown === item ? undefined : true}
                    >
                      <InstanceSide detail={judgedDetail(shown)} linkBaseQuestion={!queue?.offline} layout="judge" />
                    </div>
                  ))
                ) : (
                  <div className="empty">Loading…</div>
                )}
              </div>
            </>
          )}
          {guidelines && queue ? <GuidelinesPanel protocol={queue.protocol} onClose={() => setGuidelines(false)} /> : null}
        </div>
        <CriteriaPanel judging={judging} />
      </div>
      <JudgeToasts notice={judging.notice} error={judging.error} />
      {sheet ? <ShortcutSheet title="Judging keys" shortcuts={JUDGING_SHORTCUTS} onClose={() => setSheet(false)} /> : null}
    </div>
  );
}
