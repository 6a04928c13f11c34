import type { Price } from '../../shared/pipeline';
import { all, run, sql, type ReadableDB, type WritableDB } from '../sql';

/**
 * The `model_prices` table: the price per million input and output tokens of each model, and
 * optionally its batch prices and its price for prompt tokens read from the provider's cache. Its only writer.
 */

export type PriceRow = { model: string } & Price;

export function listPrices(db: ReadableDB): PriceRow[] {
  const rows = all<{ model: string; input: number; output: number; batchInput: number | null; batchOutput: number | null; cachedInput: number | null }>(
    db,
    sql`SELECT model, input_per_million AS input, output_per_million AS output, batch_input_per_million AS batchInput,
               batch_output_per_million AS batchOutput, cached_input_per_million AS cachedInput
        FROM model_prices ORDER BY model`,
  );
  return rows.map(({ batchInput, batchOutput, cachedInput, ...row }) => ({
    ...row,
    ...(batchInput !== null ? { batchInput } : {}),
    ...(batchOutput !== null ? { batchOutput } : {}),
    ...(cachedInput !== null ? { cachedInput } : {}),
  }));
}

export function setPrice(db: WritableDB, model: string, input: number, output: number, more: { batchInput?: number | null; batchOutput?: number | null; cachedInput?: number | null } = {}): void {
  run(
    db,
    sql`INSERT INTO model_prices (model, input_per_million, output_per_million, batch_input_per_million, batch_output_per_million, cached_input_per_million)
        VALUES (${model}, ${input}, ${output}, ${more.batchInput ?? null}, ${more.batchOutput ?? null}, ${more.cachedInput ?? null})
        ON CONFLICT DO UPDATE SET input_per_million = excluded.input_per_million, output_per_million = excluded.output_per_million,
          batch_input_per_million = excluded.batch_input_per_million, batch_output_per_million = excluded.batch_output_per_million,
          cached_input_per_million = excluded.cached_input_per_million`,
  );
}

export function deletePrice(db: WritableDB, model: string): void {
  run(db, sql`DELETE FROM model_prices WHERE model = ${model}`);
}
