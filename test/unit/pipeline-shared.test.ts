import { afterEach, describe, expect, it, vi } from 'vitest';
import { extractJson, MinuteWindow } from '../../electron/services/pipeline/llm';
import { placeholders, render } from '../../electron/services/pipeline/prompts';
import { locateAnswer, passes } from '../../electron/services/pipeline/stages';
import { jsonSchemaFor, SCHEMA_NAMES, STAGE_SCHEMAS } from '../../shared/pipeline';

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
  it('finds the answer in the passage the model named, then in any other, ignoring case and spacing', () => {
    expect(locateAnswer('Sangamon River', passages, 1)).toEqual({ passageId: 10, start: 4, end: 18 });
    expect(locateAnswer('edith holt', passages, 1)).toEqual({ passageId: 11, start: 9, end: 20 });
    expect(locateAnswer('Mississippi', passages, 2)).toBeNull();
    expect(locateAnswer('River', passages, 7)).toEqual({ passageId: 10, start: 13, end: 18 });
  });
});

describe('reading model output', () => {
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
