import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../db/connection';
import { migrate } from '../../db/migrate';
import { migrations } from '../../db/migrations';
import { snapshotCount, snapshotPageIds } from '../../db/queries/eval-items-failure-snapshot';
import { countFailures, failurePageIds, FAILURE_SORTS, type FailureFilter } from '../../db/queries/eval-items-failures';
import { setEvalRunStatus } from '../../db/queries/eval-runs';
import type { WritableDB } from '../../db/sql';
import { tempDir } from '../helpers/db';
import { fillRun, insertItem, METRIC_SORTS, plainPage, randomFilter, type Random } from '../helpers/failure-items';
import { rng } from '../helpers/synthetic';

/**
 * A finished run's failure pages read from memory (db/queries/eval-items-failure-snapshot.ts):
 * every page and count equals a plain ORDER BY … LIMIT/OFFSET over the run's items, for random
 * filters (thresholds on any metrics), sorts, directions and offsets, with positions in a row or
 * with gaps; after items change, the pages follow (migration 0031's version); a running run, a
 * transaction and filters on other tables are left to SQLite.
 */

/** A threshold on any metric, between 0 and 1 (latency's values are larger: then it matches all or none). */
function randomThresholds(random: Random): NonNullable<FailureFilter['thresholds']> {
  const count = random() < 0.4 ? 0 : random() < 0.7 ? 1 : 2;
  return Array.from({ length: count }, () => {
    const metric = METRIC_SORTS[Math.floor(random() * METRIC_SORTS.length)]!;
    const scale = metric === 'latency_ms' ? 3200 : metric === 'judge_mean' ? 5 : metric === 'cost_usd' ? 0.02 : 1;
    const [x, y] = [Math.floor(random() * 9) / 8, Math.floor(random() * 9) / 8].sort((a, b) => a - b).map((v) => v * scale);
    const kind = random();
    // Now and then neither bound: it tests nothing (items without a value stay).
    if (kind < 0.05) return { metric };
    return kind < 0.37 ? { metric, atLeast: x! } : kind < 0.7 ? { metric, below: y! } : { metric, atLeast: x!, below: y! };
  });
}

function finishedRuns(db: WritableDB): number[] {
  const runs = [fillRun(db, 2000, 21, 1), fillRun(db, 700, 22, 7)];
  for (const run of runs) setEvalRunStatus(db, run, 'done', null);
  return runs;
}

function expectPagesFromMemory(db: WritableDB, runIds: number[], seed: number, queries: number): void {
  const random = rng(seed);
  for (let q = 0; q < queries; q++) {
    const runId = runIds[q % runIds.length]!;
    const filter = randomFilter(random);
    const thresholds = randomThresholds(random);
    if (thresholds.length) filter.thresholds = thresholds;
    const sort = FAILURE_SORTS[Math.floor(random() * FAILURE_SORTS.length)]!;
    const direction = random() < 0.5 ? 'asc' : 'desc';
    const total = plainPage(db, runId, filter, 'position', 'asc', 1e9, 0).length;
    const where = random();
    const offset = where < 0.2 ? Math.floor(random() * 5) : where < 0.35 ? Math.max(0, total - Math.floor(random() * 60)) : Math.floor(random() * (total + 10));
    const limit = 1 + Math.floor(random() * 120);
    const label = JSON.stringify({ runId, filter, sort, direction, offset, limit });
    const page = snapshotPageIds(db, runId, filter, sort, direction, limit, offset);
    expect(page, label).not.toBeNull();
    expect(page, label).toEqual(plainPage(db, runId, filter, sort, direction, limit, offset));
    expect(failurePageIds(db, runId, filter, sort, direction, limit, offset), label).toEqual(page);
    expect(failurePageIds(db, runId, filter, sort, direction, limit, offset, 'filter-then-sort'), label).toEqual(page);
    expect(snapshotCount(db, runId, filter), label).toBe(total);
    expect(countFailures(db, runId, filter), label).toBe(total);
  }
}

const version = (db: WritableDB, run: number) => (db.prepare('SELECT version FROM eval_item_versions WHERE run_id = ?').get(run) as { version: number } | undefined)?.version;

describe("a finished run's failure pages from memory", () => {
  it('equal a plain sort for any filter, sort, direction and offset, positions in a row or with gaps', () => {
    const db = openDatabase(':memory:');
    expectPagesFromMemory(db, finishedRuns(db), 1, 500);
    db.close();
  });

  it('follow the items as they are added, changed and deleted, and as a run is deleted', () => {
    const db = openDatabase(':memory:');
    const runs = finishedRuns(db);
    expectPagesFromMemory(db, runs, 2, 60);
    const random = rng(3);
    // The run's items now (an item inserted joins them, a deleted one leaves), so every step changes one.
    const ids = (db.prepare('SELECT id FROM eval_items WHERE run_id = ? ORDER BY id').all(runs[0]) as { id: number }[]).map((r) => r.id);
    const any = () => ids[Math.floor(random() * ids.length)]!;
    let added = 0;
    const steps: (() => void)[] = [
      () => {
        const position = 5000 + added++;
        insertItem(db, runs[0]!, position, random);
        ids.push((db.prepare('SELECT id FROM eval_items WHERE run_id = ? AND position = ?').get(runs[0], position) as { id: number }).id);
      },
      () => db.prepare('UPDATE eval_items SET rouge_l = ? WHERE id = ?').run(random() < 0.5 ? 7 : -1, any()),
      () => db.prepare("UPDATE eval_items SET status = 'failed', error = 'x', collapsed = 1 - coalesce(collapsed, 0) WHERE id = ?").run(any()),
      () => db.prepare('UPDATE eval_items SET position = position + 100000 WHERE id = ?').run(any()),
      () => db.prepare("UPDATE eval_items SET ambiguity_type = 'novel' || ? WHERE id = ?").run(added, any()),
      () => db.prepare('DELETE FROM eval_items WHERE id = ?').run(ids.splice(Math.floor(random() * ids.length), 1)[0]),
    ];
    for (let round = 0; round < 12; round++) {
      const before = version(db, runs[0]!)!;
      steps[round % steps.length]!();
      expect(version(db, runs[0]!)).toBeGreaterThan(before);
      expectPagesFromMemory(db, [runs[0]!], 10 + round, 15);
    }
    // A column the table neither filters nor sorts on leaves the version (and the memory) alone.
    const before = version(db, runs[0]!);
    db.prepare("UPDATE eval_items SET notes = '[\"seen\"]' WHERE id = ?").run(ids[0]);
    expect(version(db, runs[0]!)).toBe(before);
    // A deleted run's version stays, so a later run given its id starts past it, and the pages
    // kept of the old run are not served for the new one.
    const last = runs[1]!;
    expectPagesFromMemory(db, [last], 30, 10);
    const deleted = version(db, last)!;
    db.prepare('DELETE FROM runs WHERE id = ?').run(last);
    expect(version(db, last)).toBeGreaterThan(deleted);
    expect(snapshotPageIds(db, last, {}, 'position', 'asc', 10, 0)).toBeNull();
    const reborn = fillRun(db, 300, 31, 2);
    expect(reborn).toBe(last);
    setEvalRunStatus(db, reborn, 'done', null);
    expect(version(db, reborn)).toBeGreaterThan(deleted);
    expectPagesFromMemory(db, [reborn], 32, 20);
    db.close();
  });

  it('follow what another connection to the file commits (another process writing it)', () => {
    const tmp = tempDir('awb-failure-snapshot-');
    const reader = openDatabase(tmp.file('items.db'));
    const writer = openDatabase(tmp.file('items.db'));
    try {
      const [run] = finishedRuns(writer);
      const page = () => snapshotPageIds(reader, run!, { thresholds: [{ metric: 'rouge_l', atLeast: 0.5 }] }, 'rouge_l', 'desc', 20, 0);
      const before = page();
      expect(before).toEqual(plainPage(writer, run!, { thresholds: [{ metric: 'rouge_l', atLeast: 0.5 }] }, 'rouge_l', 'desc', 20, 0));
      // The last item of the page rises to the top; an item outside it drops out of the filter.
      writer.prepare('UPDATE eval_items SET rouge_l = 2 WHERE id = ?').run(before![19]);
      writer.prepare('UPDATE eval_items SET rouge_l = 0.1 WHERE id = ?').run(before![0]);
      const after = page();
      expect(after![0]).toBe(before![19]);
      expect(after).not.toContain(before![0]);
      expect(after).toEqual(plainPage(writer, run!, { thresholds: [{ metric: 'rouge_l', atLeast: 0.5 }] }, 'rouge_l', 'desc', 20, 0));
    } finally {
      reader.close();
      writer.close();
      tmp.cleanup();
    }
  });

  it('are left to SQLite while the run runs, inside a transaction, and for filters on tags or another run', () => {
    const db = openDatabase(':memory:');
    const [run] = finishedRuns(db);
    const running = fillRun(db, 50, 4);
    expect(snapshotPageIds(db, running, {}, 'position', 'asc', 10, 0)).toBeNull();
    expect(snapshotCount(db, running, {})).toBeNull();
    expect(failurePageIds(db, running, {}, 'rouge_l', 'desc', 10, 0)).toEqual(plainPage(db, running, {}, 'rouge_l', 'desc', 10, 0));
    db.transaction(() => {
      expect(snapshotPageIds(db, run!, {}, 'position', 'asc', 10, 0)).toBeNull();
    })();
    expect(snapshotPageIds(db, run!, { tagId: 1 }, 'position', 'asc', 10, 0)).toBeNull();
    expect(snapshotPageIds(db, run!, { versus: { run: running, metric: 'str_em', threshold: 0.5, mode: 'a-right-b-wrong' } }, 'position', 'asc', 10, 0)).toBeNull();
    expect(snapshotPageIds(db, run!, {}, 'position', 'asc', 10, 0)).toEqual(plainPage(db, run!, {}, 'position', 'asc', 10, 0));
    db.close();
  });

  it('start from a version per run with items, when migration 0031 meets existing runs', () => {
    const db = openDatabase(':memory:', { migrate: false });
    migrate(db, migrations.slice(0, 30));
    const [run, other] = [fillRun(db, 30, 5), fillRun(db, 0, 6)];
    migrate(db);
    expect(version(db, run!)).toBe(1);
    expect(version(db, other!)).toBeUndefined();
    setEvalRunStatus(db, run!, 'done', null);
    expect(snapshotPageIds(db, run!, {}, 'str_em', 'asc', 100, 0)).toEqual(plainPage(db, run!, {}, 'str_em', 'asc', 100, 0));
    db.close();
  });
});
