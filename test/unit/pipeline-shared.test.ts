import { afterEach, describe, expect, it, vi } from 'vitest';
import { extractJson, MinuteWindow } from '../../electron/services/pipeline/llm';
import { placeholders, render } from '../../electron/services/pipeline/prompts';
import { passes } from '../../shared/pipeline-rules';
import { locateInPassages } from '../../shared/checks';
import { fakeEmbedding, fakeModel, promptPassages, requestedSchema } from '../../electron/dev/fake-model';
import { jsonSchemaFor, PipelineConfig, SCHEMA_NAMES, STAGE_SCHEMAS, type SchemaName } from '../../shared/pipeline';
import { fillBridges, modelIdentity, planCollisions, shorteningProblem, stableSubset, subsetKey } from '../../shared/pipeline-rules';

describe('vote rules', () => {
  it('count votes as all, majority, or at least N', () => {
    expect([passes('all', 4, 4), passes('all', 3, 4)]).toEqual([true, false]);
    expect([passes('majority', 3, 4), passes('majority', 2, 4), passes('majority', 2, 3)]).toEqual([true, false, true]);
    expect([passes({ atLeast: 2 }, 2, 4), passes({ atLeast: 3 }, 2, 4)]).toEqual([true, false]);
    expect(passes('all', 0, 0)).toBe(false);
  });
});

describe('answers as spans', () => {
  const passages = [
    { id: 10, text: 'The Sangamon River flows through Springfield.' },
    { id: 11, text: 'In 1921, Edith  Holt founded the museum.' },
  ];
  it('finds the answer in the passage the model named, then in any other (marked as a fall-back), ignoring case and spacing', () => {
    expect(locateInPassages(passages, 'Sangamon River', 1)).toEqual({ index: 0, start: 4, end: 18, alias: null, inNamed: true });
    expect(locateInPassages(passages, 'edith holt', 1)).toEqual({ index: 1, start: 9, end: 20, alias: null, inNamed: false });
    expect(locateInPassages(passages, 'Mississippi', 2)).toBeNull();
    expect(locateInPassages(passages, 'River', 7)).toEqual({ index: 0, start: 13, end: 18, alias: null, inNamed: false });
    expect(locateInPassages(passages, 'Spring', 1)).toBeNull();
  });
});

describe('model output', () => {
  it('takes the JSON object from a bare answer, a fenced block or surrounding prose', () => {
    expect(extractJson('{"a": 1}')).toEqual({ a: 1 });
    expect(extractJson('Here you go:\n```json\n{"a": 2}\n```')).toEqual({ a: 2 });
    expect(extractJson('Sure. {"a": 3} Hope that helps.')).toEqual({ a: 3 });
    expect(() => extractJson('no idea')).toThrow(/no JSON object/);
  });

  it('sends strict JSON schemas: every property required, no others allowed', () => {
    for (const name of SCHEMA_NAMES) {
      const schema = jsonSchemaFor(name) as { type: string; required: string[]; properties: Record<string, unknown>; additionalProperties: boolean };
      expect(schema.type).toBe('object');
      expect(schema.additionalProperties).toBe(false);
      expect([...schema.required].sort()).toEqual(Object.keys(schema.properties).sort());
      expect(JSON.stringify(schema)).not.toMatch(/"\$schema"|"minimum"|"minItems"/);
    }
    expect(STAGE_SCHEMAS.detect_syntactic.safeParse({ ambiguous: true, phenomena: [19], reason: '' }).success).toBe(false);
  });
});

describe('prompt templates', () => {
  it('fill their placeholders and leave unknown ones visible', () => {
    expect(render('Q: {{question}} ({{type}}) {{other}}', { question: 'Who?', type: 'semantic' })).toBe('Q: Who? (semantic) {{other}}');
    expect(placeholders('detect_constraint')).toEqual(['question', 'total_hits', 'kl_divergence', 'relax_delta_ratio']);
  });
});

describe('per-minute limits', () => {
  afterEach(() => vi.useRealTimers());

  it('let a minute hold no more than its limit, and free room as the minute passes', async () => {
    vi.useFakeTimers();
    const window = new MinuteWindow(2);
    const taken: number[] = [];
    for (const n of [1, 2, 3]) void window.take(1, undefined).then(() => taken.push(n));
    await vi.advanceTimersByTimeAsync(0);
    expect(taken).toEqual([1, 2]);
    await vi.advanceTimersByTimeAsync(59_000);
    expect(taken).toEqual([1, 2]);
    await vi.advanceTimersByTimeAsync(1_100);
    expect(taken).toEqual([1, 2, 3]);
  });

  it('stop waiting at once when the run is cancelled', async () => {
    vi.useFakeTimers();
    const window = new MinuteWindow(1);
    await window.take(1, undefined);
    const controller = new AbortController();
    let outcome = 'waiting';
    void window.take(1, controller.signal).then(
      () => (outcome = 'taken'),
      (error: Error) => (outcome = error.message),
    );
    await vi.advanceTimersByTimeAsync(1_000);
    expect(outcome).toBe('waiting');
    controller.abort();
    await vi.advanceTimersByTimeAsync(0);
    expect(outcome).toBe('Cancelled');
  });
});

describe('model identity', () => {
  it('compares models without provider prefix, snapshot date or routing variant, keeping size tags', () => {
    expect(modelIdentity('openai/gpt-4.1')).toBe('gpt-4.1');
    expect(modelIdentity('gpt-4.1-2025-04-14')).toBe('gpt-4.1');
    expect(modelIdentity('anthropic/claude-sonnet-4-20250514')).toBe('claude-sonnet-4');
    expect(modelIdentity('meta-llama/llama-4-maverick:free')).toBe('llama-4-maverick');
    expect(modelIdentity('GPT-4.1')).toBe('gpt-4.1');
    expect(modelIdentity('llama3:70b')).not.toBe(modelIdentity('llama3:8b'));
    expect(modelIdentity('gpt-4.1-mini')).not.toBe(modelIdentity('gpt-4.1'));
  });

  it('accepts the older clarify.minReadings and reads it as minInterpretations', () => {
    const config = PipelineConfig.parse({
      endpoints: { a: { baseURL: 'http://127.0.0.1:1/v1' } },
      detectors: [{ endpoint: 'a', model: 'd' }],
      generator: { endpoint: 'a', model: 'g' },
      filters: [{ endpoint: 'a', model: 'f' }],
      clarify: { minReadings: 3 },
    });
    expect(config.clarify).toEqual({ minInterpretations: 3 });
    expect(config.rerank).toEqual({ provider: 'offline' });
  });
});

describe('sub-questions without placeholders', () => {
  it('fills "#n" with the answer of step n when known, else describes step n', () => {
    expect(fillBridges(['Who makes the Mustang?', 'What pickup does #1 sell most?'], ['Ford'])).toEqual(['Who makes the Mustang?', 'What pickup does Ford sell most?']);
    expect(fillBridges(['Who makes the Mustang?', 'What pickup does #1 sell most?'])).toEqual(['Who makes the Mustang?', 'What pickup does the answer to "Who makes the Mustang" sell most?']);
    expect(fillBridges(['Where was #2 born?', 'Who wrote [#1]?'])).toEqual(['Where was an earlier answer born?', 'Who wrote the answer to "Where was an earlier answer born"?']);
    expect(fillBridges(['No placeholder here?'])).toEqual(['No placeholder here?']);
  });
});

describe('collisions', () => {
  it('drop the later of two interpretations with the same normalised answer, and count the distinct ones', () => {
    expect(planCollisions([{ position: 0, answer: 'F-Series' }, { position: 1, answer: 'single coil' }, { position: 2, answer: 'the f series' }])).toEqual({
      collisions: [{ position: 2, sameAs: 0, answer: 'f series' }],
      distinct: 2,
    });
    expect(planCollisions([{ position: 0, answer: 'Ford' }, { position: 1, answer: 'ford' }])).toEqual({ collisions: [{ position: 1, sameAs: 0, answer: 'ford' }], distinct: 1 });
    expect(planCollisions([{ position: 0, answer: 'a1' }, { position: 1, answer: 'b2' }]).collisions).toEqual([]);
  });
});

describe('shortening', () => {
  it('accepts only a span of the passage, within the limit, shorter than before', () => {
    expect(shorteningProblem('horses brought', 'horses brought to the Americas by Spanish settlers in the sixteenth century', 10, true)).toBeNull();
    expect(shorteningProblem('wild horses', 'x y z', 10, false)).toMatch(/not a span of the answer's passage/);
    expect(shorteningProblem('a b c d e f g h i j k', 'a b c d e f g h i j k l', 10, true)).toMatch(/has 11 tokens, more than 10/);
    expect(shorteningProblem('a b', 'a b', 10, true)).toMatch(/not shorter/);
  });
});

describe('stable subsets', () => {
  it('pick the same items in the same order whatever order they come in', () => {
    const items = Array.from({ length: 50 }, (_, i) => ({ dataset: 'MuSiQue', sourceId: `2hop__${i}`, id: i }));
    const first = stableSubset(items, 5).map((i) => i.sourceId);
    expect(stableSubset([...items].reverse(), 5).map((i) => i.sourceId)).toEqual(first);
    expect(first).not.toEqual(items.slice(0, 5).map((i) => i.sourceId));
    expect(stableSubset(items, 6).slice(0, 5).map((i) => i.sourceId)).toEqual(first);
    expect(subsetKey('A', '1')).not.toBe(subsetKey('B', '1'));
  });
});

describe('the fake model', () => {
  const body = (system: string, user: string, name?: string) => ({ model: 'gen', messages: [{ role: 'system', content: system }, { role: 'user', content: user }], ...(name ? { response_format: { type: 'json_schema', json_schema: { name } } } : {}) });

  it('knows the schema asked for by name, or from the schema in the instructions', () => {
    expect(requestedSchema(body('x', 'y', 'filter'))).toBe('filter');
    const inPrompt = (schema: SchemaName, system = '') => body(`${system}\n\nAnswer with one JSON object only, matching this JSON Schema:\n${JSON.stringify(jsonSchemaFor(schema))}`, 'Question: q');
    for (const schema of ['detect_syntactic', 'clarify', 'decompose', 'short_answer', 'long_answer', 'shorten', 'filter'] as const) expect(requestedSchema(inPrompt(schema))).toBe(schema);
    expect(requestedSchema(inPrompt('detect_semantic', 'semantic ambiguity'))).toBe('detect_semantic');
    expect(requestedSchema(inPrompt('detect_constraint', 'You screen search questions for constraint ambiguity'))).toBe('detect_constraint');
  });

  it('answers with a span of a numbered passage that the question does not already contain', () => {
    const user = 'Question: Which river flows through Springfield, Illinois?\nSteps towards it:\n1. x\n\nPassages:\n[1] Peoria: The Illinois River flows past Peoria.\n\n[2] Springfield, Illinois: The Sangamon River flows through Springfield, Illinois.\n\nKeys: "answer"';
    expect(promptPassages(user)).toEqual(['Peoria: The Illinois River flows past Peoria.', 'Springfield, Illinois: The Sangamon River flows through Springfield, Illinois.']);
    const reply = fakeModel()(body('s', user, 'short_answer'));
    expect(JSON.parse(reply.content!)).toEqual({ answer: 'Sangamon River', passage: 2 });
  });

  it('follows its script per question and per model', () => {
    const model = fakeModel({ detect: { semantic: false }, items: [{ question: 'Mustang', detect: { syntactic: { 'det-a': true } }, filter: false }] });
    const ask = (name: string, m: string, question: string) => JSON.parse(model({ ...body('s', `Question: ${question}`, name), model: m }).content!) as { ambiguous?: boolean; aligned?: boolean };
    expect(ask('detect_syntactic', 'det-a', 'Who made the Mustang?').ambiguous).toBe(true);
    expect(ask('detect_syntactic', 'det-b', 'Who made the Mustang?').ambiguous).toBe(false);
    expect(ask('detect_semantic', 'det-a', 'Who made the Mustang?').ambiguous).toBe(false);
    expect(ask('filter', 'fil-a', 'Who made the Mustang?').aligned).toBe(false);
    expect(ask('filter', 'fil-a', 'Who made the Model T?').aligned).toBe(true);
  });

  it('embeds texts with shared words closer than texts without', () => {
    const cos = (a: number[], b: number[]) => a.reduce((s, v, i) => s + v * b[i]!, 0);
    const river = fakeEmbedding('the Sangamon River in Illinois', 64);
    expect(cos(river, fakeEmbedding('Sangamon River', 64))).toBeGreaterThan(cos(river, fakeEmbedding('electric guitar pickups', 64)));
    expect(fakeEmbedding('', 8)).toHaveLength(8);
  });
});
