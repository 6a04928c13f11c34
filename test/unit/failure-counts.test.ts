import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../db/connection';
import { migrate } from '../../db/migrate';
import { migrations } from '../../db/migrations';
import { placePage } from '../../db/queries/eval-items-failure-counts';
import { chooseFailurePlan, countFailures, failurePageIds, failurePageQuery, FAILURE_SORTS, type FailureFilter } from '../../db/queries/eval-items-failures';
import { all, explain, sql, type WritableDB } from '../../db/sql';
import { fillRun, insertItem, METRIC_SORTS, plainPage, randomFilter, randomThreshold } from '../helpers/failure-items';
import { rng } from '../helpers/synthetic';

/**
 * The failure table's pages placed from the counts of migration 0025: every page equals a plain
 * ORDER BY … LIMIT/OFFSET over the run's items (written here with no index hint and no counts),
 * for random filters, sorts, directions and offsets, on a database migrated from 0024 with items
 * in it (the backfill) and after items are added, updated and deleted and a run is deleted (the
 * triggers); and the counts kept by the triggers equal those the backfill computes from scratch.
 */

function expectPagesPlain(db: WritableDB, runIds: number[], seed: number, queries: number): void {
  const random = rng(seed);
  for (let q = 0; q < queries; q++) {
    const runId = runIds[q % runIds.length]!;
    const filter = randomFilter(random);
    const sort = FAILURE_SORTS[Math.floor(random() * FAILURE_SORTS.length)]!;
    if (sort !== 'position' && random() < 0.4) filter.thresholds = [randomThreshold(db, runId, sort, random)];
    const direction = random() < 0.5 ? 'asc' : 'desc';
    const total = filter.thresholds ? plainPage(db, runId, filter, 'position', 'asc', 1e9, 0).length : countFailures(db, runId, filter);
    // Near the start (where a threshold's stretch may begin inside a bucket), near the end, anywhere.
    const where = random();
    const offset = where < 0.15 ? Math.floor(random() * 5) : where < 0.25 ? Math.max(0, total - Math.floor(random() * 60)) : Math.floor(random() * (total + 10));
    const limit = 1 + Math.floor(random() * 120);
    expect(chooseFailurePlan(db, runId, filter, sort, offset + limit)).toBe('counts');
    const label = JSON.stringify({ runId, filter, sort, direction, offset, limit });
    expect(failurePageIds(db, runId, filter, sort, direction, limit, offset, 'counts'), label).toEqual(plainPage(db, runId, filter, sort, direction, limit, offset));
    expect(total, label).toBe(plainPage(db, runId, filter, 'position', 'asc', 1e9, 0).length);
  }
}

type Block = Record<string, number | string>;
const blocks = (db: WritableDB) => all<Block>(db, sql`SELECT * FROM eval_item_blocks WHERE n > 0 ORDER BY run_id, sort, level, k1, k2, k3, status, ambiguity_type, collapsed, retrieval_miss`);

/** The counts migration 0025 computes from scratch for the same items. */
function backfilledBlocks(db: WritableDB): Block[] {
  const fresh = openDatabase(':memory:', { migrate: false });
  migrate(fresh, migrations.slice(0, 24));
  const runs = db.prepare('SELECT * FROM eval_runs').all() as Record<string, unknown>[];
  const items = db.prepare('SELECT * FROM eval_items').all() as Record<string, unknown>[];
  const copy = (table: string, rows: Record<string, unknown>[]) => {
    if (rows.length === 0) return;
    const columns = Object.keys(rows[0]!);
    const insert = fresh.prepare(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map((c) => `@${c}`).join(', ')})`);
    for (const r of rows) insert.run(r);
  };
  fresh.pragma('foreign_keys = OFF');
  fresh.transaction(() => {
    copy('runs', db.prepare("SELECT * FROM runs WHERE kind = 'evaluation'").all() as Record<string, unknown>[]);
    copy('eval_runs', runs);
    copy('eval_items', items);
  })();
  migrate(fresh);
  const result = blocks(fresh);
  fresh.close();
  return result;
}

describe('failure pages placed from counts (migration 0025)', () => {
  it('backfills the counts of existing runs, and every page equals a plain sort', () => {
    const db = openDatabase(':memory:', { migrate: false });
    migrate(db, migrations.slice(0, 24));
    const runs = [fillRun(db, 3000, 3), fillRun(db, 400, 4)];
    migrate(db);
    expect(blocks(db).length).toBeGreaterThan(100);
    expectPagesPlain(db, runs, 1, 400);
    db.close();
  });

  it('keeps the counts as items are added, updated and deleted and a run is deleted, pages equal to a plain sort throughout', () => {
    const db = openDatabase(':memory:');
    const runs = [fillRun(db, 2500, 5), fillRun(db, 600, 6), fillRun(db, 300, 7)];
    expectPagesPlain(db, runs, 2, 150);
    const random = rng(9);
    db.transaction(() => {
      for (let i = 0; i < 300; i++) insertItem(db, runs[0]!, 100_000 + i * 3, random);
      const ids = (db.prepare('SELECT id FROM eval_items WHERE run_id IN (?, ?) ORDER BY id').all(runs[0], runs[1]) as { id: number }[]).map((r) => r.id);
      for (let i = 0; i < 600; i++) {
        const id = ids[Math.floor(random() * ids.length)]!;
        const metric = METRIC_SORTS[Math.floor(random() * METRIC_SORTS.length)]!;
        const value = metric === 'cost_usd' ? random() / 10 : random() < 0.2 ? null : Math.floor(random() * 40) / 8;
        db.prepare(`UPDATE eval_items SET ${metric} = ? WHERE id = ?`).run(value, id);
        if (random() < 0.3) db.prepare("UPDATE eval_items SET status = 'failed', error = 'x', collapsed = NULL WHERE id = ?").run(id);
        if (random() < 0.2) db.prepare('UPDATE eval_items SET retrieval_miss = 1 - coalesce(retrieval_miss, 0), position = position + 1 WHERE id = ?').run(id);
      }
      for (let i = 0; i < 200; i++) db.prepare('DELETE FROM eval_items WHERE id = ?').run(ids[Math.floor(random() * ids.length)]);
    })();
    expectPagesPlain(db, runs, 3, 300);
    // As the app deletes a run: its `runs` row, the cascade taking its eval_runs row and items.
    db.prepare('DELETE FROM runs WHERE id = ?').run(runs[1]);
    expect(db.prepare('SELECT count(*) AS n FROM eval_items WHERE run_id = ?').get(runs[1])).toEqual({ n: 0 });
    expect(db.prepare('SELECT count(*) AS n FROM eval_item_blocks WHERE run_id = ?').get(runs[1])).toEqual({ n: 0 });
    expectPagesPlain(db, [runs[0]!, runs[2]!], 4, 150);
    expect(blocks(db)).toEqual(backfilledBlocks(db));
    db.close();
  });

  it('walks a covering index from the block placed, over a range of it, and reads the counts through their key', () => {
    const db = openDatabase(':memory:');
    const runId = fillRun(db, 3000, 8);
    db.exec('ANALYZE');
    const filters: FailureFilter[] = [{}, { type: 'semantic' }, { collapsed: true, status: 'done' }];
    for (const sort of FAILURE_SORTS) {
      for (const filter of filters) {
        for (const direction of ['asc', 'desc'] as const) {
          const placed = placePage(db, runId, filter, sort, direction, 150)!;
          expect(placed.valueless).toBe(false);
          const plan = explain(db, failurePageQuery(runId, filter, sort, direction, 100, placed.skip, 'counts', placed.start)).join(' | ');
          // A range after the run (and the type): the walk starts at the block, not at the run's first item.
          expect(plan, `${sort} ${direction} ${JSON.stringify(filter)}`).toMatch(/^SEARCH a USING COVERING INDEX failures_by_\w+ \(run_id=\? (AND ambiguity_type=\? )?AND .*[<>]/);
          expect(plan).not.toMatch(/TEMP B-TREE/);
        }
      }
    }
    const counts = explain(db, sql`SELECT k2, sum(n) FROM eval_item_blocks WHERE run_id = ${runId} AND sort = 'str_em' AND level = 2 AND k1 = 5 AND collapsed = 1 GROUP BY k2 ORDER BY k2 DESC`);
    expect(counts.join(' | ')).toBe('SEARCH eval_item_blocks USING PRIMARY KEY (run_id=? AND sort=? AND level=? AND k1=?)');
    db.close();
  });

  it('says how many matching items with a value follow the page, so a page past the last of them does not walk the rest of the index', () => {
    const db = openDatabase(':memory:');
    const runId = fillRun(db, 3000, 9);
    // The failed items all cost nothing and come first by cost; every other item costs something.
    db.exec(`UPDATE eval_items SET cost_usd = CASE WHEN status = 'failed' THEN 0 ELSE 0.001 + cost_usd END WHERE run_id = ${runId}; ANALYZE;`);
    const failed = { status: 'failed' } as const;
    const total = countFailures(db, runId, failed);
    for (const offset of [0, total - 30, total - 1, total]) {
      const placed = placePage(db, runId, failed, 'cost_usd', 'asc', offset);
      if (offset >= total) {
        expect(placed).toBeNull();
        continue;
      }
      expect(placed!.valuedLeft).toBe(total - offset);
      expect(failurePageIds(db, runId, failed, 'cost_usd', 'asc', 100, offset, 'counts')).toEqual(plainPage(db, runId, failed, 'cost_usd', 'asc', 100, offset));
    }
    // Descending, the same items (one value, by position) from the other end.
    const placed = placePage(db, runId, failed, 'cost_usd', 'desc', total - 20)!;
    expect(placed.valuedLeft).toBe(20);
    expect(failurePageIds(db, runId, failed, 'cost_usd', 'desc', 100, total - 20, 'counts')).toEqual(plainPage(db, runId, failed, 'cost_usd', 'desc', 100, total - 20));
    db.close();
  });
});
