import { all, get, sql, type ReadableDB, type SqlFragment, type SqlValue } from '../sql';
import { and, byBaseQuestion, CELL, FENCES, keyOf, type Fence, type FenceOrder, type FenceSort } from './instances-order';

/**
 * Checks of what the triggers keep for the instance table's pages (instances-order.ts): the block
 * counts, the fences and their counts, and the question order's table, each recounted from the
 * instances and their base questions themselves. Tests and migrations call them; a page never
 * does (it checks the totals only, and walks when they disagree).
 */

/** The question order through the base questions' index, as before migration 0033: what its table and fences are checked against. */
const QUESTION_BY_JOIN = byBaseQuestion('question', 'instance_fences_question', 'base_questions_question');

/**
 * Differences between the kept counts and a recount from the rows themselves (empty when they
 * agree): every block count, and every fence's size and counts under the fences as they stand.
 */
export function orderCountErrors(db: ReadableDB): string[] {
  const errors: string[] = [];
  const blocks = all<{ kind: string; shift: number; block: number; kept: number; actual: number }>(
    db,
    sql`SELECT k.kind, k.shift, k.block, k.kept, coalesce(a.actual, 0) AS actual
        FROM (SELECT kind, shift, block, sum(n) AS kept FROM instance_blocks GROUP BY kind, shift, block) k
        LEFT JOIN (SELECT s.shift, i.id >> s.shift AS block, count(*) AS actual FROM instances i, (SELECT DISTINCT shift FROM instance_blocks) s GROUP BY 1, 2) a
          ON a.shift = k.shift AND a.block = k.block
        WHERE k.kept <> coalesce(a.actual, 0)`,
  );
  for (const b of blocks) errors.push(`${b.kind} block ${b.block} (shift ${b.shift}): kept ${b.kept}, actual ${b.actual}`);
  const everything = get<{ n: number }>(db, sql`SELECT count(*) AS n FROM instances`)!.n;
  // The fences are checked against the instances and their base questions themselves, the question order's table apart.
  for (const [sort, order] of Object.entries(FENCES) as [FenceSort, FenceOrder][]) {
    for (const level of [0, 1]) errors.push(...fenceErrors(db, sort, sort === 'question' ? QUESTION_BY_JOIN : order, level, everything));
  }
  return [...errors, ...questionOrderErrors(db)];
}

/** Rows of `instance_question_order` that differ from the instances and their base questions, either way (none before migration 0033). */
function questionOrderErrors(db: ReadableDB): string[] {
  if (!get(db, sql`SELECT 1 AS found FROM sqlite_schema WHERE name = 'instance_question_order'`)) return [];
  const kept = sql`SELECT question, base_question_id, id, source_id, ambiguity_type, status, dataset_id, hops FROM instance_question_order`;
  const actual = sql`SELECT b.question, b.id, i.id, b.source_id, i.ambiguity_type, i.status, i.dataset_id, i.hops FROM instances i JOIN base_questions b ON b.id = i.base_question_id`;
  const differ = (what: string, a: SqlFragment, b: SqlFragment) =>
    all<{ id: number }>(db, sql`SELECT id FROM (${a} EXCEPT ${b}) ORDER BY id`).map((r) => `question order: instance ${r.id} ${what}`);
  const rows = get<{ kept: number; actual: number }>(db, sql`SELECT (SELECT n FROM instance_question_order_rows) AS kept, (SELECT count(*) FROM instance_question_order) AS actual`)!;
  return [
    ...differ('kept but not so in the table', kept, actual),
    ...differ('in the table but not kept so', actual, kept),
    ...(rows.kept === rows.actual ? [] : [`question order: ${rows.kept} rows counted, ${rows.actual} in the table`]),
  ];
}

function fenceErrors(db: ReadableDB, sort: FenceSort, order: FenceOrder, level: number, everything: number): string[] {
  const errors: string[] = [];
  const list = all<Fence & { size: number }>(
    db,
    sql`SELECT * FROM ${sql.id(order.table)} f WHERE f.level = ${level} ORDER BY ${sql.join(order.keys.map((k) => sql`f.${sql.id(k)}`))}`,
  );
  const key = (r: Record<string, SqlValue>) => CELL.map((c) => String(r[c])).join('|');
  let seen = 0;
  list.forEach((fence, k) => {
    // The rows from this fence up to the next one, found by their keys alone.
    const next = list[k + 1];
    const bounds = [...(fence.bucket > 1 ? [order.atOrAfter(keyOf(order, fence))] : []), ...(next ? [order.before(keyOf(order, next))] : [])];
    const rows = all<Record<(typeof CELL)[number], SqlValue>>(
      db,
      sql`SELECT i.ambiguity_type, i.status, i.dataset_id, coalesce(i.hops, 0) AS hops FROM ${order.from} WHERE true ${and(bounds)}`,
    );
    const kept = new Map(
      all<Record<(typeof CELL)[number], SqlValue> & { n: number }>(
        db,
        sql`SELECT ambiguity_type, status, dataset_id, hops, n FROM instance_order_counts WHERE sort = ${sort} AND bucket = ${fence.bucket} AND n > 0`,
      ).map((r) => [key(r), r.n]),
    );
    const actual = new Map<string, number>();
    for (const r of rows) actual.set(key(r), (actual.get(key(r)) ?? 0) + 1);
    for (const cell of new Set([...actual.keys(), ...kept.keys()])) {
      const [a, b] = [actual.get(cell) ?? 0, kept.get(cell) ?? 0];
      if (a !== b) errors.push(`${sort} level ${level} fence ${fence.bucket} ${cell}: kept ${b}, actual ${a}`);
    }
    if (rows.length !== fence.size) errors.push(`${sort} level ${level} fence ${fence.bucket}: size ${fence.size}, rows ${rows.length}`);
    seen += rows.length;
  });
  if (seen !== everything) errors.push(`${sort} level ${level}: fences hold ${seen} rows of ${everything}`);
  return errors;
}
