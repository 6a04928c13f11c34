import { InstanceQuery, INSTANCE_SORT_COLUMNS, type InstanceFilter } from '../../shared/api';
import { rng } from './synthetic';

/**
 * Seeded queries of the instance table for tests that compare two ways to the same pages: a
 * filter from the list, every sort, both directions, the offsets `offset` draws, pages of 1-`maxLimit`
 * rows, and a search when `search` is given.
 */
export function randomInstanceQueries(
  seed: number,
  count: number,
  options: {
    filters: Partial<InstanceFilter>[];
    offset: (random: () => number) => number;
    maxLimit: number;
    search?: (random: () => number) => string;
    /** The sorts to draw from (all by default). */
    sorts?: readonly InstanceQuery['sort'][];
  },
): InstanceQuery[] {
  const random = rng(seed);
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
  return Array.from({ length: count }, () =>
    InstanceQuery.parse({
      ...pick(options.filters),
      ...(options.search ? { search: options.search(random) } : {}),
      sort: pick(options.sorts ?? INSTANCE_SORT_COLUMNS),
      direction: random() < 0.5 ? 'asc' : 'desc',
      offset: options.offset(random),
      limit: 1 + Math.floor(random() * options.maxLimit),
    }),
  );
}
