import { keepPreviousData, skipToken, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo } from 'react';
import type { JudgingItem, JudgingQueue, JudgingSession } from '../../../shared/api';
import { call } from '../../api';
import { afterPaint } from '../../frame';
import { opKey, opQuery } from '../../query';
import { nextToJudge, startPosition } from './queue';

export const queueKey = (session: JudgingSession) => opKey('judging:queue', { session });
export const itemKey = (session: JudgingSession, position: number) => opKey('judging:item', { session, position });

export interface JudgingData {
  queue: JudgingQueue | undefined;
  /** The item on screen (the last one, while the next loads). */
  item: JudgingItem | undefined;
  positions: number[];
  /** The item's index in the queue, -1 before one shows. */
  index: number;
  /** The item on screen is the last one, kept while the one asked for loads: keys wait. */
  placeholder: boolean;
  /** The item a decision that completes this one moves to, once it has been fetched ahead. */
  upcoming: JudgingItem | undefined;
  error: Error | null;
}

/**
 * The queue and the item at the URL's position, as queries. The queue is fetched each time the
 * screen opens and then kept by the decisions themselves; an item, once fetched, is kept. With
 * no position in the URL, the session opens on its first item not done. While one item is read,
 * the ones a key would bring next are fetched ahead (the next to judge, and the next in order), so
 * moving on never waits for the network.
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
  // The item asked for must come: if its fetch never started (a fetch ahead that a fast key
  // overtook on a loaded machine), start it rather than show the last item for good.
  const { isPlaceholderData, fetchStatus, refetch } = itemQuery;
  useEffect(() => {
    if (position !== null && isPlaceholderData && fetchStatus === 'idle') void refetch();
  }, [position, isPlaceholderData, fetchStatus, refetch]);
  const positions = useMemo(() => queue?.items.map((i) => i.position) ?? [], [queue?.items]);
  const index = item ? positions.indexOf(item.position) : -1;

  useEffect(() => {
    if (!queue || position !== null) return;
    const start = startPosition(queue);
    if (start !== undefined) goTo(start);
  }, [queue, position, goTo]);

  const following = index === -1 ? undefined : positions[index + 1];
  const toJudge = queue && item ? nextToJudge(queue, item.position) : undefined;
  useEffect(() => {
    for (const ahead of new Set([toJudge, following])) {
      if (ahead === undefined) continue;
      afterPaint(() => void client.prefetchQuery({ ...opQuery('judging:item', { session, position: ahead }), staleTime: Infinity }));
    }
  }, [client, session, following, toJudge]);

  // Read from the cache only: fetching waits for the paint (above).
  const upcoming = useQuery<JudgingItem>({ queryKey: itemKey(session, toJudge ?? -1), queryFn: skipToken, staleTime: Infinity }).data;

  return { queue, item, positions, index, placeholder: itemQuery.isPlaceholderData, upcoming, error: queueQuery.error ?? itemQuery.error };
}
