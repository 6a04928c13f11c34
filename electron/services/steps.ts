/**
 * Work done in steps (a generator that yields between them) run to its end, letting other
 * requests run between the steps: the services answer one request at a time, so long work that
 * did not yield would hold up everyone's next page or judgment.
 */
export async function withBreaks<T>(steps: Generator<void, T>): Promise<T> {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}
