import { describe, expect, it } from 'vitest';
import { chunkText } from '../../shared/retrieval/chunk';
import { findConstraints, relax } from '../../shared/retrieval/constraints';
import { reciprocalRankFusion } from '../../shared/retrieval/fusion';
import { ndcgAtK, recallAtK } from '../../shared/retrieval/metrics';
import { mean, meanOfDefined } from '../../shared/statistics';
import { contentTerms, fold } from '../../shared/retrieval/terms';
import { ADF_AMBIGNQ, geometrySignals, twoMeans } from '../../shared/retrieval/geometry';
import { dispersion, silhouette } from '../../shared/vectors';
import { OfflineEmbedder } from '../../electron/services/retrieval/offline-embedder';
import { standaloneSubQuestion } from '../../electron/services/retrieval/evaluate';
import { rng } from '../helpers/synthetic';

describe('query terms', () => {
  it('fold like FTS5 unicode61 and drop stopwords', () => {
    expect(fold('Zürich Café')).toBe('zurich cafe');
    expect(contentTerms('Who was the first president of the Association, and the ASSOCIATION?')).toEqual(['first', 'president', 'association']);
    expect(contentTerms('the of and')).toEqual([]);
  });
});

describe('reciprocal rank fusion', () => {
  it('adds 1/(k + rank) over rankings', () => {
    const fused = reciprocalRankFusion([['a', 'b', 'c'], ['c', 'a']], 60);
    expect(fused.map((f) => f.id)).toEqual(['a', 'c', 'b']);
    expect(fused[0]!.score).toBeCloseTo(1 / 61 + 1 / 62, 12);
    expect(fused[2]!.score).toBeCloseTo(1 / 62, 12);
    // A smaller constant favours the top ranks more.
    expect(reciprocalRankFusion([['x', 'y'], ['y', 'z']], 1)[0]!.id).toBe('y');
  });
});

describe('metrics', () => {
  it('recall@k and nDCG@k with binary relevance', () => {
    const gold = new Set(['g1', 'g2']);
    expect(recallAtK(['x', 'g1', 'y'], gold, 2)).toBe(0.5);
    expect(recallAtK(['x', 'g1', 'y'], gold, 1)).toBe(0);
    expect(ndcgAtK(['g1', 'g2', 'x'], gold, 3)).toBeCloseTo(1, 12);
    expect(ndcgAtK(['x', 'g1'], gold, 3)).toBeCloseTo(1 / Math.log2(3) / (1 + 1 / Math.log2(3)), 12);
    expect(recallAtK(['x'], new Set(), 10)).toBeNull();
    expect(meanOfDefined([1, null, 0])).toBe(0.5);
  });

  it('turns gold sub-questions into standalone queries', () => {
    expect(standaloneSubQuestion('Who was the first president of #1 ?', ['American Psychological Association'])).toBe(
      'Who was the first president of American Psychological Association ?',
    );
    expect(standaloneSubQuestion('#1 >> shares border with', ['Lorraine'])).toBe('Lorraine   shares border with');
  });
});

describe('chunking articles into passages', () => {
  const random = rng(4);
  const sentence = () => {
    const n = 8 + Math.floor(random() * 20);
    const words = Array.from({ length: n }, (_, i) => (i === 0 ? 'Word' : `w${Math.floor(random() * 1000)}`));
    return `${words.join(' ')}.`;
  };
  const article = Array.from({ length: 60 }, sentence).join(' ');

  it('cuts on sentence boundaries into about 100 words, with offsets into the article', () => {
    const chunks = chunkText(article, 100);
    expect(chunks.length).toBeGreaterThan(5);
    for (const chunk of chunks) {
      expect(article.slice(chunk.start, chunk.end)).toBe(chunk.text);
      expect(chunk.text.endsWith('.')).toBe(true);
      const words = chunk.text.split(/\s+/).length;
      expect(words).toBeLessThanOrEqual(130);
    }
    const middle = chunks.slice(0, -1).map((c) => c.text.split(/\s+/).length);
    expect(mean(middle)).toBeGreaterThan(85);
    // Nothing is lost between passages but white space.
    expect(chunks.map((c) => c.text).join(' ').replace(/\s+/g, ' ')).toBe(article.replace(/\s+/g, ' '));
  });

  it('cuts a sentence with no end between words', () => {
    const long = Array.from({ length: 350 }, (_, i) => `w${i}`).join(' ');
    const chunks = chunkText(long, 100);
    expect(chunks.map((c) => c.text.split(' ').length)).toEqual([100, 100, 100, 50]);
  });
});

describe('constraints for relaxing a query', () => {
  it('finds quoted spans, dates and numbers', () => {
    const q = 'Who directed "The Long Night" released on June 5, 1998 with 3 sequels?';
    expect(findConstraints(q).map((c) => [c.kind, c.text])).toEqual([
      ['quoted', '"The Long Night"'],
      ['date', 'June 5, 1998'],
      ['number', '3'],
    ]);
    expect(relax(q, findConstraints(q)[1]!)).toBe('Who directed "The Long Night" released on with 3 sequels?');
    expect(findConstraints('Who won in 2004?')).toEqual([{ kind: 'date', text: '2004', start: 11, end: 15 }]);
    expect(findConstraints('Who is the king?')).toEqual([]);
  });
});

describe('retrieval geometry (ADF)', () => {
  const around = (centre: number[], spread: number, random: () => number) =>
    Float32Array.from(centre.map((c) => c + (random() - 0.5) * spread));

  it('measures dispersion around the centroid', () => {
    const same = [Float32Array.from([1, 0]), Float32Array.from([1, 0])];
    expect(dispersion(same)).toBe(0);
    expect(dispersion([Float32Array.from([1, 0]), Float32Array.from([-1, 0])])).toBeCloseTo(1, 6);
  });

  it('splits two separated groups with 2-means and scores them well separated', () => {
    const random = rng(9);
    const a = Array.from({ length: 5 }, () => around([1, 0, 0, 0], 0.1, random));
    const b = Array.from({ length: 5 }, () => around([0, 1, 0, 0], 0.1, random));
    const labels = twoMeans([...a, ...b]);
    expect(new Set(labels.slice(0, 5)).size).toBe(1);
    expect(new Set(labels.slice(5)).size).toBe(1);
    expect(labels[0]).not.toBe(labels[5]);
    expect(silhouette([...a, ...b], labels)!).toBeGreaterThan(0.8);
    const signals = geometrySignals([...a, ...b], ADF_AMBIGNQ);
    expect(signals.state).toBe('ambiguous');
  });

  it('calls one tight group unambiguous', () => {
    const random = rng(2);
    const tight = Array.from({ length: 10 }, () => around([1, 1, 1, 1], 0.02, random));
    const signals = geometrySignals(tight, { variance: 0.25, separation: 0.6 });
    expect(signals.dispersion).toBeLessThan(0.01);
    expect(signals.state).toBe('unambiguous');
  });
});

describe('the offline embedder', () => {
  const embedder = new OfflineEmbedder(384);
  embedder.fit([
    { title: 'Ford F-Series', text: 'The F-Series is a series of pickup trucks made by Ford.' },
    { title: 'Fender Mustang', text: 'The Mustang is an electric guitar made by Fender.' },
    { title: 'Paris', text: 'Paris is the capital of France.' },
  ]);
  const cosine = (a: Float32Array, b: Float32Array) => a.reduce((s, v, i) => s + v * b[i]!, 0);

  it('gives deterministic unit vectors', () => {
    const v = embedder.embed('pickup trucks made by Ford');
    expect(v).toHaveLength(384);
    expect(Math.sqrt(cosine(v, v))).toBeCloseTo(1, 5);
    expect(embedder.embed('pickup trucks made by Ford')).toEqual(v);
    expect(Array.from(embedder.embed('the of and')).every((x) => x === 0)).toBe(true);
  });

  it('places texts that share words (and word pieces) close', () => {
    const query = embedder.embed('Which pickup truck does Ford make?');
    const truck = embedder.embedPassage({ title: 'Ford F-Series', text: 'The F-Series is a series of pickup trucks made by Ford.' });
    const guitar = embedder.embedPassage({ title: 'Fender Mustang', text: 'The Mustang is an electric guitar made by Fender.' });
    expect(cosine(query, truck)).toBeGreaterThan(cosine(query, guitar) + 0.2);
    // Character n-grams: "publisher" and "published" share pieces.
    expect(cosine(embedder.embed('publisher'), embedder.embed('published'))).toBeGreaterThan(0.2);
    expect(Math.abs(cosine(embedder.embed('publisher'), embedder.embed('volcano')))).toBeLessThan(0.1);
  });
});
