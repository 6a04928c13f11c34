/**
 * The constraints a "relaxed" query may drop (MARCH appendix I): numbers, dates and quoted spans.
 */

export interface Constraint {
  kind: 'number' | 'date' | 'quoted';
  text: string;
  start: number;
  end: number;
}

const MONTHS = 'january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec';
const DATE = new RegExp(
  `\\b(?:(?:${MONTHS})\\.?\\s+\\d{1,2}(?:st|nd|rd|th)?,?\\s+\\d{3,4}|\\d{1,2}(?:st|nd|rd|th)?\\s+(?:of\\s+)?(?:${MONTHS})\\.?,?\\s+\\d{3,4}|(?:${MONTHS})\\.?\\s+\\d{3,4}|\\d{4}-\\d{2}-\\d{2}|\\d{1,2}/\\d{1,2}/\\d{2,4}|(?:1[0-9]|20)\\d{2}s?)\\b`,
  'gi',
);
const QUOTED = /"([^"]{1,200})"|“([^”]{1,200})”|'([^']{2,200})'(?=[\s,.?!]|$)/g;
const NUMBER = /\b\d+(?:[.,]\d+)*(?:st|nd|rd|th)?\b/g;

export function findConstraints(query: string): Constraint[] {
  const found: Constraint[] = [];
  const taken = (start: number, end: number) => found.some((c) => start < c.end && end > c.start);
  for (const m of query.matchAll(QUOTED)) found.push({ kind: 'quoted', text: m[0], start: m.index, end: m.index + m[0].length });
  for (const m of query.matchAll(DATE)) if (!taken(m.index, m.index + m[0].length)) found.push({ kind: 'date', text: m[0], start: m.index, end: m.index + m[0].length });
  for (const m of query.matchAll(NUMBER)) if (!taken(m.index, m.index + m[0].length)) found.push({ kind: 'number', text: m[0], start: m.index, end: m.index + m[0].length });
  return found.sort((a, b) => a.start - b.start);
}

/** The query with one constraint removed. */
export function relax(query: string, constraint: Constraint): string {
  return `${query.slice(0, constraint.start)}${query.slice(constraint.end)}`.replace(/\s+/g, ' ').trim();
}
