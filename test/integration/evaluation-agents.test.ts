import { describe, expect, it } from 'vitest';
import { BASELINE_PROMPT_NAMES, EVAL_PROMPTS, fillTemplate } from '../../shared/eval/methods/prompts';
import { brain, json, schemaOf, systemOf, userOf, type Body } from '../helpers/fake-eval';
import { evalHarness } from '../helpers/eval-harness';

/**
 * The standard baselines, ReAct and CLARION run end to end through the real `openai` SDK against
 * a scripted fake server, each checked for the steps its paper prescribes: no disambiguation
 * instruction in a baseline, one search budget, CLARION's type-specific clarification, one
 * acting loop per item, hop-consistency checks with recovery, and the ablations.
 */

const h = evalHarness('awb-eval-agents-');
const schemas = () => h.chats().map((r) => schemaOf(r.body as Body));
const bodies = (schema: string) => h.chats().filter((r) => schemaOf(r.body as Body) === schema).map((r) => r.body as Body);
const DISAMBIGUATION = /interpretation|ambigu|more than one way|several answers|every answer|reading/i;

describe('the standard baselines', () => {
  it('ask for a plain answer: no prompt of No Retrieval, CoT, NaiveRAG, CoT+RAG or ReAct mentions ambiguity', async () => {
    for (const name of BASELINE_PROMPT_NAMES) expect(`${EVAL_PROMPTS[name].system}\n${EVAL_PROMPTS[name].user}`).not.toMatch(DISAMBIGUATION);
    const run = await h.evaluate({ method: 'naive-rag', noCache: true });
    expect(run.status).toBe('done');
    for (const r of h.chats()) expect(`${systemOf(r.body as Body)}\n${userOf(r.body as Body)}`).not.toMatch(DISAMBIGUATION);
    const item = h.items(run.id)[0]!;
    expect(item.metrics.answer_count).toBeNull();
    expect(item.metrics.answer_count_difference).toBeNull();
    // Every call of the run sends the run's temperature (0 by default) and the settings are recorded.
    expect(h.chats().every((r) => (r.body as Body).temperature === 0)).toBe(true);
    expect(run.settings).toMatchObject({ k: 3, temperature: 0, maxTokens: 512, searchBudget: 5 });
  });

  it('sends no temperature when asked for the endpoint default', async () => {
    const run = await h.evaluate({ method: 'no-retrieval', temperature: null, noCache: true, limit: 1 });
    expect(run.settings.temperature).toBeNull();
    expect('temperature' in h.chats()[0]!.body).toBe(false);
  });
});

describe('ReAct', () => {
  /** A model that always searches with a fresh query, and answers only when told no searches remain. */
  const searcher = (body: Body) => {
    if (schemaOf(body) !== 'react_step') return brain(body);
    const user = userOf(body);
    if (/No searches remain/.test(user)) return json({ thought: 'answer now', action: 'answer', query: '', answer: 'It opened in 1883.' });
    return json({ thought: 'more', action: 'search', query: `bridge opening ${(user.match(/^Step \d+$/gm) ?? []).length + 1}`, answer: '' });
  };

  it('stops at the search budget (5 by default): five searches, then one forced answer', async () => {
    h.fake.chat = (body) => searcher(body as Body);
    const run = await h.evaluate({ method: 'react', limit: 1, noCache: true });
    expect(run.status).toBe('done');
    const item = h.items(run.id)[0]!;
    expect(bodies('react_step')).toHaveLength(6);
    expect(item.steps.filter((s) => s.kind === 'retrieve')).toHaveLength(5);
    expect(item.metrics).toMatchObject({ searches_used: 5, forced_answer: true });
    expect(userOf(bodies('react_step')[0]!)).toContain('Searches used: 0 of 5.');
    expect(userOf(bodies('react_step')[5]!)).toContain('Searches used: 5 of 5.');
    expect(item.longAnswer).toBe('It opened in 1883.');
  });

  it('takes the budget from --search-budget (and the old --max-iterations), records it, and stops there', async () => {
    h.fake.chat = (body) => searcher(body as Body);
    const run = await h.evaluate({ method: 'react', limit: 1, searchBudget: 2, noCache: true });
    expect(run.settings.searchBudget).toBe(2);
    expect(bodies('react_step')).toHaveLength(3);
    expect(h.items(run.id)[0]!.metrics).toMatchObject({ searches_used: 2, forced_answer: true });
    const alias = await h.evaluate({ method: 'react', limit: 1, maxIterations: 3 });
    expect(alias.settings.searchBudget).toBe(3);
    const stored = JSON.parse((h.db.prepare('SELECT options FROM eval_runs WHERE id = ?').get(alias.id) as { options: string }).options) as Record<string, unknown>;
    expect(stored).toMatchObject({ searchBudget: 3 });
    expect('maxIterations' in stored).toBe(false);
  });

  it('answers without using the budget when the evidence is enough', async () => {
    const run = await h.evaluate({ method: 'react', limit: 1, noCache: true });
    expect(bodies('react_step')).toHaveLength(2);
    expect(h.items(run.id)[0]!.metrics).toMatchObject({ searches_used: 1, forced_answer: false });
  });

  it('refuses a repeated query (the step is spent) and fails the item when even the forced call gives no answer', async () => {
    h.fake.chat = (body) => (schemaOf(body as Body) === 'react_step' ? json({ thought: 'again', action: 'search', query: 'bridge opening', answer: '' }) : brain(body as Body));
    const run = await h.evaluate({ method: 'react', limit: 1, searchBudget: 3, noCache: true });
    const item = h.items(run.id)[0]!;
    expect(bodies('react_step')).toHaveLength(4);
    expect(item.steps.filter((s) => s.kind === 'retrieve')).toHaveLength(1);
    expect(JSON.stringify(item.steps)).toMatch(/already searched for/);
    expect(item.status).toBe('failed');
    expect(item.error).toMatch(/no answer after 3 steps and a forced final call/);
  });
});

describe('CLARION', () => {
  it('plans (detect, clarify by type), acts in one loop, checks each hop chain and answers from the verified ones', async () => {
    const run = await h.evaluate({ method: 'clarion', limit: 1, noCache: true });
    expect(run.status).toBe('done');
    expect(schemas()).toEqual(['detect', 'clarify', 'act_step', 'act_step', 'hop_verify']);
    const item = h.items(run.id)[0]!;
    expect((item.steps.find((s) => s.label === 'clarify (semantic)')!.content as { prompt: string }).prompt).toMatch(/^eval_clarion_clarify_semantic@v\d+$/);
    expect(userOf(bodies('clarify')[0]!)).toContain('exactly 2');
    expect(item.interpretations.map((i) => [i.answer, i.verdict])).toEqual([
      ['1883', 'pass'],
      ['May 2004', 'pass'],
    ]);
    expect(item.metrics).toMatchObject({ detected_ambiguous: true, detected_type: 'semantic', clarified: 2, searches_used: 1, hop_verdicts: { pass: 2, fail: 0, blocked: 0, recovered: 0 } });
    expect(item.strEm).toBe(1);
  });

  it('clarifies with the prompt of the detected type, and not at all when the question reads one way', async () => {
    for (const type of ['syntactic', 'constraint'] as const) {
      h.fake.requests.length = 0;
      h.fake.chat = (body) =>
        schemaOf(body as Body) === 'detect'
          ? json({ reasoning: 'r', is_ambiguous: true, ambiguity_type: type, ambiguous_aspects: ['x'], clarification_needed: 'y' })
          : brain(body as Body);
      await h.evaluate({ method: 'clarion', limit: 1, noCache: true });
      expect(systemOf(bodies('clarify')[0]!)).toBe(fillTemplate(EVAL_PROMPTS[`eval_clarion_clarify_${type}`].system, { count: 2 }));
    }
    h.fake.requests.length = 0;
    h.fake.chat = (body) => (schemaOf(body as Body) === 'detect' ? json({ reasoning: 'clear', is_ambiguous: false, ambiguity_type: 'none', ambiguous_aspects: [], clarification_needed: '' }) : brain(body as Body));
    const clear = await h.evaluate({ method: 'clarion', limit: 1, noCache: true });
    expect(schemas()).not.toContain('clarify');
    expect(h.items(clear.id)[0]!.interpretations.map((i) => i.question)).toEqual(['When did the bridge open?']);
    expect(h.items(clear.id)[0]!.metrics).toMatchObject({ detected_ambiguous: false, detected_type: 'none' });
  });

  it('spends one budget for the whole item: five searches and six acting calls, however many interpretations', async () => {
    h.fake.chat = (body) => {
      const b = body as Body;
      if (schemaOf(b) !== 'act_step') return brain(b);
      const user = userOf(b);
      if (/No steps remain/.test(user)) return json({ thought: 't', action: 'answer', interpretation: 0, query: '', answers: [{ interpretation: 1, answer: '1883', hops: [{ hop: 1, entity: 'Old River Bridge', passages: [1] }] }], long_answer: 'It opened in 1883.' });
      const n = (user.match(/^Step \d+$/gm) ?? []).length + 1;
      return json({ thought: 't', action: 'search', interpretation: (n % 2) + 1, query: `bridge query ${n}`, answers: [], long_answer: '' });
    };
    const run = await h.evaluate({ method: 'clarion', limit: 1, noCache: true });
    const item = h.items(run.id)[0]!;
    expect(item.interpretations).toHaveLength(2);
    expect(bodies('act_step')).toHaveLength(6);
    expect(item.steps.filter((s) => s.kind === 'retrieve')).toHaveLength(5);
    expect(item.metrics).toMatchObject({ searches_used: 5, steps_used: 5 });
    expect(userOf(bodies('act_step')[5]!)).toContain('Steps used: 5 of 5.');
    // Interpretation 2 got no answer within the budget: it is not safely answerable, and the final answer is composed.
    expect(item.interpretations.map((i) => i.verdict)).toEqual(['pass', 'unverified']);
    expect(schemas().at(-1)).toBe('compose');
  });

  /** A model whose acting agent answers both interpretations at once and whose checker fails (or blocks) interpretation 2. */
  const failing = (verdict: 'fail' | 'blocked') => (body: Body) => {
    const user = userOf(body);
    switch (schemaOf(body)) {
      case 'act_step':
        return json({
          thought: 't',
          action: 'answer',
          interpretation: 0,
          query: '',
          answers: [
            { interpretation: 1, answer: '1883', hops: [{ hop: 1, entity: 'Old River Bridge', passages: [] }] },
            { interpretation: 2, answer: 'Pennsic War', hops: [{ hop: 1, entity: '', passages: [] }] },
          ],
          long_answer: 'Either 1883 or Pennsic War.',
        });
      case 'hop_verify': {
        const numbers = [...user.matchAll(/^Interpretation (\d+): /gm)].map((m) => Number(m[1]));
        const recovered = /Answer: May 2004/.test(user);
        return json({
          verdicts: numbers.map((n) =>
            n === 1 || recovered ? { interpretation: n, verdict: 'pass', hop: 0, reason: 'ok', recovery_query: '' } : { interpretation: n, verdict, hop: 1, reason: 'H1 unsupported', recovery_query: verdict === 'fail' ? 'replacement bridge opening' : '' },
          ),
        });
      }
      case 'recover':
        return json({ answer: 'May 2004', hops: [{ hop: 1, entity: 'New River Crossing', passages: [1] }] });
      default:
        return brain(body);
    }
  };

  it('recovers a failed chain with one search from the budget, a re-answer and a re-check', async () => {
    h.fake.chat = (body) => failing('fail')(body as Body);
    const run = await h.evaluate({ method: 'clarion', limit: 1, noCache: true });
    const item = h.items(run.id)[0]!;
    expect(schemas()).toEqual(['detect', 'clarify', 'act_step', 'hop_verify', 'recover', 'hop_verify', 'compose']);
    const recovery = item.steps.find((s) => s.kind === 'retrieve')!;
    expect(recovery.label).toBe('recover interpretation 2');
    expect((recovery.content as { query: string }).query).toBe('replacement bridge opening');
    expect(item.interpretations.map((i) => [i.answer, i.verdict])).toEqual([
      ['1883', 'pass'],
      ['May 2004', 'recovered'],
    ]);
    expect(item.metrics).toMatchObject({ searches_used: 1, hop_verdicts: { pass: 1, fail: 1, blocked: 0, recovered: 1 } });
    expect(item.shortAnswers).toEqual(['1883', 'May 2004']);
  });

  it('with no budget left, a failed chain is reported as not safely answerable and left out of the answers', async () => {
    h.fake.chat = (body) => failing('fail')(body as Body);
    const run = await h.evaluate({ method: 'clarion', limit: 1, searchBudget: 1, noCache: true });
    const item = h.items(run.id)[0]!;
    expect(schemas()).toEqual(['detect', 'clarify', 'act_step', 'hop_verify', 'compose']);
    expect(userOf(bodies('compose')[0]!)).toMatch(/Not safely answerable:\n2\. When did the bridge open\? \[May 2004\]/);
    expect(item.interpretations.map((i) => i.verdict)).toEqual(['pass', 'unverified']);
    expect(item.shortAnswers).toEqual(['1883']);
    expect(item.longAnswer).not.toContain('Pennsic War');
  });

  it('a blocked chain is left for the user: named in the final answer, not answered', async () => {
    h.fake.chat = (body) => failing('blocked')(body as Body);
    const run = await h.evaluate({ method: 'clarion', limit: 1, noCache: true });
    const item = h.items(run.id)[0]!;
    expect(schemas()).not.toContain('recover');
    expect(userOf(bodies('compose')[0]!)).toMatch(/Needs the user to specify:\n2\. /);
    expect(item.interpretations[1]).toMatchObject({ verdict: 'needs-user', answer: null });
    expect(item.metrics).toMatchObject({ hop_verdicts: { pass: 1, fail: 0, blocked: 1, recovered: 0 } });
    expect(item.shortAnswers).toEqual(['1883']);
  });

  it('calls the planning agent again when the acting agent asks, within the interpretation cap', async () => {
    h.fake.chat = (body) => {
      const b = body as Body;
      if (schemaOf(b) === 'replan') return json({ reason: 'a third reading', interpretations: ['When did the old bridge open?', 'When did the new bridge open?', 'When did the footbridge open?'] });
      if (schemaOf(b) === 'act_step' && !/Step 1/.test(userOf(b))) return json({ thought: 't', action: 'plan', interpretation: 0, query: '', answers: [], long_answer: '' });
      return brain(b);
    };
    const run = await h.evaluate({ method: 'clarion', limit: 1, maxInterpretations: 2, noCache: true });
    const item = h.items(run.id)[0]!;
    expect(schemas().slice(0, 4)).toEqual(['detect', 'clarify', 'act_step', 'replan']);
    expect(item.interpretations.map((i) => i.question)).toEqual(['When did the old bridge open?', 'When did the new bridge open?']);
    expect(JSON.stringify(item.steps)).toMatch(/1 more left out: at most 2/);
  });

  it('the ablations: without clarification (detection only) and without planning; neither may re-plan', async () => {
    const plan = (body: Body) => (schemaOf(body) === 'act_step' && !/Step 1/.test(userOf(body)) ? json({ thought: 't', action: 'plan', interpretation: 0, query: '', answers: [], long_answer: '' }) : brain(body));
    h.fake.chat = (body) => plan(body as Body);
    const noClarify = await h.evaluate({ method: 'clarion-no-clarification', limit: 1, noCache: true });
    expect(schemas()[0]).toBe('detect');
    expect(schemas()).not.toContain('clarify');
    expect(schemas()).not.toContain('replan');
    const item = h.items(noClarify.id)[0]!;
    expect(item.interpretations.map((i) => i.question)).toEqual(['When did the bridge open?']);
    expect(JSON.stringify(item.steps)).toMatch(/Planning is not available here/);
    expect(userOf(bodies('act_step')[0]!)).toContain('Planning analysis: semantic ambiguity');
    h.fake.requests.length = 0;
    const noPlan = await h.evaluate({ method: 'clarion-no-planning', limit: 1, noCache: true });
    expect(schemas().filter((s) => ['detect', 'clarify', 'replan'].includes(s))).toEqual([]);
    expect(schemas()).toContain('hop_verify');
    expect(noPlan.status).toBe('done');
  });
});
