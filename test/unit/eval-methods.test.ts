import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../db/connection';
import { migrate } from '../../db/migrate';
import { migrations } from '../../db/migrations';
import { diversify } from '../../electron/services/evaluation/methods/diva';
import { condqaCombined, gevalFromLogprobs, gevalFromSamples } from '../../shared/eval/geval';
import { EVAL_METHODS, METHOD_INFO } from '../../shared/eval/methods';
import { resolveAdf, resolveSettings } from '../../shared/eval/methods/settings';
import type { RetrievedPassage } from '../../shared/eval/types';

/** The methods' pure parts on hand-computed cases: G-Eval's two scoring paths, DIVA's diversified set, the settings' defaults, and the migration. */

describe('G-Eval scores', () => {
  const ln = Math.log;
  it('weights the score token’s digit alternatives of at least 1% by probability, as DeepEval does', () => {
    const top = [
      { token: '7', logprob: ln(0.6) },
      { token: '8', logprob: ln(0.3) },
      { token: '6', logprob: ln(0.05) },
      { token: '9', logprob: ln(0.005) },
      { token: 'a', logprob: ln(0.02) },
    ];
    const content = [
      { token: '{"score": ', logprob: 0, top_logprobs: [] },
      { token: '7', logprob: ln(0.6), top_logprobs: top },
      { token: '7', logprob: ln(0.9), top_logprobs: [{ token: '1', logprob: 0 }] },
    ];
    // (7·.60 + 8·.30 + 6·.05) / .95 = 6.9 / .95.
    expect(gevalFromLogprobs(7, content)).toBeCloseTo(7.263158, 6);
    // No generated token spells the score: no weighted score.
    expect(gevalFromLogprobs(8, content)).toBeNull();
    // A token with a leading space is not the score token (DeepEval compares exactly).
    expect(gevalFromLogprobs(7, [{ token: ' 7', logprob: 0, top_logprobs: top }])).toBeNull();
    // Equal integers are summed before weighting ("07" and "7" are both 7).
    expect(gevalFromLogprobs(7, [{ token: '7', logprob: 0, top_logprobs: [{ token: '7', logprob: ln(0.25) }, { token: '07', logprob: ln(0.25) }, { token: '3', logprob: ln(0.5) }] }])).toBeCloseTo(5, 12);
  });

  it('averages samples, and combines CondAmbigQA’s three scores as Table 2 does', () => {
    expect(gevalFromSamples([...Array(12).fill(7), ...Array(6).fill(8), 5, 5])).toBeCloseTo(7.1, 12);
    expect(gevalFromSamples([])).toBeNull();
    // GPT-4o, Table 2: (0.552 + 0.558 + 0.875) / 3 = 0.661667 (reported 0.662).
    expect(condqaCombined(0.552, 0.558, 0.875)).toBeCloseTo(0.661667, 6);
    expect(condqaCombined(null, 0.5, 0.5)).toBeNull();
  });
});

describe("DIVA's diversified set", () => {
  const p = (key: string): RetrievedPassage => ({ id: 0, key, title: key, text: key, rank: 0, score: 0 });
  it('takes each ranking’s next unseen passage in turn, the question’s first, until k', () => {
    const set = diversify(
      [
        [p('a'), p('b'), p('c')],
        [p('a'), p('d')],
        [p('e'), p('b'), p('f')],
      ],
      5,
    );
    // Round 1: a (question), d (a seen), e; round 2: b, (interp. 1 empty), f.
    expect(set.map((x) => x.key)).toEqual(['a', 'd', 'e', 'b', 'f']);
    expect(set.map((x) => x.rank)).toEqual([1, 2, 3, 4, 5]);
    expect(diversify([[p('a')], []], 10).map((x) => x.key)).toEqual(['a']);
  });
});

describe('settings', () => {
  it('default to the papers’ values and record the resolved ones', () => {
    expect(resolveSettings({ method: 'react' }, true)).toMatchObject({ k: 10, searchBudget: 5, temperature: 0, maxTokens: 512, clarifications: 2, diva: { interpretations: 3, diversifyTemperature: 0.7, verifyTemperature: 0 }, condqa: { maxConditions: 5, maxCitations: 5 }, geval: { mode: 'auto', samples: 20, topLogprobs: 20 } });
    expect(resolveSettings({ method: 'adf' }, true).k).toBe(5);
    expect(resolveSettings({ method: 'cot' }, false).k).toBeNull();
    expect(resolveSettings({ method: 'react', maxIterations: 3 }, true).searchBudget).toBe(3);
    expect(resolveSettings({ method: 'react', searchBudget: 4, maxIterations: 3 }, true).searchBudget).toBe(4);
    expect(resolveSettings({ method: 'condqa', temperature: null }, true).temperature).toBeNull();
  });

  it("pick ADF's thresholds per dataset (ADF §5.3.4) and make explicit ones custom", () => {
    expect(resolveAdf(undefined, 'asqa')).toEqual({ adf: { profile: 'asqa', style: 'asqa', varianceThreshold: 0.15, separabilityThreshold: 0.05, relevanceThreshold: 0.2 }, note: null });
    expect(resolveAdf(undefined, 'ambignq').adf).toMatchObject({ profile: 'ambignq', varianceThreshold: 0.25, separabilityThreshold: 0.1 });
    const other = resolveAdf(undefined, 'musique');
    expect(other.adf.profile).toBe('ambignq');
    expect(other.note).toMatch(/no profile for the format "musique"/);
    expect(resolveAdf({ separabilityThreshold: 0.2 }, 'asqa').adf).toEqual({ profile: 'custom', style: 'asqa', varianceThreshold: 0.15, separabilityThreshold: 0.2, relevanceThreshold: 0.2 });
    expect(resolveAdf({ profile: 'asqa' }, 'ambignq').adf).toMatchObject({ profile: 'asqa', style: 'asqa', varianceThreshold: 0.15 });
  });

  it('every method documents its paper steps and its departures', () => {
    for (const m of EVAL_METHODS) {
      expect(METHOD_INFO[m].method).toBe(m);
      expect(METHOD_INFO[m].paperSteps.length).toBeGreaterThan(0);
      expect(METHOD_INFO[m].departures.length).toBeGreaterThan(0);
    }
  });
});

describe('migration 0013', () => {
  it('renames stored closed-book runs that hypothesised conditions, and keeps log-probabilities with calls', () => {
    const db = openDatabase(':memory:', { migrate: false });
    migrate(db, migrations.slice(0, 12));
    db.exec(`
      INSERT INTO runs (id, kind, status) VALUES (1, 'evaluation', 'done'), (2, 'evaluation', 'done');
      INSERT INTO eval_runs (id, method, model, endpoint, source_kind, source, status) VALUES
        (1, 'condqa-closed-book', 'fake/gen', '{}', 'dataset', 'cond', 'done'),
        (2, 'condqa', 'fake/gen', '{}', 'dataset', 'cond', 'done');
    `);
    migrate(db);
    expect(db.prepare('SELECT id, method FROM eval_runs ORDER BY id').all()).toEqual([
      { id: 1, method: 'condqa-closed-book-conditions' },
      { id: 2, method: 'condqa' },
    ]);
    db.exec(`INSERT INTO llm_calls (request_hash, endpoint, model, request, status, logprobs) VALUES ('h', 'e', 'm', '{}', 'ok', '[{"token":"7","logprob":0,"top_logprobs":[]}]')`);
    expect(() => db.exec(`INSERT INTO llm_calls (request_hash, endpoint, model, request, status, logprobs) VALUES ('h2', 'e', 'm', '{}', 'ok', 'not json')`)).toThrow(/CHECK/);
    db.close();
  });
});
