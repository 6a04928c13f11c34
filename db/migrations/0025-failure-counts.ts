import type BetterSqlite3 from 'better-sqlite3';
import type { Migration } from '../migrate';

/**
 * Where each evaluated item stands in every sort order of the failure table, kept by triggers, so
 * that a page at any offset is placed from counts instead of walking the sort index up to it
 * (issue 24; the reading side is db/queries/eval-items-failure-counts.ts). `eval_item_blocks`
 * counts a run's items per combination of the filter columns (status, type, collapsed, retrieval
 * miss; a missing flag counted as 0, as the filter reads it) per key of each level of each order:
 *
 * - `position`: level 1 is the block of 2^14 positions, level 2 the block of 2^9 within it.
 * - a metric (items ordered by value, then position; items without a value last, by position):
 *   level 1 is a coarse bucket of values, level 2 a fine bucket within it, written 2f for the
 *   items whose value is exactly the bucket's lower bound and 2f + 1 for those strictly between
 *   it and the next bound. An exact bucket holds one value, so its items run in position order
 *   and level 3 splits it by blocks of 2^11 positions. Items without a value have the coarse key
 *   NULL_KEY and, at level 2, blocks of 2^11 positions.
 *
 * Bucket k of a step num/den is the values from (k·num)/den (a correctly rounded division, the
 * same double in SQLite and in JavaScript) up to the next bound: the key is a floor, corrected by
 * one against those bounds, so a reader comparing values with the bounds agrees with the counts.
 * This file is frozen once shipped: the reader repeats its constants (and its test checks them).
 */

/** Above every value bucket (2^50: a safe integer, bound from JavaScript exactly). */
export const NULL_KEY = 1125899906842624;
export const POSITION_SHIFTS = [14, 9] as const;
export const VALUE_BLOCK_SHIFT = 11;
/** Per metric, the coarse and fine steps as [num, den]. */
export const STEPS = {
  str_em: { coarse: [1, 10], fine: [1, 1000] },
  disambig_f1: { coarse: [1, 10], fine: [1, 1000] },
  rouge_l: { coarse: [1, 10], fine: [1, 1000] },
  judge_mean: { coarse: [1, 10], fine: [1, 1000] },
  latency_ms: { coarse: [100, 1], fine: [1, 1] },
  cost_usd: { coarse: [1, 1000], fine: [1, 100000] },
} as const satisfies Record<string, { coarse: readonly [number, number]; fine: readonly [number, number] }>;

type Step = readonly [number, number];
type Key = { sort: string; level: number; k1: string; k2: string; k3: string; when: string };

const bound = (k: string, [num, den]: Step) => `(CAST((${k}) * ${num} AS REAL) / ${den})`;

/** The bucket of value `v` for a step: a floor, corrected by one against the bounds. */
function bucket(v: string, step: Step): string {
  const guess = `CAST(floor(${v} * ${step[1]} / ${step[0]}) AS INTEGER)`;
  return `(${guess} - (${v} < ${bound(guess, step)}) + (${v} >= ${bound(`${guess} + 1`, step)}))`;
}

/** The keys of row `r` (new, old, or an eval_items alias) at every level of every order. */
export function keysOf(r: string): Key[] {
  const [coarse, fine] = POSITION_SHIFTS;
  const keys: Key[] = [
    { sort: 'position', level: 1, k1: `${r}.position >> ${coarse}`, k2: '0', k3: '0', when: 'true' },
    { sort: 'position', level: 2, k1: `${r}.position >> ${coarse}`, k2: `${r}.position >> ${fine}`, k3: '0', when: 'true' },
  ];
  for (const [metric, step] of Object.entries(STEPS)) {
    const v = `${r}.${metric}`;
    const f = bucket(v, step.fine);
    const block = `${r}.position >> ${VALUE_BLOCK_SHIFT}`;
    const k1 = `CASE WHEN ${v} IS NULL THEN ${NULL_KEY} ELSE ${bucket(v, step.coarse)} END`;
    const k2 = `CASE WHEN ${v} IS NULL THEN ${block} ELSE 2 * ${f} + (${v} <> ${bound(f, step.fine)}) END`;
    keys.push(
      { sort: metric, level: 1, k1, k2: '0', k3: '0', when: 'true' },
      { sort: metric, level: 2, k1, k2, k3: '0', when: 'true' },
      { sort: metric, level: 3, k1, k2, k3: block, when: `${v} IS NOT NULL AND ${v} = ${bound(f, step.fine)}` },
    );
  }
  return keys;
}

const CELL = ['status', 'ambiguity_type', 'collapsed', 'retrieval_miss'];
const cellOf = (r: string) => [`${r}.status`, `${r}.ambiguity_type`, `coalesce(${r}.collapsed, 0)`, `coalesce(${r}.retrieval_miss, 0)`];
const COLUMNS = `run_id, sort, level, k1, k2, k3, ${CELL.join(', ')}, n`;
const MOVES = ['run_id', 'position', ...CELL, ...Object.keys(STEPS)];

function add(r: string): string {
  return keysOf(r)
    .map(
      (k) => `INSERT INTO eval_item_blocks (${COLUMNS}) SELECT ${r}.run_id, '${k.sort}', ${k.level}, ${k.k1}, ${k.k2}, ${k.k3}, ${cellOf(r).join(', ')}, 1
              WHERE ${k.when} ON CONFLICT DO UPDATE SET n = n + 1;`,
    )
    .join('\n');
}

function remove(r: string): string {
  return keysOf(r)
    .map(
      (k) => `UPDATE eval_item_blocks SET n = n - 1
              WHERE ${k.when} AND (run_id, sort, level, k1, k2, k3, ${CELL.join(', ')}) = (${r}.run_id, '${k.sort}', ${k.level}, ${k.k1}, ${k.k2}, ${k.k3}, ${cellOf(r).join(', ')});`,
    )
    .join('\n');
}

function backfill(db: BetterSqlite3.Database): void {
  for (const k of keysOf('i')) {
    db.exec(`INSERT INTO eval_item_blocks (${COLUMNS})
             SELECT i.run_id, '${k.sort}', ${k.level}, ${k.k1}, ${k.k2}, ${k.k3}, ${cellOf('i').join(', ')}, count(*) FROM eval_items i
             WHERE ${k.when} GROUP BY 1, 4, 5, 6, 7, 8, 9, 10;`);
  }
}

export const failureCounts: Migration = {
  version: 25,
  name: 'failure-counts',
  up(db) {
    db.exec(`
      CREATE TABLE eval_item_blocks (
        run_id INTEGER NOT NULL,
        sort TEXT NOT NULL,
        level INTEGER NOT NULL,
        k1 INTEGER NOT NULL,
        k2 INTEGER NOT NULL,
        k3 INTEGER NOT NULL,
        status TEXT NOT NULL,
        ambiguity_type TEXT NOT NULL,
        collapsed INTEGER NOT NULL,
        retrieval_miss INTEGER NOT NULL,
        n INTEGER NOT NULL CHECK (n >= 0),
        PRIMARY KEY (run_id, sort, level, k1, k2, k3, status, ambiguity_type, collapsed, retrieval_miss)
      ) STRICT, WITHOUT ROWID;
    `);
    backfill(db);
    const changed = MOVES.map((c) => `old.${c} IS NOT new.${c}`).join(' OR ');
    db.exec(`
      CREATE TRIGGER eval_item_blocks_insert AFTER INSERT ON eval_items BEGIN ${add('new')} END;
      CREATE TRIGGER eval_item_blocks_delete AFTER DELETE ON eval_items BEGIN ${remove('old')} END;
      CREATE TRIGGER eval_item_blocks_update AFTER UPDATE OF ${MOVES.join(', ')} ON eval_items WHEN ${changed} BEGIN
        ${remove('old')}
        ${add('new')}
      END;
      CREATE TRIGGER eval_item_blocks_run_delete AFTER DELETE ON eval_runs BEGIN
        DELETE FROM eval_item_blocks WHERE run_id = old.id;
      END;
    `);
  },
};
