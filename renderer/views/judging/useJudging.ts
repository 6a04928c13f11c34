import type { JudgingSession } from '../../../shared/api';
import { useDecisions, type Decisions } from './useDecisions';
import { useItemFocus } from './useItemFocus';
import { useJudgingData, type JudgingData } from './useJudgingData';

/** Everything the judging screen shows and does, for one session. */
export interface Judging extends Omit<JudgingData, 'error'>, Omit<Decisions, 'error'> {
  active: number;
  commentOpen: boolean;
  setActive: (index: number) => void;
  setCommentOpen: (open: boolean) => void;
  error: Error | null | undefined;
}

export function useJudging(session: JudgingSession, position: number | null, goTo: (position: number) => void): Judging {
  const data = useJudgingData(session, position, goTo);
  const itemFocus = useItemFocus(data.queue, data.item);
  const decisions = useDecisions(session, data, itemFocus, goTo);
  const { focus, setFocus } = itemFocus;
  return {
    ...data,
    ...decisions,
    active: focus.active,
    commentOpen: focus.commentOpen,
    setActive: (active) => setFocus((f) => ({ ...f, active })),
    setCommentOpen: (commentOpen) => setFocus((f) => ({ ...f, commentOpen })),
    error: decisions.error ?? data.error,
  };
}
