import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { GateThresholds } from '../../shared/api';
import { addToStats, countWords, renderCard, sizeCategory, type CardInput, type StatTable } from '../../shared/release/card';
import { evaluateGate } from '../../shared/release/gate';
import { checkLicence } from '../../shared/release/licence';
import { hfFeatures, parquetSchema, recordToRow, RELEASE_COLUMNS, schemaRows } from '../../shared/release/schema';

function input(overrides: Partial<CardInput> = {}): CardInput {
  const stats: StatTable = new Map();
  // MARCH-like shape: 3 semantic (2 hops, 2 interpretations), 1 syntactic (3 hops, 3 interpretations).
  for (let i = 0; i < 3; i++) addToStats(stats, i === 0 ? 'test' : 'train', 'semantic', 2, 2, 10);
  addToStats(stats, 'train', 'syntactic', 3, 3, 14);
  const sources = [{ dataset: 'AmbigNQ', licence: 'CC BY-SA 3.0', attribution: 'Min et al.', url: 'https://nlp.cs.washington.edu/ambigqa/' }];
  return {
    name: 'MARCH mini',
    version: '1.0.0',
    description: '',
    authors: 'A. Author and B. Author',
    date: '2026-01-02',
    appVersion: '0.1.0',
    schemaVersion: 7,
    splits: ['train', 'test'],
    splitSpec: { mode: 'fractions', fractions: { train: 0.75, test: 0.25 }, seed: 3 },
    stats,
    selectionText: 'every dataset',
    licence: checkLicence(sources, null),
    sources,
    funnel: null,
    agreement: null,
    thresholds: GateThresholds.parse({}),
    gate: evaluateGate(GateThresholds.parse({}), { criteria: null, minJudgments: null, unresolved: null, coverage: null }),
    licenceForced: null,
    ...overrides,
  };
}

describe('the dataset card', () => {
  it('counts words as splitting the trimmed text on JavaScript whitespace does, every kind of space included', () => {
    const spaces = [' ', '\t', '\n', '\v', '\f', '\r', '\u00a0', '\u1680', '\u2000', '\u2005', '\u200a', '\u2028', '\u2029', '\u202f', '\u205f', '\u3000', '\ufeff'];
    const notSpaces = ['a', 'É', '中', '\u200b', '\u0085', '\u180e', '😀', '-', '\u001f', '!'];
    let state = 3;
    const pick = <T,>(list: readonly T[]) => list[(state = (Math.imul(state, 1103515245) + 12345) >>> 0) % list.length]!;
    const reference = (text: string) => (text.trim() ? text.trim().split(/\s+/).length : 0);
    for (let n = 0; n < 2000; n++) {
      const text = Array.from({ length: n % 23 }, () => (pick([0, 1, 2]) ? pick(notSpaces) : pick(spaces))).join('');
      expect(countWords(text)).toBe(reference(text));
    }
    expect(countWords('')).toBe(0);
    expect(countWords('  two\u3000words ')).toBe(2);
  });

  it('starts with YAML front matter the Hub reads: licence, size, configs per split, features', () => {
    const card = renderCard(input());
    expect(card.startsWith('---\n')).toBe(true);
    const meta = parse(card.split('\n---\n')[0]!.slice(4)) as Record<string, unknown>;
    expect(meta).toMatchObject({
      pretty_name: 'MARCH mini 1.0.0',
      license: 'cc-by-sa-4.0',
      language: ['en'],
      task_categories: ['question-answering'],
      size_categories: ['n<1K'],
      configs: [{ config_name: 'default', data_files: [{ split: 'train', path: 'data/train-00000-of-00001.parquet' }, { split: 'test', path: 'data/test-00000-of-00001.parquet' }] }],
      dataset_info: { splits: [{ name: 'train', num_examples: 3 }, { name: 'test', num_examples: 1 }] },
    });
    expect((meta.dataset_info as { features: unknown }).features).toEqual(hfFeatures());
  });

  it('computes the statistics table from the data (MARCH Table 2, top)', () => {
    const card = renderCard(input());
    expect(card).toContain('| `train` | 2 | 1 | 3 |');
    expect(card).toContain('| Interpretations per instance | 2.00 | 3.00 | 2.25 |');
    expect(card).toContain('| Average hops | 2.00 | 3.00 | 2.25 |');
    expect(card).toContain('| Average question length (words) | 10.00 | 14.00 | 11.00 |');
  });

  it('says a release is share-alike, lists sources and limitations, and ends with a citation', () => {
    const card = renderCard(input());
    expect(card).toContain('licensed under **CC-BY-SA-4.0**');
    expect(card).toContain('**share-alike**');
    expect(card).toContain('| AmbigNQ | CC BY-SA 3.0 | Min et al. |');
    expect(card).toContain('No human validation campaign is linked');
    expect(card).toMatch(/@misc\{march_mini_1_0_0,\n {2}title {2}= \{\{MARCH mini\}: version 1\.0\.0\},\n {2}author = \{A\. Author and B\. Author\}/);
  });

  it('shows agreement with its interval, validity before and after filtering, the funnel and a forced gate', () => {
    const gate = evaluateGate(GateThresholds.parse({ minKappa: 0.8 }), { criteria: [{ id: 'ambiguity', fleissKappa: 0.5, ac1: 0.7, yesRate: 0.9 }], minJudgments: null, unresolved: null, coverage: { campaignId: 3, judged: 2, selected: 5 } }, 'pilot');
    const card = renderCard(
      input({
        gate,
        agreement: {
          campaign: { id: 3, name: 'Round 1', protocol: 'MARCH validation v1' },
          items: 2,
          raters: 5,
          criteria: [{ id: 'ambiguity', label: 'Question is ambiguous' }],
          rows: [
            { criterion: 'ambiguity', type: 'all', yesRate: 0.9, kappa: 0.5, ciLow: 0.31, ciHigh: 0.69, ac1: 0.7, pBar: 0.8 },
            { criterion: 'ambiguity', type: 'semantic', yesRate: 0.94, kappa: null, ciLow: null, ciHigh: null, ac1: null, pBar: null },
          ],
          allValid: { all: 0.85, semantic: 0.92 },
          beforeAfter: [
            { criterion: 'ambiguity', type: 'semantic', before: 0.83, after: 0.94 },
            { criterion: 'all_valid', type: 'semantic', before: 0.67, after: 0.89 },
          ],
        },
        funnel: {
          types: ['semantic'],
          rows: [{ step: 'clarified', counts: { semantic: 10 }, total: 10 }],
          calls: [
            { stage: 'clarify', model: 'gpt-x', calls: 12, costUsd: 0.5, unpriced: 0 },
            { stage: 'detect', model: 'gpt-y', calls: 8, costUsd: null, unpriced: 8 },
            { stage: 'filter', model: 'gpt-z', calls: 5, costUsd: 0.25, unpriced: 2 },
          ],
          prompts: [{ stage: 'clarify', versions: ['clarify/2'] }],
          costPerKept: {
            kept: { total: 4, byType: { semantic: 4 } },
            stages: [{ stage: 'clarify', spend: { tokens: 12_000, usd: 0.5 }, perKept: { tokens: 3000, usd: 0.125 }, calls: 12, batchCalls: 6, byType: { semantic: { spend: { tokens: 12_000, usd: 0.5 }, perKept: { tokens: 3000, usd: 0.125 } } } }],
            total: { spend: { tokens: 12_000, usd: 0.5 }, perKept: { tokens: 3000, usd: 0.125 }, calls: 12, batchCalls: 6, cachedPromptTokens: 0 },
            byType: { semantic: { spend: { tokens: 12_000, usd: 0.5 }, perKept: { tokens: 3000, usd: 0.125 } } },
            notNeeded: { votes: 0, spend: { tokens: 0, usd: 0 } },
            askEveryoneSync: { spend: { tokens: 12_000, usd: 1 }, perKept: { tokens: 3000, usd: 0.25 }, tokensRatio: 1, usdRatio: 0.5 },
            unpriced: ['gpt-y'],
          },
        },
      }),
    );
    expect(card).toContain('| clarify | 3,000 | 0.1250 | 0.1250 |');
    expect(card).toContain('| all stages | 3,000 | 0.1250 | 0.1250 |');
    expect(card).toContain('50% of the calls went through a Batch API. No price was set for gpt-y');
    expect(card).toContain('| Question is ambiguous | 94.0% | 90.0% | 0.50 [0.31, 0.69] | 0.70 | 0.80 |');
    expect(card).toContain('| **All fields valid** | 92.0% | 85.0% | — | — | — |');
    expect(card).toContain('| Question is ambiguous | 83.0 → 94.0 (+11.0) |');
    expect(card).toContain('| All fields valid | 67.0 → 89.0 (+22.0) |');
    expect(card).toContain('| clarify | gpt-x | 12 | 0.5000 |');
    // A model without a price is unknown, never free, and the total says it is a floor.
    expect(card).toContain('| detect | gpt-y | 8 | unknown |');
    expect(card).toContain('| filter | gpt-z | 5 | ≥ 0.2500 (2 unpriced) |');
    expect(card).toContain('In all: 25 calls, at least 0.7500 USD (10 calls had no price, so the total is unknown).');
    expect(card).toContain('Prompt versions: clarify clarify/2.');
    expect(card).toContain("| Fleiss' kappa: ambiguity | ≥ 0.8 | 0.5 | FAIL |");
    expect(card).toContain('Published despite failed checks.** Reason given: pilot');
    expect(card).toContain('sample of 2 judged instances, not on all 4');
  });

  it('names size categories as the Hub does', () => {
    expect([999, 1000, 10_000, 100_000, 1_000_000].map(sizeCategory)).toEqual(['n<1K', '1K<n<10K', '10K<n<100K', '100K<n<1M', '1M<n<10M']);
  });
});

describe('the Parquet layout', () => {
  it('uses three-level lists of structs, never-null lists and nullable scalars as documented', () => {
    const schema = parquetSchema();
    expect(schema[0]).toEqual({ name: 'schema', num_children: RELEASE_COLUMNS.length });
    const at = schema.findIndex((s) => s.name === 'interpretations');
    expect(schema.slice(at, at + 3)).toEqual([
      { name: 'interpretations', repetition_type: 'REQUIRED', converted_type: 'LIST', num_children: 1 },
      { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
      { name: 'element', repetition_type: 'REQUIRED', num_children: 7 },
    ]);
    expect(schema.find((s) => s.name === 'hops')).toEqual({ name: 'hops', type: 'INT32', repetition_type: 'OPTIONAL' });
    expect(schemaRows().map((r) => r.path)).toContain('long_answers[].citations[].interpretation');
  });

  it('turns a record into one row, leaving provenance to the JSONL file', () => {
    const row = recordToRow({
      format: 'awb-instance/1',
      dataset: { name: 'D', source_format: 'awb', description: '', licence: '', attribution: '', url: '' },
      base_question: { source_id: 'q1', question: 'Q?', hops: null, answer: null, aliases: [], answerable: null, decomposition: [], paragraphs: [], extra: {} },
      instance: {
        ambiguity_type: 'semantic', status: 'ready', stage: 'imported', removed_stage: null, removed_reason: null, evidence: [], long_answers: [], filter_votes: [], extra: {},
        interpretations: [{ clarified_question: 'Q1?', condition: null, status: 'active', dropped_reason: null, provenance: null, condition_provenance: null, sub_questions: [], evidence: [], citations: [], short_answer: { text: 'A', aliases: ['a'], passage: null, start: null, end: null, provenance: null }, extra: {} }],
      },
      passages: [],
    });
    expect(row).toMatchObject({ key: 'D/q1/semantic', ambiguity_type: 'semantic', interpretations: [{ short_answer: { text: 'A', aliases: ['a'], passage: null, start: null, end: null } }] });
    expect(JSON.stringify(row)).not.toContain('provenance');
  });
});
