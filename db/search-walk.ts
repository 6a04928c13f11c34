/**
 * A searched page sorted by a column, walked to when that is cheaper than taking every match of
 * the search and sorting them (the instance table's: db/queries/instances-search.ts; the base
 * question table's search has no prefix indexes, which makes its lookups too slow for this).
 *
 * The walk follows the sort's own index and tests each row the other filters keep against the
 * search as it comes (an FTS5 lookup by rowid), stopping once the page is full. It costs about
 * (offset + limit) lookups divided by the share of rows the search matches, so it wins when the
 * search matches many rows and the page is near the start, and loses when the search matches few
 * rows, which are cheap to sort. The matches are first counted up to a small cap: a search under
 * it is sorted. Above it the share is unknown, so the walk goes in windows: after each, the share
 * seen so far estimates what the rest of the walk and the sort would cost, and the walk gives way
 * to the sort when the sort would cost less. Either way the page is the same: the rows matching
 * everything, in the sort's order, from the offset.
 *
 * Rough costs in microseconds, measured at 1,000,000 instances on the bench machine (2026-11-26):
 * testing one row against the search (6-7 µs when the index is one segment, as bulk writers leave
 * it; 17-40 µs with the many segments that rows rewritten since leave behind, so the estimate sits
 * between); reading one index entry of a walk (more where each entry joins another table); and
 * taking every match and sorting them, which reads the whole table against the matches (290 ms
 * when all 1,000,000 instances match, 165 ms when 400,000 do).
 */

const PROBE_US = 12;
const SORT_PER_ROW_US = 0.11;
const SORT_PER_MATCH_US = 0.18;
/** The search's matches are counted up to this many, or a sixteenth of the table (a fraction of a millisecond at any size). */
const FEW_MATCHES = 4096;
/** A first window small enough to cost little when the search turns out to match few rows. */
const FIRST_WINDOW = 256;

export interface SearchWalk {
  offset: number;
  limit: number;
  /** Rows the filters other than the search keep, and rows in the table. */
  filtered: number;
  total: number;
  /** Microseconds to read one entry of the sort's index. */
  entryUs: number;
  /** How many rows the search matches, counted up to `cap`. */
  countMatches(cap: number): number;
  /** The filtered rows in the sort's order from `start`, at most `size`: each id, and 1 if it matches the search. */
  window(start: number, size: number): Iterable<readonly [number, number]>;
}

/**
 * The page's ids; or, when sorting every match costs less, whether the search matches fewer rows
 * than the cap (`few`: then reading the matches first and sorting them is cheapest) or more
 * (`many`). The caller then reads the page that way.
 */
export function walkSearch(walk: SearchWalk): number[] | 'few' | 'many' {
  if (walk.filtered === 0 || walk.total === 0) return 'few';
  const cap = Math.min(FEW_MATCHES, Math.ceil(walk.total / 16));
  if (walk.countMatches(cap) < cap) return 'few';
  const need = walk.offset + walk.limit;
  // Each row the filters keep costs a lookup, and the index entries walked past to reach it.
  const perRow = PROBE_US + walk.entryUs * (walk.total / walk.filtered);
  const sortAll = (matches: number) => SORT_PER_ROW_US * walk.total + SORT_PER_MATCH_US * matches;
  const hits: number[] = [];
  let walked = 0;
  let size = Math.min(need, FIRST_WINDOW);
  for (;;) {
    let seen = 0;
    for (const [id, hit] of walk.window(walked, size)) {
      seen++;
      if (hit && hits.push(id) === need) break;
    }
    walked += seen;
    if (hits.length === need || seen < size) return hits.slice(walk.offset);
    // The share of rows the search matches so far (one more, so that none seen is not "never").
    const share = (hits.length + 1) / walked;
    const rest = (need - hits.length) / share;
    if (rest * perRow > sortAll(Math.max(cap, share * walk.total))) return 'many';
    size = Math.ceil(2 * rest);
  }
}
