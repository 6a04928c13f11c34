import { describe, expect, it } from 'vitest';
import { buildQueue } from '../../electron/services/annotation/judging';
import type { InstanceDetail, JudgingItem, JudgingQueue } from '../../shared/api';
import { seededRandom } from '../../shared/statistics';
import { BUILT_IN_PROTOCOLS, scaleValues, type Protocol } from '../../shared/protocols';
import { firstUndecided, nextToJudge, startPosition, withDecision, withSkip, withValue } from '../../renderer/views/judging/queue';

/**
 * The judging screen keeps its queue from the server's answers instead of asking for it after
 * each decision. Its counts must stay what the server would answer: walk random decisions and
 * skips, and compare the kept queue with the one the server builds from the same judgments.
 */

function protocol(key: string): Protocol {
  const document = BUILT_IN_PROTOCOLS.find((p) => p.key === key)!;
  return { ...document, id: 1, version: 1, builtIn: true, createdAt: '2026-11-01T00:00:00Z' };
}

const ABOUT = { campaign: { id: 1, uid: 'c', name: 'test', blind: false }, annotator: 'ann', offline: false, resultsFile: null };
const ROWS = [10, 11, 12, 13, 14].map((instanceId, position) => ({
  position,
  instanceId,
  question: `q${position}`,
  ambiguityType: 'semantic' as const,
  skipped: false,
}));

/** What the server holds: each item's values and whether it was skipped. */
interface Server {
  values: Map<number, JudgingItem['values']>;
  skipped: Set<number>;
}

function serverQueue(p: Protocol, server: Server): JudgingQueue {
  const decided = new Map([...server.values].map(([id, values]) => [id, Object.keys(values).filter((c) => values[c]!.value !== null)]));
  const commented = new Set([...server.values].filter(([, values]) => Object.values(values).some((v) => v.comment.trim())).map(([id]) => id));
  return buildQueue(
    p,
    ROWS.map((r) => ({ ...r, skipped: server.skipped.has(r.instanceId) })),
    decided,
    commented,
    ABOUT,
  );
}

function serverItem(server: Server, position: number): JudgingItem {
  const { instanceId } = ROWS[position]!;
  return {
    position,
    instance: { id: instanceId } as InstanceDetail,
    values: server.values.get(instanceId) ?? {},
    timeMs: 0,
    skipped: server.skipped.has(instanceId),
  };
}

describe('the judging queue kept on screen', () => {
  // A database store clears an item's skip when it is decided; a pack keeps it (the queue hides it once the item is done).
  for (const [key, store] of [
    ['march-validation', 'database'],
    ['condambigqa-review', 'database'],
    ['march-validation', 'pack'],
  ] as const) {
    it(`counts like the server after every decision and skip (${key}, ${store})`, () => {
      const p = protocol(key);
      const random = seededRandom(7);
      const server: Server = { values: new Map(), skipped: new Set() };
      let kept = serverQueue(p, server);
      for (let step = 0; step < 300; step++) {
        const position = Math.floor(random() * ROWS.length);
        const { instanceId } = ROWS[position]!;
        if (random() < 0.1) {
          server.skipped.add(instanceId);
          kept = withSkip(kept, position);
        } else {
          const criterion = p.criteria[Math.floor(random() * p.criteria.length)]!;
          const choices = criterion.scale.kind === 'text' ? ['a note'] : scaleValues(criterion.scale);
          const value = random() < 0.2 ? null : choices[Math.floor(random() * choices.length)]!;
          const before = serverItem(server, position);
          server.values.set(instanceId, withValue(before, criterion.id, value, step % 7 === 0 ? 'a comment' : '').values);
          if (store === 'database') server.skipped.delete(instanceId);
          kept = withDecision(kept, before.values, serverItem(server, position));
        }
        expect(kept).toEqual(serverQueue(p, server));
      }
      // The walk reached both ends: items done, and criteria decided on several items; and comments.
      expect(kept.done).toBeGreaterThan(0);
      expect(kept.items.some((i) => i.commented)).toBe(true);
      expect(Math.max(...Object.values(kept.perCriterion))).toBeGreaterThan(1);
    });
  }

  it('moves on to the next item neither done nor skipped, wrapping round, and says when none is left', () => {
    const p = protocol('march-validation');
    const every = p.criteria.map((c) => c.id);
    const doneAt = (positions: number[]) => buildQueue(p, ROWS, new Map(positions.map((n) => [ROWS[n]!.instanceId, every])), new Set(), ABOUT);
    expect(nextToJudge(doneAt([1, 2]), 1)).toBe(3);
    expect(nextToJudge(doneAt([3, 4]), 3)).toBe(0);
    expect(nextToJudge(doneAt([0, 1, 2, 3, 4]), 2)).toBeUndefined();
    expect(startPosition(doneAt([0, 1]))).toBe(2);
    // A skipped item is where a session opens only when nothing else is left, and the queue moves on past it.
    const skipped = withSkip(doneAt([0]), 1);
    expect(startPosition(skipped)).toBe(2);
    expect(nextToJudge(skipped, 1)).toBe(2);
    expect(nextToJudge(skipped, 4)).toBe(2);
    // Only skipped items left: the end of the queue (the completion card lists them).
    expect(nextToJudge(withSkip(doneAt([0, 2, 3, 4]), 1), 1)).toBeUndefined();
    expect(nextToJudge(withSkip(doneAt([0, 3, 4]), 1), 2)).toBeUndefined();
  });

  it('starts the keys on the first criterion still to decide', () => {
    const p = protocol('condambigqa-review');
    const item = serverItem({ values: new Map([[10, { [p.criteria[0]!.id]: { value: 'yes', comment: '' } }]]), skipped: new Set() }, 0);
    expect(firstUndecided(p.criteria, item)).toBe(1);
  });
});
