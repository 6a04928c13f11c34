import { describe, expect, it } from 'vitest';
import { STOPWORDS, fold } from '../../shared/retrieval/terms';
import { createModel, getModel, saveModelState } from '../../db/queries/embeddings';
import { transaction } from '../../db/sql';
import { embedderFor } from '../../electron/services/retrieval/models';
import { deserializeState, FeatureCounts, GRAM_SEED, hashRange, OfflineEmbedder, passageFeatures, serializeState, TITLE_WEIGHT, WORD_SEED } from '../../electron/services/retrieval/offline-embedder';
import { memoryDb } from '../helpers/db';
import { rng, words } from '../helpers/synthetic';

/**
 * The offline embedder's fast paths against the straightforward ones on the same passages: the
 * reusable feature table against a Map per passage (as the embedder built them before), counts
 * merged from batches against one fit. Every vector must be the same to the last bit: the
 * stored vectors and codes depend on it.
 */

/** The features as a Map built word by word (the embedder's original code, kept as the reference). */
function referenceFeatures(text: string, scale: number, counts: Map<number, number>): Map<number, number> {
  for (const match of fold(text).matchAll(/[\p{L}\p{N}]+/gu)) {
    const word = match[0];
    if (STOPWORDS.has(word)) continue;
    const w = hashRange(WORD_SEED, word, 0, word.length);
    counts.set(w, (counts.get(w) ?? 0) + scale);
    const padded = `<${word}>`;
    const grams = Math.max(0, padded.length - 2) + Math.max(0, padded.length - 3);
    const gramWeight = Math.sqrt(0.5 / grams) * scale;
    for (let n = 3; n <= 4; n++) {
      for (let i = 0; i + n <= padded.length; i++) {
        const g = hashRange(GRAM_SEED + n, padded, i, i + n);
        counts.set(g, (counts.get(g) ?? 0) + gramWeight);
      }
    }
  }
  return counts;
}

const random = rng(5);
const PASSAGES = [
  ...Array.from({ length: 300 }, (_, i) => ({ title: words(random, 1 + (i % 3)), text: words(random, 20 + (i % 40)) })),
  // Beyond ASCII (folding, ligatures, combining marks, astral characters), stopwords alone, empty fields.
  { title: 'Café Müller', text: 'Ñandú über straße — 東京 Ελληνικά ﬁ ligature ① ½ e\u0301 😀 x' },
  { title: 'İstanbul', text: 'KELVIN \u212a sign and ß, THE Ford F-150 (1975)' },
  { title: '', text: 'the of and' },
  { title: 'A', text: '' },
];

describe('the offline embedder', () => {
  it('counts the same features, in the same order, as a Map per passage', () => {
    const counts = new FeatureCounts();
    for (const passage of PASSAGES) {
      const reference = referenceFeatures(passage.title, TITLE_WEIGHT, referenceFeatures(passage.text, 1, new Map()));
      const { keys, weights, size } = passageFeatures(passage, counts);
      const fast = Array.from({ length: size }, (_, i) => [keys[i], weights[i]]);
      expect(fast).toEqual([...reference]);
    }
    expect(PASSAGES.some((p) => passageFeatures(p, counts).size > 1024)).toBe(false);
    // A text long enough to grow the table past its first size.
    const long = { title: '', text: words(random, 3000) };
    expect(Array.from(passageFeatures(long, counts).keys.subarray(0, passageFeatures(long, counts).size))).toEqual([...referenceFeatures(long.text, 1, new Map()).keys()]);
  });

  it('fits the same from counts merged batch by batch as from one pass', () => {
    const whole = new OfflineEmbedder(64);
    whole.fit(PASSAGES);
    const merged = new OfflineEmbedder(64);
    for (let i = 0; i < PASSAGES.length; i += 70) {
      const part = new OfflineEmbedder(64);
      part.fit(PASSAGES.slice(i, i + 70));
      merged.merge(part.getState());
    }
    expect(merged.getState().documents).toBe(PASSAGES.length);
    expect(Buffer.from(merged.getState().df.buffer).equals(Buffer.from(whole.getState().df.buffer))).toBe(true);
    for (const p of PASSAGES) expect(merged.embedPassage(p)).toEqual(whole.embedPassage(p));
  });
});

describe('offline embedders held by the services', () => {
  it('are held per database: two databases whose models share an id and a count of fits embed with their own fits', async () => {
    const fitOn = (seed: number) => {
      const embedder = new OfflineEmbedder(64);
      const source = rng(seed);
      embedder.fit(Array.from({ length: 200 }, () => ({ title: words(source, 2), text: words(source, 30) })));
      return serializeState(embedder.getState());
    };
    const states = [fitOn(1), fitOn(2)];
    const embeddings = [];
    for (const state of states) {
      const db = memoryDb();
      const model = transaction(db, () => createModel(db, { name: 'offline:test:64', provider: 'offline', model: 'test', dimensions: 64, lexical: true, config: {} }));
      saveModelState(db, model.id, state);
      const row = getModel(db, model.id)!;
      expect(row).toMatchObject({ id: 1, state_tag: `1:${state.length}` });
      embeddings.push((await embedderFor(db, row).embedQueries(['which river runs through the old town']))[0]!);
    }
    const expected = states.map((state) => new OfflineEmbedder(64, deserializeState(state)).embed('which river runs through the old town'));
    expect(embeddings).toEqual(expected);
    expect(expected[0]).not.toEqual(expected[1]);
  });
});
