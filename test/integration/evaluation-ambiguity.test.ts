import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createEvalRun } from '../../electron/services/evaluation/run';
import { importFile } from '../../electron/services/import/import-file';
import { embedCorpus } from '../../electron/services/retrieval/models';
import { brain, json, schemaOf, systemOf, userOf, type Body } from '../helpers/fake-eval';
import { AMBIGNQ, writeFile } from '../helpers/db';
import { evalHarness } from '../helpers/eval-harness';

/**
 * DIVA, ADF and CondAmbigQA end to end through the real `openai` SDK against a scripted fake
 * server: DIVA's diversify → verify → adapt with its own temperatures and the verification
 * labels driving the answering mode; ADF's pathways in the run's retrieval mode, its profiles and
 * a failed HyDE call; CondAmbigQA's six settings and its G-Eval scores from token probabilities
 * or from samples, the expected values computed here independently.
 */

const h = evalHarness('awb-eval-ambiguity-');
const schemas = () => h.chats().map((r) => schemaOf(r.body as Body));
const bodies = (schema: string) => h.chats().filter((r) => schemaOf(r.body as Body) === schema).map((r) => r.body as Body);

describe('DIVA', () => {
  const labelled = (label: 'useful' | 'useless' | ((user: string) => 'useful' | 'useless')) => (body: Body) => {
    const user = userOf(body);
    if (schemaOf(body) === 'interpretations') return json({ interpretations: ['When did the old bridge open?', 'When did the new bridge open?', 'When did the ferry start?'] });
    if (schemaOf(body) === 'verify') {
      const count = (user.match(/^\[\d+\]/gm) ?? []).length;
      const l = typeof label === 'function' ? label(user) : label;
      return json({ labels: Array.from({ length: count }, (_, i) => ({ passage: i + 1, label: l })) });
    }
    return brain(body);
  };

  it('retrieves for the question, interprets from those passages, retrieves per interpretation, verifies each, then answers from useful evidence', async () => {
    h.fake.chat = (body) => labelled('useful')(body as Body);
    const run = await h.evaluate({ method: 'diva', limit: 1, temperature: 0.3, noCache: true });
    expect(run.status).toBe('done');
    expect(schemas()).toEqual(['interpretations', 'verify', 'verify', 'verify', 'synthesis']);
    const item = h.items(run.id)[0]!;
    expect(item.steps.filter((s) => s.kind === 'retrieve').map((s) => s.label)).toEqual([
      'search for the question',
      'search for interpretation 1',
      'search for interpretation 2',
      'search for interpretation 3',
      'diversified set',
    ]);
    // The interpretations are drawn from the passages found for the question.
    expect(userOf(bodies('interpretations')[0]!)).toMatch(/Passages found for it:\n\[1\] /);
    expect(systemOf(bodies('interpretations')[0]!)).toContain('up to 3 interpretations');
    // ADF's DIVA settings: diversify at 0.7, verify at 0; the answer at the run's temperature.
    expect(bodies('interpretations')[0]!.temperature).toBe(0.7);
    expect(bodies('verify').map((b) => b.temperature)).toEqual([0, 0, 0]);
    expect(bodies('synthesis')[0]!.temperature).toBe(0.3);
    expect(item.metrics.diva_quality).toBe('useful');
    expect(userOf(bodies('synthesis')[0]!)).toContain('opened to traffic in 1883');
    expect(item.interpretations.map((i) => i.evidence)).toEqual(['useful', 'useful', 'useful']);
  });

  it('answers from its own knowledge, with no passage shown, when every passage is useless', async () => {
    h.fake.chat = (body) => labelled('useless')(body as Body);
    const run = await h.evaluate({ method: 'diva', limit: 1, noCache: true });
    const answering = bodies('synthesis')[0]!;
    expect(userOf(answering)).toMatch(/Passages:\n\(none\)/);
    expect(userOf(answering)).not.toContain('opened to traffic');
    expect(systemOf(answering)).toMatch(/answer each from your own knowledge/);
    expect(h.items(run.id)[0]!.metrics.diva_quality).toBe('useless');
  });

  it('mixes the two when only some interpretations have useful evidence, and marks which', async () => {
    h.fake.chat = (body) => labelled((user) => (/new bridge/.test(user) ? 'useful' : 'useless'))(body as Body);
    const run = await h.evaluate({ method: 'diva', limit: 1, noCache: true });
    const answering = userOf(bodies('synthesis')[0]!);
    expect(answering).toContain('2. When did the new bridge open? (evidence: useful)');
    expect(answering).toContain('1. When did the old bridge open? (evidence: useless)');
    expect(systemOf(bodies('synthesis')[0]!)).toMatch(/cover some interpretations only/);
    expect(h.items(run.id)[0]!.metrics.diva_quality).toBe('partially_useful');
  });

  it('treats an unusable verification as partially useful and says so on the item and the run', async () => {
    h.fake.chat = (body) => (schemaOf(body as Body) === 'verify' ? { content: 'not json at all' } : labelled('useful')(body as Body));
    const run = await h.evaluate({ method: 'diva', limit: 1, noCache: true });
    const item = h.items(run.id)[0]!;
    expect(item.status).toBe('done');
    expect(item.notes).toContain('verification of interpretation 1 unusable: its passages were treated as partially useful');
    expect(item.metrics).toMatchObject({ diva_verify_unusable: 3, diva_quality: 'partially_useful' });
    expect(run.notes.join(' ')).toMatch(/DIVA's verification was unusable on 1 item/);
  });
});

describe('ADF', () => {
  const open = { varianceThreshold: 0, separabilityThreshold: -1, relevanceThreshold: -1 };
  const modes = (runId: number) => [...new Set(h.items(runId)[0]!.steps.filter((s) => s.kind === 'retrieve' && s.label !== 'RRF').map((s) => (s.content as { mode?: string }).mode))];

  it('skips its gate without vectors; records the AmbigNQ thresholds where the source has no profile', async () => {
    const run = await h.evaluate({ method: 'adf', limit: 1, k: undefined, noCache: true });
    expect(h.items(run.id)[0]!.notes.join(' ')).toMatch(/ADF gate skipped/);
    expect(run.settings.k).toBe(5);
    expect(run.settings.adf).toMatchObject({ profile: 'ambignq', varianceThreshold: 0.25, separabilityThreshold: 0.1, relevanceThreshold: 0.2 });
    expect(run.notes.join(' ')).toMatch(/no profile for the format "condambigqa"; the AmbigNQ values \(0.25 \/ 0.1\) were used/);
    // Unambiguous: a plain retrieve-then-generate, no intent listing.
    expect(schemas()).toEqual(['cited_plain_answer']);
    expect(h.items(run.id)[0]!.metrics.answer_count).toBeNull();
  });

  it('runs both pathways in the run’s retrieval mode: BM25 everywhere under bm25, dense everywhere under dense', async () => {
    await embedCorpus(h.db, { corpus: 'cond', provider: 'offline', dimensions: 64 });
    const bm25 = await h.evaluate({ method: 'adf', limit: 1, retrieval: 'bm25', adf: open, noCache: true });
    expect(modes(bm25.id)).toEqual(['bm25']);
    const labels = h.items(bm25.id)[0]!.steps.map((s) => s.label);
    expect(labels).toContain('direct 1');
    expect(labels).toContain('latent 1');
    expect(bm25.settings.adf.profile).toBe('custom');
    const latent = h.items(bm25.id)[0]!.steps.find((s) => s.label === 'latent 1')!.content as { query: string };
    expect(latent.query).toMatch(/^A passage about /);
    const dense = await h.evaluate({ method: 'adf', limit: 1, retrieval: 'dense', adf: open, noCache: true });
    expect(modes(dense.id)).toEqual(['dense']);
    expect(schemas()).toContain('sub_question');
    expect(schemas().at(-1)).toBe('synthesis');
  });

  it('takes the profile asked for (its thresholds and prompts), and custom thresholds when given', async () => {
    const asqa = await h.evaluate({ method: 'adf', limit: 1, adf: { profile: 'asqa', relevanceThreshold: -1 }, noCache: true });
    expect(asqa.settings.adf).toMatchObject({ profile: 'asqa', style: 'asqa', varianceThreshold: 0.15, separabilityThreshold: 0.05 });
    const gate = h.items(asqa.id)[0]!.steps.find((s) => s.label === 'geometry gate')!.content as { thresholds: { varianceThreshold: number } };
    expect(gate.thresholds.varianceThreshold).toBe(0.15);
    const custom = await h.evaluate({ method: 'adf', limit: 1, adf: { varianceThreshold: 0.3 } });
    expect(custom.settings.adf).toMatchObject({ profile: 'custom', varianceThreshold: 0.3, separabilityThreshold: 0.1 });
  });

  it('marks a failed HyDE call on the item and the run instead of leaving the latent pathway silently empty', async () => {
    h.fake.chat = (body) => (schemaOf(body as Body) === 'hyde' ? { status: 500 } : brain(body as Body));
    const run = await h.evaluate({ method: 'adf', limit: 1, adf: open, noCache: true });
    const item = h.items(run.id)[0]!;
    expect(item.status).toBe('done');
    const clusters = item.steps.filter((s) => /^sub-question \d+$/.test(s.label)).length;
    expect(clusters).toBeGreaterThan(0);
    expect(item.metrics.hyde_failures).toBe(clusters);
    expect(item.notes).toContain('HyDE failed for sub-question 1: its latent pathway is empty');
    expect(run.notes).toContain('HyDE failed on 1 item (their latent pathway was empty)');
  });

  it('the --hyde flag writes a hypothetical passage for a dense search', async () => {
    const run = await h.evaluate({ method: 'naive-rag', limit: 1, retrieval: 'dense', hyde: true, noCache: true });
    const steps = h.items(run.id)[0]!.steps;
    expect(steps.map((s) => s.label).slice(0, 2)).toEqual(['HyDE passage', 'search']);
    expect((steps[1]!.content as { hyde: string }).hyde).toMatch(/^A passage about/);
  });
});

describe('CondAmbigQA', () => {
  it('runs its six settings, each with its prompt and with or without the whole fragment list', async () => {
    const expected: [string, string, boolean, RegExp][] = [
      ['condqa', 'conditional', true, /at most 5 key conditions/],
      ['condqa-no-condition', 'cited_plain_answer', true, /cite at most 5 fragment numbers/],
      ['condqa-oracle', 'conditional', true, /under each of the conditions given/],
      ['condqa-closed-book', 'plain_answer', false, /directly from your own knowledge/],
      ['condqa-closed-book-conditions', 'conditional_closed', false, /at most 5 conditions/],
      ['condqa-closed-book-oracle', 'conditional_closed', false, /under each of the conditions given/],
    ];
    for (const [method, schema, fragments, system] of expected) {
      h.fake.requests.length = 0;
      const run = await h.evaluate({ method, limit: 1, noCache: true });
      expect(run.status).toBe('done');
      const b = h.chats()[0]!.body as Body;
      expect(schemaOf(b)).toBe(schema);
      expect(systemOf(b)).toMatch(system);
      expect(userOf(b).includes('Fragments:\n[1] Old River Bridge: The original suspension bridge over the river was opened to traffic in 1883 after fourteen years of work.')).toBe(fragments);
      expect(userOf(b).includes('Condition 1: If the question is about the original suspension bridge')).toBe(method.endsWith('oracle'));
      const item = h.items(run.id)[0]!;
      expect(item.retrieved.length > 0).toBe(fragments);
      expect(item.metrics.answer_count).toBe(method === 'condqa-no-condition' || method === 'condqa-closed-book' ? 1 : 2);
    }
  });

  it('keeps five of seven conditions and says so; keeps a fragment number the list lacks as invalid', async () => {
    h.fake.chat = (body) =>
      schemaOf(body as Body) === 'conditional'
        ? json({ pairs: Array.from({ length: 7 }, (_, i) => ({ condition: `condition ${i + 1}`, answer: i === 0 ? '1883' : `answer ${i + 1}`, citations: i === 0 ? [1, 9] : [] })) })
        : brain(body as Body);
    const run = await h.evaluate({ method: 'condqa', limit: 1, noCache: true });
    const item = h.items(run.id)[0]!;
    expect(item.interpretations).toHaveLength(5);
    expect(item.notes).toContain('the model gave 7 conditions; the first 5 were kept (the prompt asks for at most 5)');
    expect(item.citations).toEqual([item.gold.fragments[0]!.key, 'invalid:9']);
    expect(item.notes).toContain(`cited passage 9; the list has ${item.gold.fragments.length}`);
  });

  it('refuses a gold-condition setting on a source without gold conditions', async () => {
    const mini = writeFile(h.tmp.file('ambignq-mini.json'), JSON.stringify((JSON.parse(fs.readFileSync(AMBIGNQ, 'utf8')) as unknown[]).slice(0, 3)));
    expect((await importFile(h.db, { file: mini, format: 'ambignq', dataset: 'ambig-mini' })).committed).toBe(true);
    for (const method of ['condqa-oracle', 'condqa-closed-book-oracle']) {
      expect(() => createEvalRun(h.db, h.request({ method, dataset: 'ambig-mini' }))).toThrow(/gives the model the gold conditions, but ambig-mini has none/);
    }
  });
});

describe("CondAmbigQA's condition and answer scores (G-Eval)", () => {
  const ln = Math.log;
  /** The score token's alternatives: 7 at .60, 8 at .30, 6 at .05, 9 under 1%, and a non-digit. */
  const TOP = [
    { token: '7', logprob: ln(0.6) },
    { token: '8', logprob: ln(0.3) },
    { token: '6', logprob: ln(0.05) },
    { token: '9', logprob: ln(0.005) },
    { token: 'a', logprob: ln(0.02) },
  ];
  // Σ p·s / Σ p over the digits with p ≥ 1%: (7·.6 + 8·.3 + 6·.05) / (.6 + .3 + .05), on 0-1.
  const WEIGHTED = (7 * 0.6 + 8 * 0.3 + 6 * 0.05) / (0.6 + 0.3 + 0.05) / 10;
  const withLogprobs = (body: Body) => {
    if (schemaOf(body) !== 'geval') return brain(body);
    return {
      ...json({ score: 7, reason: 'close' }),
      ...(body.logprobs ? { logprobs: [{ token: '{"', logprob: -0.01, top_logprobs: [] }, { token: 'score', logprob: 0, top_logprobs: [] }, { token: '":', logprob: 0, top_logprobs: [] }, { token: '7', logprob: ln(0.6), top_logprobs: TOP }] } : {}),
    };
  };
  const judge = { endpoint: 'fake', model: 'geval-judge' };

  it('weights the score by the judge’s token probabilities, one call per criterion and pair, and combines the three scores', async () => {
    h.fake.chat = (body) => withLogprobs(body as Body);
    const run = await h.evaluate({ method: 'condqa', judge, noCache: true });
    const gevals = bodies('geval');
    expect(gevals.every((b) => b.logprobs === true && b.top_logprobs === 20 && b.temperature === 0)).toBe(true);
    const items = h.items(run.id);
    const pairs = items.reduce((n, i) => n + i.interpretations.length, 0);
    // A condition and an answer call for each generated pair.
    expect(gevals).toHaveLength(2 * pairs);
    for (const item of items) {
      expect(item.metrics.condition_score as number).toBeCloseTo(WEIGHTED, 12);
      expect(item.metrics.answer_score as number).toBeCloseTo(WEIGHTED, 12);
      expect(item.metrics).toMatchObject({ condition_score_mode: 'logprobs', answer_score_mode: 'logprobs' });
    }
    expect(WEIGHTED).toBeCloseTo(0.726316, 6);
    const m = run.metrics;
    expect(m.condqa_combined!.value!).toBeCloseTo((m.condition_score!.value! + m.answer_score!.value! + m.citation_precision!.value! / 100) / 3, 12);
    expect(run.notes).toContain('condition score: token probabilities on 3 items');
  });

  it('samples and averages when the endpoint returns no probabilities', async () => {
    const SEQUENCE = [7, 8, 7, 5];
    const seen = new Map<string, number>();
    h.fake.chat = (body) => {
      const b = body as Body;
      if (schemaOf(b) !== 'geval') return brain(b);
      const key = `${systemOf(b).slice(0, 60)}|${userOf(b)}`;
      const n = seen.get(key) ?? 0;
      seen.set(key, n + 1);
      return json({ score: SEQUENCE[n % 4], reason: 'sampled' });
    };
    const run = await h.evaluate({ method: 'condqa', judge, limit: 1, geval: { samples: 4 }, noCache: true });
    const item = h.items(run.id)[0]!;
    // Auto: the first call asks for probabilities and gets none, so the criterion is sampled 4 times at temperature 1, top_p 1.
    const sampled = bodies('geval').filter((b) => !b.logprobs);
    expect(sampled.every((b) => b.temperature === 1 && b.top_p === 1)).toBe(true);
    expect(sampled).toHaveLength(4 * 2 * item.interpretations.length);
    // The first call (with logprobs requested) took SEQUENCE[0] for each criterion and pair; the samples then see 8, 7, 5, 7.
    const expected = [8, 7, 5, 7].reduce((a, b) => a + b, 0) / 4 / 10;
    expect(item.metrics.condition_score as number).toBeCloseTo(expected, 12);
    expect(item.metrics.answer_score as number).toBeCloseTo(expected, 12);
    expect(item.metrics).toMatchObject({ answer_score_mode: 'sampled', answer_score_calls: 4 * item.interpretations.length });
  });

  it('fails the score with a message when probabilities are required and the judge gives none', async () => {
    const run = await h.evaluate({ method: 'condqa-no-condition', judge, limit: 1, geval: { mode: 'logprobs' }, noCache: true });
    const item = h.items(run.id)[0]!;
    expect(item.metrics.answer_score).toBeNull();
    expect(item.metrics.answer_score_error).toBe('the judge returned no token probabilities for its score');
    expect('condition_score' in item.metrics).toBe(false);
  });

  it('grades answers only in the settings without model-found conditions, and no citations closed-book', async () => {
    h.fake.chat = (body) => withLogprobs(body as Body);
    const oracle = h.items((await h.evaluate({ method: 'condqa-oracle', judge, limit: 1, noCache: true })).id)[0]!;
    expect(oracle.metrics.answer_score as number).toBeCloseTo(WEIGHTED, 12);
    expect('condition_score' in oracle.metrics).toBe(false);
    expect(typeof oracle.metrics.citation_precision).toBe('number');
    const closed = h.items((await h.evaluate({ method: 'condqa-closed-book', judge, limit: 1, noCache: true })).id)[0]!;
    expect(closed.metrics.answer_score as number).toBeCloseTo(WEIGHTED, 12);
    expect('citation_precision' in closed.metrics).toBe(false);
    expect('condition_score' in closed.metrics).toBe(false);
  });
});
