import { AppError } from '../../../shared/api';
import { formatUsd, type Budget, type Price } from '../../../shared/pipeline';

/**
 * What a call costs, and the run's cost ceiling.
 *
 * Prices are per million tokens. A batch call costs the model's batch price, or half its
 * synchronous price where none is set (OpenAI and Together price batches at half); prompt tokens
 * the provider read from its prompt cache cost the cached-input price where one is set. A model
 * without a price costs null: unknown, never zero.
 *
 * The ceiling: before a call is sent (or a batch submitted) its cost is estimated high (the
 * prompt's characters / 4 as tokens in, the whole `maxTokens` out) and reserved; when what is spent
 * and reserved would pass the ceiling the call is not sent, and the run stops with the reason.
 * A reservation is released when its call is recorded (what it really cost is then spent).
 */

export type CallMode = 'sync' | 'batch';

export class PriceTable {
  private readonly prices = new Map<string, Price>();
  private readonly halved = new Set<string>();

  constructor(
    rows: readonly ({ model: string } & Price)[],
    fromConfig: Readonly<Record<string, Price>>,
    private readonly note: (line: string) => void = () => undefined,
  ) {
    for (const row of rows) this.prices.set(row.model, stripModel(row));
    for (const [model, price] of Object.entries(fromConfig)) this.prices.set(model, price);
  }

  has(model: string): boolean {
    return this.prices.has(model);
  }

  /** US dollars per million input and output tokens for a call of this mode. */
  rates(model: string, mode: CallMode): { input: number; output: number; cachedInput: number } | null {
    const price = this.prices.get(model);
    if (!price) return null;
    if (mode === 'sync') return { input: price.input, output: price.output, cachedInput: price.cachedInput ?? price.input };
    if (price.batchInput === undefined || price.batchOutput === undefined) {
      if (!this.halved.has(model)) {
        this.halved.add(model);
        this.note(`No batch price for ${model}: batch calls are counted at half its synchronous price.`);
      }
    }
    const input = price.batchInput ?? price.input / 2;
    return { input, output: price.batchOutput ?? price.output / 2, cachedInput: Math.min(input, price.cachedInput ?? input) };
  }

  cost(model: string, mode: CallMode, promptTokens: number, completionTokens: number, cachedTokens = 0): number | null {
    const rates = this.rates(model, mode);
    if (!rates) return null;
    const cached = Math.min(cachedTokens, promptTokens);
    return ((promptTokens - cached) * rates.input + cached * rates.cachedInput + completionTokens * rates.output) / 1e6;
  }
}

function stripModel(row: { model: string } & Price): Price {
  const { model: _model, ...price } = row;
  return price;
}

export interface Reservation {
  usd: number;
  tokens: number;
}

export class CostCeiling {
  private reservedUsd = 0;
  private reservedTokens = 0;
  /** Why the run stopped taking new work (null: it has not). */
  stopped: string | null = null;

  constructor(
    private readonly budget: Budget,
    private readonly spent: () => { usd: number; tokens: number },
  ) {}

  get limited(): boolean {
    return this.budget.maxUsd !== null || this.budget.maxTokens !== null;
  }

  /** Whether an estimate fits under the ceiling with what is spent and reserved. */
  fits(estimate: Reservation): boolean {
    const { usd, tokens } = this.spent();
    if (this.budget.maxUsd !== null && usd + this.reservedUsd + estimate.usd > this.budget.maxUsd) return false;
    if (this.budget.maxTokens !== null && tokens + this.reservedTokens + estimate.tokens > this.budget.maxTokens) return false;
    return true;
  }

  /** Reserves the estimate, or stops the run (and throws) when it would pass the ceiling. */
  reserve(estimate: Reservation): Reservation {
    if (this.stopped) throw new AppError('cancelled', this.stopped);
    if (!this.fits(estimate)) this.stop();
    this.reservedUsd += estimate.usd;
    this.reservedTokens += estimate.tokens;
    return estimate;
  }

  release(reservation: Reservation): void {
    this.reservedUsd = Math.max(0, this.reservedUsd - reservation.usd);
    this.reservedTokens = Math.max(0, this.reservedTokens - reservation.tokens);
  }

  /** Stops the run for another reason (no call sent from now on), and throws it. */
  halt(reason: string): never {
    this.stopped ??= reason;
    throw new AppError('cancelled', this.stopped);
  }

  /** Stops the run: no call is sent from now on; the message says what was spent of what. */
  stop(): never {
    const { usd, tokens } = this.spent();
    const parts: string[] = [];
    if (this.budget.maxUsd !== null) parts.push(`${formatUsd(usd)} spent and ${formatUsd(this.reservedUsd)} reserved by calls in flight, of ${formatUsd(this.budget.maxUsd)}`);
    if (this.budget.maxTokens !== null) parts.push(`${tokens} tokens used and ${this.reservedTokens} reserved, of ${this.budget.maxTokens}`);
    this.stopped = `cost ceiling reached: ${parts.join('; ')}. The next call would have passed it, so the run stopped before sending it; every answer already paid for is kept, and a run with a higher ceiling takes up where this one stopped.`;
    throw new AppError('cancelled', this.stopped);
  }
}
