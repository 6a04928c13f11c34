import { releaseEntries } from '../../../db/queries/releases';
import type { ReadableDB } from '../../../db/sql';
import type { DiffKind, ReleaseDiff, ReleaseDiffRow, SplitDiffRow } from '../../../shared/api';
import { changedFields, fieldChanges, mergeByKey, questionOf } from '../../../shared/release/diff';
import { FrozenRecords } from './frozen';
import { releaseRow } from './read';

/**
 * The diff between two releases: every instance counted once as moved (glossary: split move),
 * added, removed, changed or unchanged; moves counted per pair of splits and listed first; a table
 * per split; and, for the instances listed, the question and field-level before and after. Records
 * are decoded only for the rows listed, so a large diff costs the key merge, not the records.
 */

type Entry = ReturnType<typeof releaseEntries>[number];

const byKey = (x: { key: string }, y: { key: string }) => (x.key < y.key ? -1 : x.key > y.key ? 1 : 0);

class SplitTable {
  private readonly rows = new Map<string, SplitDiffRow>();

  row(split: string): SplitDiffRow {
    let row = this.rows.get(split);
    if (!row) {
      row = { split, before: 0, after: 0, added: 0, removed: 0, movedIn: 0, movedOut: 0, changed: 0, unchanged: 0 };
      this.rows.set(split, row);
    }
    return row;
  }

  sorted(): SplitDiffRow[] {
    return [...this.rows.values()].sort((x, y) => byKey({ key: x.split }, { key: y.split }));
  }
}

/** Lists rows per kind up to the limit, decoding records only for the rows it keeps. */
class RowLister {
  readonly listed: Record<DiffKind, ReleaseDiffRow[]> = { moved: [], added: [], removed: [], changed: [] };
  truncated = false;

  constructor(
    private readonly frozen: FrozenRecords,
    private readonly kinds: ReadonlySet<DiffKind>,
    private readonly limit: number,
  ) {}

  add(change: DiffKind, a: Entry | null, b: Entry | null): void {
    if (!this.kinds.has(change)) return;
    if (this.listed[change].length >= this.limit) {
      this.truncated = true;
      return;
    }
    const before = a ? this.frozen.record<unknown>(a) : null;
    const after = b ? this.frozen.record<unknown>(b) : null;
    const contentChanged = a !== null && b !== null && a.hash !== b.hash;
    this.listed[change].push({
      key: (a ?? b)!.key,
      change,
      fields: contentChanged ? changedFields(before, after) : [],
      splitA: a?.split ?? null,
      splitB: b?.split ?? null,
      question: questionOf(after ?? before),
      instanceId: b?.instanceId ?? a?.instanceId ?? null,
      changes: contentChanged ? fieldChanges(before, after) : [],
    });
  }

  rows(): ReleaseDiffRow[] {
    const all = [...this.listed.moved, ...this.listed.added, ...this.listed.removed, ...this.listed.changed];
    if (all.length > this.limit) this.truncated = true;
    return all.slice(0, this.limit);
  }
}

export function diffReleases(db: ReadableDB, a: number, b: number, limit: number, kinds: readonly DiffKind[] = []): ReleaseDiff {
  const ra = releaseRow(db, a);
  const rb = releaseRow(db, b);
  const left = releaseEntries(db, a).sort(byKey);
  const right = releaseEntries(db, b).sort(byKey);
  const frozen = new FrozenRecords(db, FrozenRecords.chunksFor(new Set([...left, ...right].map((e) => e.split)).size * 2));
  const lister = new RowLister(frozen, new Set(kinds.length ? kinds : (['moved', 'added', 'removed', 'changed'] as const)), limit);
  const splits = new SplitTable();
  const counts = { moved: 0, added: 0, removed: 0, changed: 0, unchanged: 0 };
  const moves = new Map<string, { from: string; to: string; count: number }>();
  for (const x of left) splits.row(x.split).before++;
  for (const y of right) splits.row(y.split).after++;
  for (const event of mergeByKey(left, right)) {
    if (event.change === 'added') {
      counts.added++;
      splits.row(event.b.split).added++;
      lister.add('added', null, event.b);
    } else if (event.change === 'removed') {
      counts.removed++;
      splits.row(event.a.split).removed++;
      lister.add('removed', event.a, null);
    } else if (event.a.split !== event.b.split) {
      counts.moved++;
      splits.row(event.a.split).movedOut++;
      splits.row(event.b.split).movedIn++;
      const pair = `${event.a.split}\u0000${event.b.split}`;
      const move = moves.get(pair) ?? { from: event.a.split, to: event.b.split, count: 0 };
      move.count++;
      moves.set(pair, move);
      lister.add('moved', event.a, event.b);
    } else if (event.change === 'changed') {
      counts.changed++;
      splits.row(event.a.split).changed++;
      lister.add('changed', event.a, event.b);
    } else {
      counts.unchanged++;
      splits.row(event.a.split).unchanged++;
    }
  }
  const rows = lister.rows();
  return {
    a: { id: ra.id, name: ra.name, version: ra.version },
    b: { id: rb.id, name: rb.name, version: rb.version },
    ...counts,
    moves: [...moves.values()].sort((x, y) => y.count - x.count || byKey({ key: x.from + x.to }, { key: y.from + y.to })),
    perSplit: splits.sorted(),
    rows,
    truncated: lister.truncated,
  };
}
