import type { BenchContext, Measurement } from './harness';
import { benchRelease } from './release';

/** The release suite at two sizes ten times apart (100k and 1M; 200 and 2,000 with --quick), for its growth exponents. */
export async function benchReleaseGrowth(ctx: BenchContext): Promise<Measurement[]> {
  const out: Measurement[] = [];
  for (const count of ctx.quick ? [200, 2_000] : [100_000, 1_000_000]) out.push(...(await benchRelease(ctx, count)));
  return out;
}
