import type { CSSProperties, ReactNode } from 'react';

export interface Mark {
  start: number;
  end: number;
  /** CSS class of the mark (default `hl`). */
  className?: string;
  /** CSS custom property values (e.g. the interpretation colour `--c`). */
  style?: CSSProperties;
  title?: string;
  /** Shown right after the marked text (for example the badges of the interpretations it belongs to). */
  after?: ReactNode;
}

/** Renders `text` with the given ranges marked; overlapping ranges keep the earlier one. */
export function Highlight({ text, marks }: { text: string; marks: readonly Mark[] }) {
  const sorted = [...marks].filter((m) => m.end > m.start && m.start >= 0 && m.end <= text.length).sort((a, b) => a.start - b.start);
  const parts: ReactNode[] = [];
  let at = 0;
  for (const mark of sorted) {
    if (mark.start < at) continue;
    if (mark.start > at) parts.push(text.slice(at, mark.start));
    parts.push(
      <mark key={`${mark.start}-${mark.end}`} className={mark.className ?? 'hl'} style={mark.style} title={mark.title}>
        {text.slice(mark.start, mark.end)}
      </mark>,
    );
    if (mark.after) parts.push(<span key={`${mark.start}-${mark.end}-after`}>{mark.after}</span>);
    at = mark.end;
  }
  if (at < text.length) parts.push(text.slice(at));
  return <>{parts}</>;
}
