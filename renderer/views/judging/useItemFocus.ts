import { useLayoutEffect, useRef, useState } from 'react';
import type { JudgingItem, JudgingQueue } from '../../../shared/api';
import { firstUndecided } from './queue';

/** Which criterion the keys act on, and whether its comment field is open. */
interface Focus {
  position: number | null;
  active: number;
  commentOpen: boolean;
}

export interface ItemFocus {
  focus: Focus;
  setFocus: (update: Focus | ((focus: Focus) => Focus)) => void;
  /** Milliseconds since the item showed or was last decided; starts the count again. */
  lap: () => number;
}

/**
 * Per item on screen: the focus starts on its first criterion still to decide, with no comment
 * open (unless an undo put it elsewhere first), and the clock of its time starts.
 */
export function useItemFocus(queue: JudgingQueue | undefined, item: JudgingItem | undefined): ItemFocus {
  const [focus, setFocus] = useState<Focus>({ position: null, active: 0, commentOpen: false });
  if (item && queue && focus.position !== item.position)
    setFocus({ position: item.position, active: firstUndecided(queue.protocol.criteria, item), commentOpen: false });

  const clock = useRef(0);
  useLayoutEffect(() => {
    clock.current = performance.now();
  }, [item?.position]);
  const lap = () => {
    const now = performance.now();
    const ms = now - clock.current;
    clock.current = now;
    return ms;
  };
  return { focus, setFocus, lap };
}
