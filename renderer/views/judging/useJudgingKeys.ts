import { useEffect, useRef } from 'react';
import { valueForKey } from '../../../shared/protocols';
import { JUDGING_SECTIONS, type JudgingSection } from '../instance/InstanceBody';
import { useKeys } from '../../hooks';
import type { Judging } from './useJudging';

/**
 * Every judging key (the sheet lists them): a decision on the active criterion, Tab between
 * criteria, j/k between items, u or Ctrl Z to undo, s to skip, c to comment, a/l/e to the
 * short answers, the long answer or the evidence, g or h for the guidelines (a drawer beside
 * the criteria, so every other key keeps working while it is open), Esc to close them, ? for the
 * sheet. Quiet while a field has focus or the sheet is open. Keys that judge, typed while the
 * next item is still on its way, wait for it and then act one by one, in order (each on the
 * criterion the one before moved to), so a fast typist loses nothing.
 */
export function useJudgingKeys(
  judging: Judging,
  panels: { enabled: boolean; toggleGuidelines: () => void; closeGuidelines: () => void; openSheet: () => void; jump: (section: JudgingSection) => void },
): void {
  const waiting = useRef<KeyboardEvent[]>([]);
  const handle = (event: KeyboardEvent) => {
    if (event.altKey) return;
    if (event.key === 'Escape') {
      // Esc in a comment field cancels the comment and leaves the guidelines open.
      const target = event.target as HTMLElement | null;
      if (!target || (target.tagName !== 'INPUT' && target.tagName !== 'TEXTAREA')) panels.closeGuidelines();
      return;
    }
    if ((event.key === 'g' || event.key === 'h') && !event.ctrlKey && !event.metaKey) {
      event.preventDefault();
      panels.toggleGuidelines();
      return;
    }
    const section = JUDGING_SECTIONS.find((s) => s.key === event.key);
    if (section && !event.ctrlKey && !event.metaKey) {
      event.preventDefault();
      panels.jump(section.id);
      return;
    }
    const { item, queue, active } = judging;
    if (!item || !queue) return;
    if (judging.placeholder && !event.ctrlKey && !event.metaKey && judgesItem(judging, event.key)) {
      event.preventDefault();
      waiting.current.push(event);
      return;
    }
    if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === 'z') {
      event.preventDefault();
      judging.undo();
      return;
    }
    if (event.ctrlKey || event.metaKey) return;
    const criteria = queue.protocol.criteria;
    const criterion = criteria[active];
    const key = event.key;
    if (key === 'Tab') judging.setActive((active + (event.shiftKey ? criteria.length - 1 : 1)) % criteria.length);
    else if (key === 'j' || key === 'ArrowDown' || key === 'ArrowRight') judging.step(1);
    else if (key === 'k' || key === 'ArrowUp' || key === 'ArrowLeft') judging.step(-1);
    else if (key === 'u') judging.undo();
    else if (key === 's') judging.skip();
    else if (key === '?') panels.openSheet();
    else if (key === 'c' && criterion && criterion.scale.kind !== 'text') judging.setCommentOpen(true);
    else if (criterion && criterion.scale.kind !== 'text') {
      const value = valueForKey(criterion.scale, key);
      if (value === null) return;
      judging.decide(criterion, value);
    } else return;
    event.preventDefault();
  };
  useKeys(handle, panels.enabled);
  // One waiting key per render: each acts on the screen the one before left.
  useEffect(() => {
    if (judging.placeholder || waiting.current.length === 0) return;
    handle(waiting.current.shift()!);
  });
}

/** Whether a key decides, skips or comments on the item on screen (what must not act on the last one). */
function judgesItem(judging: Judging, key: string): boolean {
  const criterion = judging.queue?.protocol.criteria[judging.active];
  if (key === 's' || key === 'c' || key === 'Tab') return true;
  return criterion !== undefined && criterion.scale.kind !== 'text' && valueForKey(criterion.scale, key) !== null;
}
