import { keepPreviousData, skipToken, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo } from 'react';
import type { JudgingItem, JudgingQueue, JudgingSession } from '../../../shared/api';
import { call } from '../../api';
import { opKey, opQuery } from '../../query';
import { startPosition } from './queue';

export const queueKey = (session: JudgingSession) => opKey('judging:queue', { session });
export const itemKey = (session: JudgingSession, position: number) => opKey('judging:item', { session, position });

/** Background work waits until the new item is on screen. */
export function afterPaint(work: () => void): void {
  requestAnimationFrame(() => setTimeout(work, 0));
}

export interface JudgingData {
  queue: JudgingQueue | undefined;
  /** The item on screen (the last one, while the next loads). */
  item: JudgingItem | undefined;
  positions: number[];
  /** The item's index in the queue, -1 before one shows. */
  index: number;
  error: Error | null;
}

/**
 * The queue and the item at the URL's position, as queries. The queue is fetched each time the
 * screen opens and then kept by the decisions themselves; an item, once fetched, is kept. With
 * no position in the URL, the session opens on its first item not done; the item after the one
 * on screen is fetched ahead while this one is read.
 */
export function useJudgingData(session: JudgingSession, position: number | null, goTo: (position: number) => void): JudgingData {
  const client = useQueryClient();
  const queueQuery = useQuery({ ...opQuery('judging:queue', { session }), staleTime: Infinity, refetchOnMount: 'always' });
  const itemQuery = useQuery({
    queryKey: itemKey(session, position ?? -1),
    queryFn: position === null ? skipToken : () => call('judging:item', { session, position }),
    staleTime: Infinity,
    placeholderData: keepPreviousData,
  });
  const queue = queueQuery.data;
  const item = itemQuery.data;
  const positions = useMemo(() => queue?.items.map((i) => i.position) ?? [], [queue?.items]);
  const index = item ? positions.indexOf(item.position) : -1;

  useEffect(() => {
    if (!queue || position !== null) return;
    const start = startPosition(queue);
    if (start !== undefined) goTo(start);
  }, [queue, position, goTo]);

  const following = index === -1 ? undefined : positions[index + 1];
  useEffect(() => {
    if (following === undefined) return;
    afterPaint(() => void client.prefetchQuery({ ...opQuery('judging:item', { session, position: following }), staleTime: Infinity }));
  }, [client, session, following]);

  return { queue, item, positions, index, error: queueQuery.error ?? itemQuery.error };
}
