/**
 * The one way SQL is written in this project: a tagged template that keeps values out of the
 * query text. `sql\`SELECT * FROM t WHERE id = ${id}\`` becomes `SELECT * FROM t WHERE id = ?`
 * with `[id]` as parameters. Fragments nest, identifiers go through `sql.id`, which checks them.
 */

export type SqlValue = string | number | bigint | Uint8Array | null;
type SqlInput = SqlValue | boolean | undefined | SqlFragment;

const FRAGMENT: unique symbol = Symbol('sql-fragment');

export interface SqlFragment {
  readonly [FRAGMENT]: true;
  readonly text: string;
  readonly params: readonly SqlValue[];
}

function fragment(text: string, params: readonly SqlValue[]): SqlFragment {
  return { [FRAGMENT]: true, text, params };
}

function isFragment(value: unknown): value is SqlFragment {
  return typeof value === 'object' && value !== null && FRAGMENT in value;
}

function toValue(value: Exclude<SqlInput, SqlFragment>): SqlValue {
  if (value === undefined) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  return value;
}

/**
 * The text of each query written without nested fragments, kept per template: the same string
 * object each time, so the statement cache finds it without hashing a new string (hot loops run
 * the same few queries hundreds of thousands of times).
 */
const plainTexts = new WeakMap<TemplateStringsArray, string>();

export function sql(strings: TemplateStringsArray, ...values: readonly SqlInput[]): SqlFragment {
  if (!values.some(isFragment)) {
    let plain = plainTexts.get(strings);
    if (plain === undefined) plainTexts.set(strings, (plain = strings.join('?')));
    return fragment(plain, values.map((value) => toValue(value as Exclude<SqlInput, SqlFragment>)));
  }
  let text = strings[0] ?? '';
  const params: SqlValue[] = [];
  values.forEach((value, i) => {
    if (isFragment(value)) {
      text += value.text;
      params.push(...value.params);
    } else {
      text += '?';
      params.push(toValue(value));
    }
    text += strings[i + 1] ?? '';
  });
  return fragment(text, params);
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A checked identifier (table or column name) for the rare query whose shape varies. */
sql.id = function id(name: string): SqlFragment {
  if (!IDENTIFIER.test(name)) throw new Error(`Not a valid SQL identifier: ${JSON.stringify(name)}`);
  return fragment(`"${name}"`, []);
};

/** Joins fragments with a separator (default `, `). An empty list gives an empty fragment. */
sql.join = function join(parts: readonly SqlFragment[], separator: SqlFragment = sql`, `): SqlFragment {
  const params: SqlValue[] = [];
  const texts: string[] = [];
  parts.forEach((part, i) => {
    if (i > 0) {
      texts.push(separator.text);
      params.push(...separator.params);
    }
    texts.push(part.text);
    params.push(...part.params);
  });
  return fragment(texts.join(''), params);
};

/** `(?, ?, ?)` for a non-empty list of values; an empty list matches nothing. */
sql.list = function list(values: readonly SqlValue[]): SqlFragment {
  if (values.length === 0) return fragment('(NULL)', []);
  return fragment(`(${values.map(() => '?').join(', ')})`, values);
};

sql.empty = fragment('', []);

/**
 * Splits rows for multi-row INSERTs into chunks of at most `largest` rows whose sizes are powers
 * of two (20 rows: 16 and 4), so a bulk write runs one statement per chunk while the statement
 * cache holds only a few texts per query.
 */
export function* insertChunks<T>(rows: readonly T[], largest = 32): Generator<readonly T[]> {
  let start = 0;
  while (start < rows.length) {
    let size = largest;
    while (size > rows.length - start) size /= 2;
    yield rows.slice(start, start + size);
    start += size;
  }
}

/** SQL keywords chosen by code, never by input (ASC/DESC and the like). */
sql.keyword = function keyword(word: 'ASC' | 'DESC' | 'AND' | 'OR'): SqlFragment {
  return fragment(word, []);
};
