import type BetterSqlite3 from 'better-sqlite3';
import type { Migration } from '../migrate';

/**
 * Where each row stands in every sort order of the instance table, kept by triggers, so that a
 * page at any offset is found without walking the rows before it (issue 24; the reading side is
 * db/queries/instances-order.ts, which explains the layout). Two structures, both counting rows
 * per combination of the four filter columns (dataset, type, status, hop count) so that any
 * filter's position can be summed from them:
 *
 * - `instance_blocks` counts rows per block of ids at four sizes, 2^10 to 2^22 ids (`shift`), per
 *   combination alone (`cell`), per stage and per interpretation count. It serves the sorts
 *   whose order is "a few small columns, then id" (id, type, status, dataset, hops, stage,
 *   interpretations): within one value of those columns rows run in id order, and blocks of ids
 *   never need rebalancing.
 * - For the sorts by a column with many values (updated_at, and the base question's text and
 *   source id), fences at two levels: the key of about every 256th row in that order (level 0)
 *   and of about every 8,192nd (level 1), each with its rows up to the next fence of its level
 *   (`size`, and `instance_order_counts` per filter combination). A fence past twice its level's
 *   setting splits in two at its middle row; one that empties is dropped. Both happen in the
 *   triggers below, whoever writes the rows. Buckets 0 and 1 are the levels' first fences, below
 *   every key, and stay.
 *
 * A missing hop count is stored as 0 in the counts (as `instance_counts` does) and as -1 in the
 * updated_at fence keys, where it must sort before every hop count (hop counts are at least 1).
 * The triggers rely on SQLite's default of no recursive triggers (a split's own size update does
 * not split again). This file is frozen once shipped: db/queries/instances-order.ts reads its names.
 */

const SHIFTS = [10, 14, 18, 22];
const LEVEL_ROWS = [256, 8192];
/** Below every real key (types and statuses are never empty; ids are integers). */
const MIN_INT = '(-9223372036854775807 - 1)';

interface FenceSort {
  sort: 'updated_at' | 'question' | 'source_id';
  table: string;
  columns: { name: string; type: 'TEXT' | 'INTEGER' }[];
  /** The key of an `instances` row named `row` (new or old), as SQL expressions. */
  key(row: string): string[];
  /** What walks the order (the instance is `i`), its rows' keys, and the order itself. */
  from: string;
  walkKey: string[];
  orderBy: string;
  /** The rows at or after fence `f` (a row with the key columns). */
  atOrAfter(f: string): string;
  /** The instance columns whose change moves a row in this order. */
  moves: string[];
  /** The base question column this order is by, if any. */
  baseColumn?: 'question' | 'source_id';
  sentinel: string[];
}

const HOPS = (row: string) => `coalesce(${row}.hops, -1)`;

function byBaseQuestion(column: 'question' | 'source_id', table: string, index: string): FenceSort {
  return {
    sort: column,
    table,
    columns: [
      { name: column, type: 'TEXT' },
      { name: 'base_question_id', type: 'INTEGER' },
      { name: 'id', type: 'INTEGER' },
    ],
    key: (row) => [`(SELECT b.${column} FROM base_questions b WHERE b.id = ${row}.base_question_id)`, `${row}.base_question_id`, `${row}.id`],
    from: `base_questions b INDEXED BY ${index} JOIN instances i ON i.base_question_id = b.id`,
    walkKey: [`b.${column}`, 'b.id', 'i.id'],
    orderBy: `b.${column}, b.id, i.id`,
    atOrAfter: (f) =>
      `(b.${column}, b.id) >= (${f}.${column}, ${f}.base_question_id)
       AND ((b.${column}, b.id) > (${f}.${column}, ${f}.base_question_id) OR i.id >= ${f}.id)`,
    moves: ['ambiguity_type', 'status', 'dataset_id', 'hops', 'base_question_id', 'id'],
    baseColumn: column,
    sentinel: ["''", MIN_INT, MIN_INT],
  };
}

const FENCE_SORTS: FenceSort[] = [
  {
    sort: 'updated_at',
    table: 'instance_fences_updated',
    columns: [
      { name: 'updated_at', type: 'TEXT' },
      { name: 'ambiguity_type', type: 'TEXT' },
      { name: 'status', type: 'TEXT' },
      { name: 'dataset_id', type: 'INTEGER' },
      { name: 'hops', type: 'INTEGER' },
      { name: 'id', type: 'INTEGER' },
    ],
    key: (row) => [`${row}.updated_at`, `${row}.ambiguity_type`, `${row}.status`, `${row}.dataset_id`, HOPS(row), `${row}.id`],
    from: 'instances i INDEXED BY instances_by_updated',
    walkKey: ['i.updated_at', 'i.ambiguity_type', 'i.status', 'i.dataset_id', HOPS('i'), 'i.id'],
    orderBy: 'i.updated_at, i.ambiguity_type, i.status, i.dataset_id, i.hops, i.id',
    atOrAfter: (f) =>
      `(i.updated_at, i.ambiguity_type, i.status, i.dataset_id) >= (${f}.updated_at, ${f}.ambiguity_type, ${f}.status, ${f}.dataset_id)
       AND ((i.updated_at, i.ambiguity_type, i.status, i.dataset_id) > (${f}.updated_at, ${f}.ambiguity_type, ${f}.status, ${f}.dataset_id)
            OR (${HOPS('i')}, i.id) >= (${f}.hops, ${f}.id))`,
    moves: ['updated_at', 'ambiguity_type', 'status', 'dataset_id', 'hops', 'id'],
    sentinel: ["''", "''", "''", MIN_INT, MIN_INT, MIN_INT],
  },
  byBaseQuestion('question', 'instance_fences_question', 'base_questions_question'),
  byBaseQuestion('source_id', 'instance_fences_source', 'base_questions_source'),
];

const walk = (s: FenceSort, f?: string) => `FROM ${s.from} ${f ? `WHERE ${s.atOrAfter(f)}` : ''} ORDER BY ${s.orderBy}`;

const CELL = ['ambiguity_type', 'status', 'dataset_id', 'hops'];
const cellOf = (row: string) => [`${row}.ambiguity_type`, `${row}.status`, `${row}.dataset_id`, `coalesce(${row}.hops, 0)`];
const sameCell = (a: string, b: string) => CELL.map((c) => `${a}.${c} = ${b}.${c}`).join(' AND ');

/** Block counts per kind: the combination alone, or with the stage, or with the interpretation count. */
const KINDS = [
  { kind: 'cell', value: () => "''", moves: [] as string[] },
  { kind: 'stage', value: (row: string) => `${row}.stage`, moves: ['stage'] },
  { kind: 'interpretations', value: (row: string) => `${row}.interpretation_count`, moves: ['interpretation_count'] },
];

function createBlocks(db: BetterSqlite3.Database): void {
  const columns = `kind, shift, block, value, ${CELL.join(', ')}, n`;
  const shifts = `(SELECT ${SHIFTS[0]} AS value ${SHIFTS.slice(1).map((s) => `UNION ALL SELECT ${s}`).join(' ')}) s`;
  const add = (row: string, k: (typeof KINDS)[number]) =>
    `INSERT INTO instance_blocks (${columns})
     SELECT '${k.kind}', s.value, ${row}.id >> s.value, ${k.value(row)}, ${cellOf(row).join(', ')}, 1 FROM ${shifts} WHERE true
     ON CONFLICT DO UPDATE SET n = n + 1;`;
  const remove = (row: string, k: (typeof KINDS)[number]) =>
    `UPDATE instance_blocks SET n = n - 1
     WHERE kind = '${k.kind}' AND shift IN (${SHIFTS.join(', ')}) AND block = ${row}.id >> shift AND value = ${k.value(row)}
       AND (${CELL.join(', ')}) = (${cellOf(row).join(', ')});`;
  db.exec(`
    CREATE TABLE instance_blocks (
      kind TEXT NOT NULL CHECK (kind IN (${KINDS.map((k) => `'${k.kind}'`).join(', ')})),
      shift INTEGER NOT NULL,
      block INTEGER NOT NULL,
      value ANY NOT NULL,
      ambiguity_type TEXT NOT NULL,
      status TEXT NOT NULL,
      dataset_id INTEGER NOT NULL,
      hops INTEGER NOT NULL,
      n INTEGER NOT NULL CHECK (n >= 0),
      PRIMARY KEY (kind, shift, block, value, ambiguity_type, status, dataset_id, hops)
    ) STRICT, WITHOUT ROWID;
    ${KINDS.map(
      (k) => `INSERT INTO instance_blocks (${columns})
              SELECT '${k.kind}', s.value, i.id >> s.value, ${k.value('i')}, ${cellOf('i').join(', ')}, count(*) FROM instances i, ${shifts}
              GROUP BY 2, 3, 4, 5, 6, 7, 8;`,
    ).join('\n')}
    CREATE TRIGGER instance_blocks_insert AFTER INSERT ON instances BEGIN ${KINDS.map((k) => add('new', k)).join('\n')} END;
    CREATE TRIGGER instance_blocks_delete AFTER DELETE ON instances BEGIN ${KINDS.map((k) => remove('old', k)).join('\n')} END;
    ${KINDS.map(
      (k) => `CREATE TRIGGER instance_blocks_${k.kind}_update AFTER UPDATE OF ${['id', ...CELL, ...k.moves].join(', ')} ON instances BEGIN
                ${remove('old', k)}
                ${add('new', k)}
              END;`,
    ).join('\n')}
  `);
}

/** The fence of a level whose bucket holds the key (the greatest fence at or below it). */
function bucketOf(s: FenceSort, key: string[], level: string, strictly = false): string {
  const names = s.columns.map((c) => `f.${c.name}`);
  return `(SELECT f.bucket FROM ${s.table} f WHERE f.level = ${level} AND (${names.join(', ')}) ${strictly ? '<' : '<='} (${key.join(', ')})
           ORDER BY f.level DESC, ${names.map((n) => `${n} DESC`).join(', ')} LIMIT 1)`;
}

const LEVELS = LEVEL_ROWS.map((_, level) => String(level));

function countRow(s: FenceSort, row: string, delta: '+' | '-'): string {
  return LEVELS.map((level) => {
    const bucket = bucketOf(s, s.key(row), level);
    if (delta === '+') {
      // No bucket when the row's base question does not exist: the foreign key refuses the row.
      return `INSERT INTO instance_order_counts (sort, bucket, ${CELL.join(', ')}, n)
              SELECT '${s.sort}', b.bucket, ${cellOf(row).join(', ')}, 1 FROM (SELECT ${bucket} AS bucket) b WHERE b.bucket IS NOT NULL
              ON CONFLICT DO UPDATE SET n = n + 1;
              UPDATE ${s.table} SET size = size + 1 WHERE bucket = ${bucket};`;
    }
    // A row whose base question is already gone was taken off with the question (see below).
    return `UPDATE instance_order_counts SET n = n - 1
            WHERE sort = '${s.sort}' AND bucket = ${bucket} AND (${CELL.join(', ')}) = (${cellOf(row).join(', ')});
            UPDATE ${s.table} SET size = size - 1 WHERE bucket = ${bucket};`;
  }).join('\n');
}

/** Adds or takes off every instance of one base question (when its text changes or it is deleted). */
function countQuestion(s: FenceSort, question: string, delta: '+' | '-'): string {
  const of = `FROM instances i WHERE i.base_question_id = ${question}.id`;
  return LEVELS.map((level) => {
    const bucket = bucketOf(s, s.key('i'), level);
    const sizes = `UPDATE ${s.table} AS g SET size = g.size ${delta} m.n FROM (SELECT ${bucket} AS bucket, count(*) AS n ${of} GROUP BY 1) m
                   WHERE g.bucket = m.bucket;`;
    if (delta === '+') {
      return `INSERT INTO instance_order_counts (sort, bucket, ${CELL.join(', ')}, n)
              SELECT '${s.sort}', ${bucket}, ${cellOf('i').join(', ')}, count(*) ${of} GROUP BY 2, 3, 4, 5, 6
              ON CONFLICT DO UPDATE SET n = n + excluded.n;
              ${sizes}`;
    }
    return `UPDATE instance_order_counts AS c SET n = c.n - m.n
            FROM (SELECT ${bucket} AS bucket, ${cellOf('i').map((e, k) => `${e} AS ${CELL[k]}`).join(', ')}, count(*) AS n ${of} GROUP BY 1, 2, 3, 4, 5) m
            WHERE c.sort = '${s.sort}' AND c.bucket = m.bucket AND ${sameCell('c', 'm')};
            ${sizes}`;
  }).join('\n');
}

function createFences(db: BetterSqlite3.Database, s: FenceSort): void {
  const names = s.columns.map((c) => c.name);
  const keyOfI = s.walkKey.map((e, k) => `${e} AS ${names[k]}`);
  const onMoves = `AFTER UPDATE OF ${s.moves.join(', ')} ON instances`;
  const base = s.baseColumn;
  const parent = bucketOf(s, names.map((n) => `new.${n}`), 'new.level', true);
  db.exec(`
    CREATE TABLE ${s.table} (
      bucket INTEGER PRIMARY KEY,
      level INTEGER NOT NULL CHECK (level IN (${LEVELS.join(', ')})),
      ${s.columns.map((c) => `${c.name} ${c.type} NOT NULL`).join(',\n      ')},
      size INTEGER NOT NULL CHECK (size >= 0)
    ) STRICT;
    CREATE UNIQUE INDEX ${s.table}_key ON ${s.table} (level, ${names.join(', ')});
  `);
  fillFences(db, s, `SELECT ${keyOfI.join(', ')}, ${cellOf('i').join(', ')} ${walk(s)}`);
  db.exec(`
    CREATE TRIGGER ${s.table}_insert AFTER INSERT ON instances BEGIN ${countRow(s, 'new', '+')} END;
    CREATE TRIGGER ${s.table}_delete AFTER DELETE ON instances BEGIN ${countRow(s, 'old', '-')} END;
    CREATE TRIGGER ${s.table}_update ${onMoves} BEGIN
      ${countRow(s, 'old', '-')}
      ${countRow(s, 'new', '+')}
    END;
    ${
      base
        ? `CREATE TRIGGER ${s.table}_question_delete BEFORE DELETE ON base_questions BEGIN ${countQuestion(s, 'old', '-')} END;
           CREATE TRIGGER ${s.table}_question_before BEFORE UPDATE OF ${base} ON base_questions BEGIN ${countQuestion(s, 'old', '-')} END;
           CREATE TRIGGER ${s.table}_question_after AFTER UPDATE OF ${base} ON base_questions BEGIN ${countQuestion(s, 'new', '+')} END;`
        : ''
    }
    -- A fence past twice its level's setting splits at its middle row: the new fence takes the second half.
    CREATE TRIGGER ${s.table}_split AFTER UPDATE OF size ON ${s.table}
    WHEN new.size > 2 * (SELECT CASE new.level WHEN 0 THEN fine_rows ELSE coarse_rows END FROM instance_order_settings) BEGIN
      INSERT INTO ${s.table} (bucket, level, ${names.join(', ')}, size)
      SELECT (SELECT max(bucket) + 1 FROM ${s.table}), new.level, ${keyOfI.join(', ')}, new.size - new.size / 2
      ${walk(s, 'new')} LIMIT 1 OFFSET new.size / 2;
    END;
    -- The rows of a new fence leave the fence before it on its level, counts and size.
    CREATE TRIGGER ${s.table}_move AFTER INSERT ON ${s.table} BEGIN
      INSERT INTO instance_order_counts (sort, bucket, ${CELL.join(', ')}, n)
      SELECT '${s.sort}', new.bucket, ${CELL.join(', ')}, count(*)
      FROM (SELECT ${cellOf('i').map((e, k) => `${e} AS ${CELL[k]}`).join(', ')} ${walk(s, 'new')} LIMIT new.size)
      WHERE true GROUP BY 2, 3, 4, 5, 6
      ON CONFLICT DO UPDATE SET n = n + excluded.n;
      UPDATE instance_order_counts AS c SET n = c.n - m.n FROM instance_order_counts m
      WHERE m.sort = '${s.sort}' AND m.bucket = new.bucket
        AND c.sort = '${s.sort}' AND c.bucket = ${parent} AND ${sameCell('c', 'm')};
      UPDATE ${s.table} SET size = size - new.size WHERE bucket = ${parent};
    END;
    -- An empty fence is dropped (the levels' first fences, below every key, stay).
    CREATE TRIGGER ${s.table}_drop AFTER UPDATE OF size ON ${s.table} WHEN new.size = 0 AND new.bucket > ${LEVELS.length - 1} BEGIN
      DELETE FROM instance_order_counts WHERE sort = '${s.sort}' AND bucket = new.bucket;
      DELETE FROM ${s.table} WHERE bucket = new.bucket;
    END;
  `);
}

/**
 * Fences every so many rows of the order at each level and counts each fence's rows, in one walk
 * of the order's index (no sort). Each level's first fence is the sentinel below every key.
 */
function fillFences(db: BetterSqlite3.Database, s: FenceSort, walkAll: string): void {
  const settings = db.prepare('SELECT fine_rows, coarse_rows FROM instance_order_settings').get() as { fine_rows: number; coarse_rows: number };
  const levels = [settings.fine_rows, settings.coarse_rows];
  const keys = s.columns.length;
  const fences: { level: number; key: unknown[] | null; size: number }[] = levels.map((_, level) => ({ level, key: null, size: 0 }));
  const current = fences.map((_, level) => level);
  const counts = new Map<string, number>();
  let seen = 0;
  for (const row of db.prepare(walkAll).raw().iterate() as Iterable<unknown[]>) {
    levels.forEach((rows, level) => {
      if (seen > 0 && seen % rows === 0) current[level] = fences.push({ level, key: row.slice(0, keys), size: 0 }) - 1;
      const fence = current[level]!;
      fences[fence]!.size++;
      const cell = JSON.stringify([fence, ...row.slice(keys)]);
      counts.set(cell, (counts.get(cell) ?? 0) + 1);
    });
    seen++;
  }
  const names = s.columns.map((c) => c.name);
  const insertFence = db.prepare(`INSERT INTO ${s.table} (bucket, level, ${names.join(', ')}, size) VALUES (?, ?, ${names.map(() => '?').join(', ')}, ?)`);
  const sentinel = db.prepare(`INSERT INTO ${s.table} (bucket, level, ${names.join(', ')}, size) VALUES (?, ?, ${s.sentinel.join(', ')}, ?)`);
  fences.forEach((fence, bucket) => (fence.key ? insertFence.run(bucket, fence.level, ...fence.key, fence.size) : sentinel.run(bucket, fence.level, fence.size)));
  const insertCount = db.prepare(`INSERT INTO instance_order_counts (sort, bucket, ${CELL.join(', ')}, n) VALUES (?, ?, ?, ?, ?, ?, ?)`);
  for (const [cell, n] of counts) insertCount.run(s.sort, ...(JSON.parse(cell) as unknown[]), n);
}

export const instanceOrder: Migration = {
  version: 17,
  name: 'instance-order',
  up(db) {
    db.exec(`
      CREATE TABLE instance_order_settings (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        fine_rows INTEGER NOT NULL CHECK (fine_rows >= 8),
        coarse_rows INTEGER NOT NULL CHECK (coarse_rows >= fine_rows)
      ) STRICT;
      INSERT INTO instance_order_settings (id, fine_rows, coarse_rows) VALUES (1, ${LEVEL_ROWS.join(', ')});
      CREATE TABLE instance_order_counts (
        sort TEXT NOT NULL CHECK (sort IN ('updated_at', 'question', 'source_id')),
        bucket INTEGER NOT NULL,
        ambiguity_type TEXT NOT NULL,
        status TEXT NOT NULL,
        dataset_id INTEGER NOT NULL,
        hops INTEGER NOT NULL,
        n INTEGER NOT NULL CHECK (n >= 0),
        PRIMARY KEY (sort, bucket, ambiguity_type, status, dataset_id, hops)
      ) STRICT, WITHOUT ROWID;
    `);
    createBlocks(db);
    for (const s of FENCE_SORTS) createFences(db, s);
  },
};
