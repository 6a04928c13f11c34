/**
 * Work that should not delay the next paint. `afterPaint` runs once the frame being prepared has
 * been rendered (a task queued from that frame's requestAnimationFrame); a hidden page renders
 * no frames, so the work runs after a tenth of a second regardless.
 */
export function afterPaint(work: () => void): void {
  let ran = false;
  const run = () => {
    if (ran) return;
    ran = true;
    clearTimeout(fallback);
    work();
  };
  const fallback = setTimeout(run, 100);
  requestAnimationFrame(() => setTimeout(run, 0));
}

/** Resolves once the frame being prepared has been painted (see `afterPaint`). */
export function nextPaint(): Promise<void> {
  return new Promise((resolve) => afterPaint(resolve));
}
