import { useIsMutating, useMutation, useQueryClient, type Mutation } from '@tanstack/react-query';
import { useState } from 'react';
import { flushSync } from 'react-dom';
import type { JudgingItem, JudgingQueue, JudgingSession } from '../../../shared/api';
import type { Criterion } from '../../../shared/protocols';
import { call } from '../../api';
import { nextPaint } from '../../frame';
import { useStableCallback } from '../../hooks';
import { opQuery } from '../../query';
import { firstUndecided, isComplete, isDecided, nextToJudge, withDecision, withSkip, withValue } from './queue';
import { itemKey, queueKey, type JudgingData } from './useJudgingData';
import type { ItemFocus } from './useItemFocus';

/**
 * Decisions, undos and skips. A decision shows at once: it is written into the item's and the
 * queue's cache entries, and when it completes the item the next one (fetched ahead) is on screen
 * in the next frame, without waiting for the network. The request goes out once that frame is
 * painted (so the keypress's frame carries no network work), one per decision; all three kinds run one at a time, in the order they were made (one mutation scope),
 * so decisions typed faster than they save are queued, never dropped, and the bar says "saving…"
 * until the last is on disk. What the server answers wins: a save that fails reads the item and
 * the queue again and says so.
 */

const SCOPE = 'judging';
const inScope = (mutation: Mutation<unknown, Error, unknown, unknown>) => mutation.options.scope?.id === SCOPE;

/** How many decisions (and undos, skips) are not yet on disk. */
export function useUnsaved(): number {
  return useIsMutating({ predicate: inScope });
}

interface Decision {
  request: { session: JudgingSession; instanceId: number; criterion: string; value: string | null; comment: string; itemMs: number };
  position: number;
  /** The item as it shows before the answer (the queue already counts it so). */
  shown: JudgingItem;
}

/** A notice for a toast: `id` tells two equal texts apart. */
export interface Notice {
  id: number;
  text: string;
}

export interface Decisions {
  decide: (criterion: Criterion, value: string | null, comment?: string) => void;
  undo: () => void;
  skip: () => void;
  /** To the item `delta` places on. */
  step: (delta: number) => void;
  /** To an item of the queue (leaving the completion card). */
  open: (position: number) => void;
  notice: Notice | null;
  error: Error | undefined;
  /** The queue has nothing left but what was skipped: the completion card shows. */
  finished: boolean;
}

const sameValues = (a: JudgingItem['values'], b: JudgingItem['values']) => JSON.stringify(a) === JSON.stringify(b);

export function useDecisions(session: JudgingSession, data: JudgingData, { setFocus, lap }: ItemFocus, goTo: (position: number) => void): Decisions {
  const client = useQueryClient();
  const { queue, item, positions, index, placeholder } = data;
  const [notice, setNoticeText] = useState<Notice | null>(null);
  const [error, setError] = useState<Error>();
  const [finished, setFinished] = useState(false);
  const say = (text: string) => setNoticeText((old) => ({ id: (old?.id ?? 0) + 1, text }));

  /** What is on disk wins: after a failed save, the item and the queue are read again. */
  const reload = (at: number, e: Error) => {
    setError(e);
    void client.invalidateQueries({ queryKey: itemKey(session, at) });
    void client.invalidateQueries({ queryKey: queueKey(session) });
  };

  /** The next item on screen in this frame (it was fetched ahead), or the completion card. */
  const moveOn = (latest: JudgingQueue, from: number) => {
    const next = nextToJudge(latest, from);
    flushSync(() => {
      if (next === undefined) setFinished(true);
      else goTo(next);
    });
  };

  const decision = useMutation({
    scope: { id: SCOPE },
    mutationFn: async ({ request }: Decision) => {
      await nextPaint();
      return call('judging:decide', request);
    },
    onSuccess: (saved, { shown }) => {
      // Usually the server saved what shows; if not, the queue's counts move by the difference.
      if (!sameValues(saved.values, shown.values)) client.setQueryData<JudgingQueue>(queueKey(session), (q) => q && withDecision(q, shown.values, saved));
      // Later decisions on the item already show their values; the last one to save puts what is on disk.
      // The instance does not change with a decision: keeping it keeps the instance side from rendering again.
      if (client.isMutating({ predicate: inScope }) === 1) client.setQueryData<JudgingItem>(itemKey(session, saved.position), (old) => (old ? { ...saved, instance: old.instance } : saved));
    },
    onError: (e, { position: at }) => reload(at, e),
  });

  const undoing = useMutation({
    scope: { id: SCOPE },
    mutationFn: () => call('judging:undo', { session }),
    onSuccess: async (undone) => {
      if (!undone) {
        say('Nothing to undo.');
        return;
      }
      const before = client.getQueryData<JudgingItem>(itemKey(session, undone.position));
      const restored = await client.fetchQuery({ ...opQuery('judging:item', { session, position: undone.position }), staleTime: 0 });
      const latest = before ? client.setQueryData<JudgingQueue>(queueKey(session), (q) => q && withDecision(q, before.values, restored)) : undefined;
      if (!before) void client.invalidateQueries({ queryKey: queueKey(session) });
      const criteria = latest?.protocol.criteria ?? queue?.protocol.criteria ?? [];
      const at = criteria.findIndex((c) => c.id === undone.criterion);
      // The item shows first (its keys start where they would), then the undone criterion takes them.
      flushSync(() => {
        setFinished(false);
        goTo(undone.position);
      });
      setFocus({ position: undone.position, active: at === -1 ? firstUndecided(criteria, restored) : at, commentOpen: false });
      say(`Undone: ${criteria[at]?.label ?? undone.criterion} on item ${positions.indexOf(undone.position) + 1}.`);
    },
    onError: setError,
  });

  const skipping = useMutation({
    scope: { id: SCOPE },
    mutationFn: async ({ instanceId, itemMs }: { instanceId: number; itemMs: number; position: number }) => {
      await nextPaint();
      return call('judging:skip', { session, instanceId, itemMs });
    },
    onError: (e, { position: at }) => reload(at, e),
  });

  /** The item on screen as the cache holds it (a key pressed before the screen caught up acts on the latest values). */
  const current = () => (item && !placeholder ? client.getQueryData<JudgingItem>(itemKey(session, item.position)) : undefined);

  const decide = useStableCallback((criterion: Criterion, value: string | null, comment?: string) => {
    const shown = current();
    if (!shown || !queue) return;
    const newComment = comment ?? shown.values[criterion.id]?.comment ?? '';
    const optimistic = withValue(shown, criterion.id, value, newComment);
    client.setQueryData(itemKey(session, shown.position), optimistic);
    const latest = client.setQueryData<JudgingQueue>(queueKey(session), (q) => q && withDecision(q, shown.values, optimistic));
    const criteria = queue.protocol.criteria;
    const from = criteria.indexOf(criterion);
    const nextIndex = criteria.findIndex((c, i) => i > from && c.scale.kind !== 'text' && !isDecided(optimistic, c));
    const chosen = comment === undefined && value !== null;
    if (chosen && nextIndex !== -1) setFocus((f) => ({ ...f, active: nextIndex }));
    setError(undefined);
    decision.mutate({
      request: { session, instanceId: shown.instance.id, criterion: criterion.id, value, comment: newComment, itemMs: lap() },
      position: shown.position,
      shown: optimistic,
    });
    if (chosen && latest && isComplete(queue.protocol, optimistic)) moveOn(latest, shown.position);
  });

  const undo = useStableCallback(() => undoing.mutate());

  const skip = useStableCallback(() => {
    const shown = current();
    if (!shown) return;
    const at = shown.position;
    const itemMs = lap();
    skipping.mutate({ instanceId: shown.instance.id, itemMs, position: at });
    const latest = client.setQueryData<JudgingQueue>(queueKey(session), (q) => q && withSkip(q, at));
    client.setQueryData<JudgingItem>(itemKey(session, at), (i) => i && { ...i, skipped: true, timeMs: i.timeMs + itemMs });
    say(`Skipped item ${positions.indexOf(at) + 1}; it stays in the queue.`);
    if (latest) moveOn(latest, at);
  });

  const open = useStableCallback((position: number) => {
    setFinished(false);
    goTo(position);
  });

  const step = useStableCallback((delta: number) => {
    const target = positions[index + delta];
    if (index !== -1 && target !== undefined) open(target);
  });

  return { decide, undo, skip, step, open, notice, error, finished };
}
