import type { FieldChange } from '../api/release';

/**
 * Differences between two releases, matched by the stable instance key. Unchanged instances have
 * the same content hash; a changed one names the fields of its record that differ, one level
 * into `base_question` and `instance` (`instance.interpretations`, `base_question.question`), and
 * shows them before and after down to the leaf that changed
 * (`instance.interpretations[1].short_answer.text`).
 */

export function changedFields(a: unknown, b: unknown): string[] {
  const out: string[] = [];
  const ra = (a ?? {}) as Record<string, unknown>;
  const rb = (b ?? {}) as Record<string, unknown>;
  for (const key of [...new Set([...Object.keys(ra), ...Object.keys(rb)])].sort()) {
    const x = ra[key];
    const y = rb[key];
    if (JSON.stringify(x) === JSON.stringify(y)) continue;
    const nested = (key === 'base_question' || key === 'instance' || key === 'dataset') && x && y && typeof x === 'object' && typeof y === 'object';
    if (!nested) {
      out.push(key);
      continue;
    }
    const ox = x as Record<string, unknown>;
    const oy = y as Record<string, unknown>;
    for (const sub of [...new Set([...Object.keys(ox), ...Object.keys(oy)])].sort()) {
      if (JSON.stringify(ox[sub]) !== JSON.stringify(oy[sub])) out.push(`${key}.${sub}`);
    }
  }
  return out;
}

export interface KeyedEntry {
  key: string;
  hash: string;
  split: string;
}

export type DiffEvent<E extends KeyedEntry = KeyedEntry> =
  | { change: 'added'; b: E }
  | { change: 'removed'; a: E }
  | { change: 'changed'; a: E; b: E }
  | { change: 'same'; a: E; b: E };

/** Merges two key-sorted streams (keys compared as the database orders them: by code unit). */
export function* mergeByKey<E extends KeyedEntry>(a: Iterable<E>, b: Iterable<E>): Generator<DiffEvent<E>> {
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  let x = ia.next();
  let y = ib.next();
  while (!x.done || !y.done) {
    if (y.done || (!x.done && x.value.key < y.value.key)) {
      yield { change: 'removed', a: x.value as E };
      x = ia.next();
    } else if (x.done || y.value.key < x.value.key) {
      yield { change: 'added', b: y.value };
      y = ib.next();
    } else {
      yield { change: x.value.hash === y.value.hash ? 'same' : 'changed', a: x.value, b: y.value };
      x = ia.next();
      y = ib.next();
    }
  }
}

const SHOWN_CHARS = 300;
const MAX_CHANGES = 20;
const MAX_DEPTH = 6;

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function shown(value: unknown): string | null {
  if (value === undefined) return null;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > SHOWN_CHARS ? `${text.slice(0, SHOWN_CHARS - 1)}…` : text;
}

/**
 * The leaves that differ between two records, with their values before and after: objects are
 * followed key by key and lists of the same length item by item; a list that grew or shrank is
 * shown whole. At most `max` changes, in path order.
 */
export function fieldChanges(before: unknown, after: unknown, max = MAX_CHANGES): FieldChange[] {
  const out: FieldChange[] = [];
  const visit = (x: unknown, y: unknown, at: string, depth: number) => {
    if (out.length >= max || JSON.stringify(x) === JSON.stringify(y)) return;
    if (depth < MAX_DEPTH && isPlainObject(x) && isPlainObject(y)) {
      for (const key of [...new Set([...Object.keys(x), ...Object.keys(y)])].sort()) visit(x[key], y[key], at ? `${at}.${key}` : key, depth + 1);
      return;
    }
    if (depth < MAX_DEPTH && Array.isArray(x) && Array.isArray(y) && x.length === y.length) {
      x.forEach((item, i) => visit(item, y[i], `${at}[${i}]`, depth + 1));
      return;
    }
    out.push({ field: at, before: shown(x), after: shown(y) });
  };
  visit(before, after, '', 0);
  return out;
}

/** The question of a frozen record (awb-instance/1). */
export function questionOf(record: unknown): string {
  const question = (record as { base_question?: { question?: unknown } } | null)?.base_question?.question;
  return typeof question === 'string' ? question : '';
}
