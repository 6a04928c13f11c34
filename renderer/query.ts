import {
  defaultScheduler,
  keepPreviousData,
  notifyManager,
  QueryClient,
  useMutation,
  useQuery,
  useQueryClient,
  type QueryKey,
  type UseMutationOptions,
  type UseMutationResult,
  type UseQueryResult,
} from '@tanstack/react-query';
import { useLayoutEffect } from 'react';
import type { Input, Job, OperationName, Output } from '../shared/api';
import { call, subscribe } from './api';
import { afterPaint } from './frame';

/**
 * Server state, through TanStack Query. Every answer is cached under its operation's name and
 * input (`['instance:get', { id: 4 }]`), so two views asking the same thing share one request
 * and one answer. The server says when its data changed (`data:changed`, `job:done`): every
 * query is then marked stale and those on screen fetch again. Mutations write their answer into
 * the cache themselves.
 */

type OpKey<K extends OperationName> = readonly [K, Input<K>];

export function opKey<K extends OperationName>(name: K, input: Input<K>): OpKey<K> {
  return [name, input];
}

/** The query for one call of an operation: its key and how to fetch it. */
export function opQuery<K extends OperationName>(name: K, input: Input<K>): { queryKey: OpKey<K>; queryFn: () => Promise<Output<K>> } {
  return { queryKey: opKey(name, input), queryFn: () => call(name, input) };
}

/**
 * The judging screen keeps its queries current itself (each decision updates them in place), so
 * a change elsewhere only marks them stale, for the next time the screen opens, and never
 * refetches the item being judged. The job list is kept current by the job events.
 */
const isJudging = (key: QueryKey) => typeof key[0] === 'string' && key[0].startsWith('judging:');

const JOBS_KEY = opKey('job:list', {});

/** A job's latest state into the job list: replaced in place, or added at the end. */
function upsertJob(client: QueryClient, job: Job): void {
  client.setQueryData<Job[]>(JOBS_KEY, (jobs = []) => (jobs.some((j) => j.id === job.id) ? jobs.map((j) => (j.id === job.id ? job : j)) : [...jobs, job]));
}

/** The one client of the renderer, listening to the server's events. */
export function createQueryClient(): QueryClient {
  const client = new QueryClient({
    defaultOptions: {
      // The app and its server are local: there is no "offline" to wait for, and a failed
      // call is an answer (shown to the user), not a network blip to retry.
      queries: { networkMode: 'always', retry: false, refetchOnWindowFocus: false, refetchOnReconnect: false },
      mutations: { networkMode: 'always' },
    },
  });
  subscribe((message) => {
    if (message.name === 'job:progress' || message.name === 'job:done') upsertJob(client, message.payload as Job);
    if (message.name === 'data:changed' || message.name === 'job:done') {
      // A finished job sends both events: a refetch already under way is not started again.
      void client.invalidateQueries({ predicate: (query) => !isJudging(query.queryKey) && query.queryKey[0] !== JOBS_KEY[0] }, { cancelRefetch: false });
      void client.invalidateQueries({ predicate: (query) => isJudging(query.queryKey), refetchType: 'none' });
    }
  });
  return client;
}

/**
 * Calls an operation and keeps its answer; `null` as input waits. While a new input loads, the
 * last answer stays on screen (no flash of empty facets or results).
 */
export function useOp<K extends OperationName>(name: K, input: Input<K> | null): UseQueryResult<Output<K>, Error> {
  return useQuery({
    queryKey: [name, input],
    queryFn: () => call(name, input as Input<K>),
    enabled: input !== null,
    placeholderData: keepPreviousData,
  });
}

/** Calls an operation that changes something; `options.onSuccess` puts the answer in the cache. */
export function useOpMutation<K extends OperationName, Context = unknown>(
  name: K,
  options: Omit<UseMutationOptions<Output<K>, Error, Input<K>, Context>, 'mutationFn'> = {},
): UseMutationResult<Output<K>, Error, Input<K>, Context> {
  return useMutation({ mutationKey: [name], mutationFn: (input: Input<K>) => call(name, input), ...options });
}

/** Jobs that are running or finished recently, kept current by the job events. */
export function useJobs(): Job[] {
  const client = useQueryClient();
  return (
    useQuery({
      queryKey: JOBS_KEY,
      // An event that arrived while the list was on its way is newer than the list.
      queryFn: async () => {
        const listed = await call('job:list', {});
        const known = client.getQueryData<Job[]>(JOBS_KEY) ?? [];
        const newer = (job: Job) => known.find((k) => k.id === job.id && k.state !== 'running') ?? job;
        return [...listed.map(newer), ...known.filter((k) => !listed.some((j) => j.id === k.id))];
      },
      staleTime: Infinity,
    }).data ?? []
  );
}

/**
 * While a screen that answers keys from the cache is open (judging), components hear of a change
 * to the cache after the next paint instead of in the next task: the key's own render shows the
 * next item at once, and what follows the cache (save state, counts) catches up in the frame
 * after rather than holding that frame back. Not app-wide: a select bound to the cache would
 * snap back between two quick keys if its update came a frame late.
 */
export function useCacheNewsAfterPaint(): void {
  useLayoutEffect(() => {
    notifyManager.setScheduler(afterPaint);
    return () => notifyManager.setScheduler(defaultScheduler);
  }, []);
}
