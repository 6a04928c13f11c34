import { all, run, sql, type ReadableDB, type WritableDB } from '../sql';

/** The `model_prices` table: the price per million input and output tokens of each model. Its only writer. */

export function listPrices(db: ReadableDB): { model: string; input: number; output: number }[] {
  return all(db, sql`SELECT model, input_per_million AS input, output_per_million AS output FROM model_prices ORDER BY model`);
}

export function setPrice(db: WritableDB, model: string, input: number, output: number): void {
  run(
    db,
    sql`INSERT INTO model_prices (model, input_per_million, output_per_million) VALUES (${model}, ${input}, ${output})
        ON CONFLICT DO UPDATE SET input_per_million = excluded.input_per_million, output_per_million = excluded.output_per_million`,
  );
}

export function deletePrice(db: WritableDB, model: string): void {
  run(db, sql`DELETE FROM model_prices WHERE model = ${model}`);
}
