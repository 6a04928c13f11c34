import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { scoreAgainstGold, type GoldEntry } from '../../electron/services/evaluation/score';
import { scoreItems, type ScoreItemsTask, type ScoreWorkerReply } from '../../electron/services/evaluation/score-items';
import { joinChunks, scoreItemsInParallel } from '../../electron/services/evaluation/score-parallel';
import { METRIC_NAMES } from '../../shared/eval/metrics';
import { PUNKT_BUILTIN } from '../../shared/eval/punkt';
import type { Prediction } from '../../shared/eval/predictions';
import { tempDir, writeFile } from '../helpers/db';
import { rng, words } from '../helpers/synthetic';

/**
 * `evaluation:score` scores large sets on both cores: a worker thread takes the second half of the
 * items. The scores must be the very numbers one thread computes, and a worker that fails must
 * leave its half to the calling thread rather than lose it.
 */

const tmp = tempDir('awb-score-parallel-');
afterAll(() => tmp.cleanup());

const TYPES = ['semantic', 'syntactic', 'constraint'];

function sample(count: number): { gold: GoldEntry[]; predictions: Map<string, Prediction> } {
  const random = rng(61);
  const sentence = (n: number, inject = '') => `${words(random, n)} ${inject} ${words(random, 4)}. Then ${words(random, n)}.`;
  const gold: GoldEntry[] = [];
  const predictions = new Map<string, Prediction>();
  for (let k = 0; k < count; k++) {
    const answers = [words(random, 1 + (k % 3)), words(random, 2)];
    gold.push({
      sourceId: `q${k}`,
      type: TYPES[k % 3]!,
      gold: {
        interpretations: answers.map((a) => [a, words(random, 2)]),
        longAnswers: [sentence(12, answers[0]), sentence(10, answers[1])],
        citedFragments: [[String(1 + (k % 4)), `Title ${k}`]],
        fragmentCount: 5,
      },
    });
    // Every fifth question unanswered; the others find some answers, say others, cite some fragments.
    if (k % 5 !== 0) {
      const found = answers.filter(() => random() < 0.6);
      predictions.set(`q${k}`, { sourceId: `q${k}`, answer: sentence(9, found.join(' and ')), shortAnswers: k % 7 ? [...found, words(random, 1)] : null, citations: ['1', String(1 + (k % 6))], line: k + 1 });
    }
  }
  return { gold, predictions };
}

describe('scoring on two threads', () => {
  const { gold, predictions } = sample(240);
  const task: ScoreItemsTask = {
    golds: gold.map((g) => g.gold),
    predictions: gold.map((g) => predictions.get(g.sourceId) ?? { answer: '', shortAnswers: [], citations: [] }),
    metrics: METRIC_NAMES,
    variant: 'rougeLsum',
    punkt: PUNKT_BUILTIN,
  };

  it('a worker scores every chunk it claims as one thread does', async () => {
    const next = new Int32Array(new SharedArrayBuffer(8));
    const reply = await new Promise<ScoreWorkerReply>((resolve, reject) => {
      const worker = new Worker(path.resolve('electron/services/evaluation/score-worker.mjs'), { workerData: { task, next: next.buffer } });
      worker.once('message', (r: ScoreWorkerReply) => resolve(r));
      worker.once('error', reject);
    });
    expect(reply.op).toBe('scores');
    const chunks = reply.op === 'scores' ? reply.chunks : [];
    // Alone, it claimed them all, 64 at a time, counting each claim first (the fifth found none left).
    expect(chunks.map((c) => c.start)).toEqual([0, 64, 128, 192]);
    expect(Array.from(next)).toEqual([320, 5]);
    expect(chunks.flatMap((c) => c.items)).toEqual(scoreItems(task));
    // The items scored differ, so equal lists are not lists of equal items.
    expect(new Set(chunks.flatMap((c) => c.items).map((m) => m.rouge_l)).size).toBeGreaterThan(20);
  });

  it('joins both threads\' chunks in order, scoring here the chunks a worker claimed and never returned', async () => {
    const one = scoreItems(task);
    const both = await scoreItemsInParallel(task, { parallelFrom: 2 });
    expect(both.items).toEqual(one);
    const lost = joinChunks(task, [{ start: 64, items: one.slice(64, 128) }, { start: 192, items: one.slice(192) }]);
    expect(lost).toEqual(one);
    const broken = writeFile(tmp.file('broken-worker.mjs'), "throw new Error('no scoring here');\n");
    const fallback = await scoreItemsInParallel(task, { parallelFrom: 2, script: broken });
    expect(fallback.byWorker).toBe(0);
    expect(fallback.items).toEqual(one);
    expect((await scoreItemsInParallel(task, { parallelFrom: 1000 })).byWorker).toBe(0);
  });

  it('does not wait for a worker still starting when the items have run out', async () => {
    const slow = writeFile(tmp.file('slow-worker.mjs'), 'await new Promise((resolve) => setTimeout(resolve, 20000));\n');
    const started = performance.now();
    const result = await scoreItemsInParallel(task, { parallelFrom: 2, script: slow });
    expect(result.byWorker).toBe(0);
    expect(result.items).toEqual(scoreItems(task));
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it('makes the same report, intervals included', async () => {
    const options = { resamples: 200, seed: 3, punkt: PUNKT_BUILTIN };
    const both = await scoreAgainstGold(gold, predictions, { ...options, parallelFrom: 2 });
    const one = await scoreAgainstGold(gold, predictions, { ...options, parallelFrom: Number.POSITIVE_INFINITY });
    expect(both).toEqual(one);
    expect(both.missing).toBe(48);
    expect(both.details.rouge_l?.ci).not.toBeNull();
  });
});
