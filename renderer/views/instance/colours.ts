import type { CSSProperties } from 'react';

/** One colour per interpretation, used for its column, its spans and its answer in the long answer. */

const CIRCLED = ['①', '②', '③', '④', '⑤', '⑥', '⑦', '⑧', '⑨', '⑩'];

export function interpretationStyle(position: number): CSSProperties {
  return { '--c': `var(--interpretation-${(position % 8) + 1})` } as CSSProperties;
}

export function interpretationLabel(position: number): string {
  return CIRCLED[position] ?? `(${position + 1})`;
}

