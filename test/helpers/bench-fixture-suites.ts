import type { BenchContext, Measurement } from '../bench/harness';

/** Suites for the bench runner's own tests (test/unit/bench-infra.test.ts): one that works, two that fail. */

export async function fineSuite(ctx: BenchContext): Promise<Measurement[]> {
  const held = Buffer.alloc(48 * 2 ** 20, 1);
  return [{ id: 'held', name: `held ${held.length} bytes (quick: ${ctx.quick})`, value: held.length / 2 ** 20, unit: 'MiB' }];
}

export async function throwingSuite(): Promise<Measurement[]> {
  throw new Error('the fixture suite failed on purpose');
}

export async function exitingSuite(): Promise<Measurement[]> {
  process.exit(3);
}
