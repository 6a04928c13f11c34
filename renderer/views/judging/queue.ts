import type { JudgingItem, JudgingQueue } from '../../../shared/api';
import type { Criterion, Protocol } from '../../../shared/protocols';

/**
 * The judging queue as the screen keeps it between the server's answers: a decision or a skip
 * updates it here, from what the server answered, the same way the server would count it
 * (electron/services/annotation/judging.ts, buildQueue), so no decision needs the queue again.
 */

type Values = JudgingItem['values'];

const has = (values: Values, criterion: string) => (values[criterion]?.value ?? null) !== null;

export const isDecided = (item: JudgingItem, criterion: Criterion) => has(item.values, criterion.id);

/** The criteria an item needs for it to be done: the required ones that are not free text. */
function requiredCriteria(protocol: Protocol): Criterion[] {
  return protocol.criteria.filter((c) => c.required && c.scale.kind !== 'text');
}

export function isComplete(protocol: Protocol, item: JudgingItem): boolean {
  return requiredCriteria(protocol).every((c) => isDecided(item, c));
}

/** Where the keys start on an item: its first criterion still to decide. */
export function firstUndecided(criteria: readonly Criterion[], item: JudgingItem): number {
  const index = criteria.findIndex((c) => c.scale.kind !== 'text' && !isDecided(item, c));
  return index === -1 ? 0 : index;
}

/** Where a session opens: the first item neither done nor skipped, else the first not done. */
export function startPosition(queue: JudgingQueue): number | undefined {
  return (queue.items.find((i) => !i.done && !i.skipped) ?? queue.items.find((i) => !i.done) ?? queue.items[0])?.position;
}

/**
 * After an item is complete or skipped: the next one neither done nor skipped, after this one,
 * then from the start. None left is the end of the queue: the completion card lists what was
 * skipped for a second look.
 */
export function nextToJudge(queue: JudgingQueue, from: number): number | undefined {
  const index = queue.items.findIndex((i) => i.position === from);
  const later = [...queue.items.slice(index + 1), ...queue.items.slice(0, Math.max(0, index))];
  return later.find((i) => !i.done && !i.skipped && i.position !== from)?.position;
}

/** The item with one criterion set, as the screen shows it before the server answers. */
export function withValue(item: JudgingItem, criterion: string, value: string | null, comment: string): JudgingItem {
  return { ...item, values: { ...item.values, [criterion]: { value, comment } } };
}

/** The queue after a decision: `before` is the item's values the decision was made on, `after` the item the server saved. */
export function withDecision(queue: JudgingQueue, before: Values, after: JudgingItem): JudgingQueue {
  const perCriterion = { ...queue.perCriterion };
  for (const c of queue.protocol.criteria) perCriterion[c.id] = (perCriterion[c.id] ?? 0) + Number(has(after.values, c.id)) - Number(has(before, c.id));
  const done = isComplete(queue.protocol, after);
  const decided = Object.keys(after.values).filter((id) => has(after.values, id)).length;
  const commented = Object.values(after.values).some((v) => v.comment.trim() !== '');
  const items = queue.items.map((i) => (i.position === after.position ? { ...i, decided, done, skipped: after.skipped && !done, commented } : i));
  return { ...queue, items, done: items.filter((i) => i.done).length, perCriterion };
}

/** The queue after a skip: the item stays, marked skipped unless it is done. */
export function withSkip(queue: JudgingQueue, position: number): JudgingQueue {
  return { ...queue, items: queue.items.map((i) => (i.position === position ? { ...i, skipped: !i.done } : i)) };
}
