import { useIsMutating, useMutation, useQueryClient, type Mutation } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { flushSync } from 'react-dom';
import type { JudgingItem, JudgingQueue, JudgingSession } from '../../../shared/api';
import type { Criterion } from '../../../shared/protocols';
import { call } from '../../api';
import { opQuery } from '../../query';
import { firstUndecided, isComplete, isDecided, nextAfterSkip, nextToJudge, withDecision, withSkip, withValue } from './queue';
import { afterPaint, itemKey, queueKey, type JudgingData } from './useJudgingData';
import type { ItemFocus } from './useItemFocus';

/**
 * Decisions, undos and skips. A decision shows at once (written into the item's cache entry),
 * goes to the server, and its answer updates the queue in place: one request per decision. All
 * three run one at a time, in the order they were made (one mutation scope), so decisions typed
 * faster than they save are queued, never dropped; the next item shows only once the decision
 * that completes this one is on disk.
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
  /** The item's values the decision was made on (the queue's counts change by the difference). */
  before: JudgingItem['values'];
  /** The decision completes the item: the next one shows once it is saved. */
  moveOn: boolean;
}

export interface Decisions {
  decide: (criterion: Criterion, value: string | null, comment?: string) => void;
  undo: () => void;
  skip: () => void;
  /** To the item `delta` places on, once every decision so far is saved. */
  step: (delta: number) => void;
  notice: string | null;
  error: Error | undefined;
}

export function useDecisions(session: JudgingSession, data: JudgingData, { setFocus, shown, lap }: ItemFocus, goTo: (position: number) => void): Decisions {
  const client = useQueryClient();
  const { queue, item, positions, index } = data;
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<Error>();

  // Navigation waits for every decision made so far to be saved.
  const settled = useRef<Promise<unknown>>(Promise.resolve());
  const track = (work: Promise<unknown>) => {
    settled.current = work.then(
      () => undefined,
      () => undefined,
    );
  };

  /** What is on disk wins: after a failed save, the item and the queue are read again. */
  const reload = (at: number, e: Error) => {
    setError(e);
    void client.invalidateQueries({ queryKey: itemKey(session, at) });
    void client.invalidateQueries({ queryKey: queueKey(session) });
  };

  const decision = useMutation({
    scope: { id: SCOPE },
    mutationFn: ({ request }: Decision) => call('judging:decide', request),
    onSuccess: (saved, { before, moveOn }) => {
      const count = (q: JudgingQueue | undefined) => q && withDecision(q, before, saved);
      // Later decisions already show their values; the last one to save puts what is on disk.
      const last = client.isMutating({ predicate: inScope }) === 1;
      const store = () => {
        client.setQueryData<JudgingQueue>(queueKey(session), count);
        // The instance does not change with a decision: keeping it keeps the instance side from rendering again.
        if (last) client.setQueryData<JudgingItem>(itemKey(session, saved.position), (old) => (old ? { ...saved, instance: old.instance } : saved));
      };
      if (!last || !moveOn || shown.current !== saved.position) {
        store();
        return;
      }
      // Moving on: the next item (fetched ahead) shows first; the counts catch up once it is painted.
      const latest = count(client.getQueryData<JudgingQueue>(queueKey(session)));
      const next = latest && nextToJudge(latest, saved.position);
      if (next !== undefined) {
        setNotice(null);
        goTo(next);
        afterPaint(store);
      } else {
        store();
        setNotice(`All ${latest?.items.length ?? 0} items are judged. Thank you!`);
      }
    },
    onError: (e, { position: at }) => reload(at, e),
  });

  const undoing = useMutation({
    scope: { id: SCOPE },
    mutationFn: () => call('judging:undo', { session }),
    onSuccess: async (undone) => {
      if (!undone) {
        setNotice('Nothing to undo.');
        return;
      }
      const before = client.getQueryData<JudgingItem>(itemKey(session, undone.position));
      const restored = await client.fetchQuery({ ...opQuery('judging:item', { session, position: undone.position }), staleTime: 0 });
      const latest = before ? client.setQueryData<JudgingQueue>(queueKey(session), (q) => q && withDecision(q, before.values, restored)) : undefined;
      if (!before) void client.invalidateQueries({ queryKey: queueKey(session) });
      const criteria = latest?.protocol.criteria ?? queue?.protocol.criteria ?? [];
      const at = criteria.findIndex((c) => c.id === undone.criterion);
      // The item shows first (its keys start where they would), then the undone criterion takes them.
      flushSync(() => goTo(undone.position));
      setFocus({ position: undone.position, active: at === -1 ? firstUndecided(criteria, restored) : at, commentOpen: false });
      setNotice(`Undone: ${criteria[at]?.label ?? undone.criterion} on item ${positions.indexOf(undone.position) + 1}.`);
    },
    onError: setError,
  });

  const skipping = useMutation({
    scope: { id: SCOPE },
    mutationFn: ({ instanceId, itemMs }: { instanceId: number; itemMs: number; position: number }) => call('judging:skip', { session, instanceId, itemMs }),
    onSuccess: (_, { position: at, itemMs }) => {
      const latest = client.setQueryData<JudgingQueue>(queueKey(session), (q) => q && withSkip(q, at));
      client.setQueryData<JudgingItem>(itemKey(session, at), (i) => i && { ...i, skipped: true, timeMs: i.timeMs + itemMs });
      setNotice(`Skipped item ${positions.indexOf(at) + 1}; it stays in the queue.`);
      const next = latest && nextAfterSkip(latest, at);
      if (next !== undefined) goTo(next);
    },
    onError: (e, { position: at }) => reload(at, e),
  });

  const decide = (criterion: Criterion, value: string | null, comment?: string) => {
    // The cache, not the last render: a key pressed before the screen caught up acts on the latest values.
    const current = item && client.getQueryData<JudgingItem>(itemKey(session, item.position));
    if (!current || !queue) return;
    const newComment = comment ?? current.values[criterion.id]?.comment ?? '';
    const optimistic = withValue(current, criterion.id, value, newComment);
    client.setQueryData(itemKey(session, current.position), optimistic);
    const criteria = queue.protocol.criteria;
    const from = criteria.indexOf(criterion);
    const nextIndex = criteria.findIndex((c, i) => i > from && c.scale.kind !== 'text' && !isDecided(optimistic, c));
    const chosen = comment === undefined && value !== null;
    if (chosen && nextIndex !== -1) setFocus((f) => ({ ...f, active: nextIndex }));
    setError(undefined);
    track(
      decision.mutateAsync({
        request: { session, instanceId: current.instance.id, criterion: criterion.id, value, comment: newComment, itemMs: lap() },
        position: current.position,
        before: current.values,
        moveOn: chosen && isComplete(queue.protocol, optimistic),
      }),
    );
  };

  const undo = () => track(undoing.mutateAsync());

  const skip = () => {
    if (!item) return;
    track(skipping.mutateAsync({ instanceId: item.instance.id, itemMs: lap(), position: item.position }));
  };

  const step = (delta: number) => {
    const target = positions[index + delta];
    if (index === -1 || target === undefined) return;
    setNotice(null);
    void settled.current.then(() => goTo(target));
  };

  return { decide, undo, skip, step, notice, error };
}
