import type pg from 'pg';

/**
 * SQL for the shared PostgreSQL store, written as in the rest of `db/`: a tagged template that
 * keeps values out of the query text (`$1`, `$2`, … with the values as parameters). Values may be
 * arrays, for `unnest` bulk writes.
 */

export type PgValue = string | number | boolean | null | readonly (string | number | boolean | null)[];

export interface PgQuery {
  text: string;
  values: PgValue[];
}

export function pgSql(strings: TemplateStringsArray, ...values: readonly PgValue[]): PgQuery {
  let text = strings[0] ?? '';
  values.forEach((_, i) => {
    text += `$${i + 1}${strings[i + 1] ?? ''}`;
  });
  return { text, values: [...values] };
}

export type PgClient = Pick<pg.ClientBase, 'query'>;

export async function pgAll<Row>(client: PgClient, query: PgQuery): Promise<Row[]> {
  const result = await client.query(query.text, query.values as unknown[]);
  return result.rows as Row[];
}

export async function pgRun(client: PgClient, query: PgQuery): Promise<number> {
  const result = await client.query(query.text, query.values as unknown[]);
  return result.rowCount ?? 0;
}
