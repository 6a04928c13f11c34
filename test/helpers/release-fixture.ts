import type { AwbRecordInput } from '../../shared/awb-format';

/** Instances with every nested part: spans, aliases, sub-questions, evidence, long-answer citations. */
export function richRecord(i: number, dataset: AwbRecordInput['dataset'] = { name: 'Rich', source_format: 'awb', licence: 'CC BY 4.0', attribution: 'Test authors', url: 'https://example.org/rich' }): AwbRecordInput {
  const provenance = { source: 'llm' as const, detail: '', model: 'model-x', prompt_version: 'clarify/2', call: null };
  return {
    format: 'awb-instance/1',
    dataset,
    base_question: { source_id: `r${String(i).padStart(3, '0')}`, question: `Which river ${i} runs past the old mill town?`, hops: 2 + (i % 3), answer: null, extra: { split: i % 4 === 0 ? 'dev' : 'train' } },
    instance: {
      ambiguity_type: i % 2 ? 'semantic' : 'constraint',
      status: 'ready',
      stage: 'filter',
      evidence: [
        { passage: 'p1', rank: 1, score: 0.9, origin: 'sub-question 1', provenance },
        { passage: 'p2', rank: 2, score: null, origin: 'sub-question 2' },
      ],
      interpretations: [
        {
          clarified_question: `Which river ${i} runs past the mill town in Kent?`,
          provenance,
          sub_questions: [{ question: 'Where is the mill town?', answer: 'Kent' }, { question: 'Which river is there?' }],
          evidence: [{ passage: 'p3', rank: 1, score: 0.5, origin: 'interp' }],
          citations: [1, 2],
          short_answer: { text: 'Medway', aliases: ['River Medway', 'the Medway'], passage: 'p1', start: 4, end: 10 },
        },
        { clarified_question: `Which river ${i} runs past the mill town in Ohio?`, condition: 'If the town is in Ohio', short_answer: { text: 'Mad River' } },
      ],
      long_answers: [{ text: 'In Kent it is the Medway; in Ohio the Mad River.', citations: [{ passage: 'p1', interpretation: 0, start: 4, end: 10 }, { passage: 'p3' }], provenance }],
    },
    passages: [
      { id: 'p1', corpus: 'wiki', source_id: '11', title: 'Medway', text: 'The Medway flows through Kent.' },
      { id: 'p2', corpus: 'wiki', title: 'Mills', text: 'Mill towns grew along rivers.' },
      { id: 'p3', corpus: 'wiki', title: 'Ohio', text: 'The Mad River is in Ohio.' },
    ],
  };
}
