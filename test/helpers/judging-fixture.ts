import { AWB_FORMAT } from '../../shared/awb-format';

/**
 * Instances shaped like the pipeline's output, for the annotator's end-to-end test: a question
 * with two interpretations, each with sub-questions and ten ranked evidence passages (the answer
 * in the best one, the rest mostly beside the point), and a long answer that names both short
 * answers. Ten passages per interpretation is what pushed the judged text two screens down.
 */

const SUBJECTS: [string, string, string, string, string][] = [
  // subject, reading 1, answer 1, reading 2, answer 2
  ['Mustang', 'the Ford car', 'F-Series', 'the Fender guitar', 'single-coil pickup'],
  ['Mercury', 'the planet', 'Caloris Basin', 'the element', 'cinnabar'],
  ['Jaguar', 'the cat', 'Pantanal', 'the car maker', 'Coventry'],
  ['Java', 'the island', 'Jakarta', 'the language', 'Oak'],
  ['Python', 'the snake', 'reticulated python', 'the language', 'Guido van Rossum'],
  ['Amazon', 'the river', 'Atlantic Ocean', 'the company', 'Bellevue'],
];

export const EVIDENCE_PER_INTERPRETATION = 10;

function record(i: number): string {
  const [subject, reading1, answer1, reading2, answer2] = SUBJECTS[i % SUBJECTS.length]!;
  const passages = [
    ...[answer1, answer2].flatMap((answer, r) =>
      Array.from({ length: EVIDENCE_PER_INTERPRETATION }, (_, k) => ({
        id: `p${r}-${k}`,
        corpus: 'demo wiki',
        source_id: null,
        title: `${subject} (${r === 0 ? reading1 : reading2}) ${k + 1}`,
        text:
          k === 0
            ? `${subject}, read as ${r === 0 ? reading1 : reading2}, is best known for the ${answer}. Sources agree on the ${answer} as the answer.`
            : `A passage ranked ${k + 1} that mentions ${subject} in passing, about something else entirely, for padding number ${k}.`,
      })),
    ),
  ];
  const interpretation = (r: number, reading: string, answer: string) => ({
    clarified_question: `What is ${subject}, meaning ${reading}, best known for?`,
    sub_questions: [
      { question: `Which ${subject} is ${reading}?`, answer: reading },
      { question: `What is ${reading} best known for?`, answer },
    ],
    evidence: Array.from({ length: EVIDENCE_PER_INTERPRETATION }, (_, k) => ({ passage: `p${r}-${k}`, rank: k + 1, score: Number((0.9 - k * 0.05).toFixed(2)), origin: `sub-question ${1 + (k % 2)}` })),
    short_answer: { text: answer, passage: `p${r}-0` },
  });
  return JSON.stringify({
    format: AWB_FORMAT,
    dataset: { name: 'Ambiguity demo', source_format: 'awb', licence: 'CC BY 4.0', attribution: 'made up for the tests' },
    base_question: { source_id: `demo-${i}`, question: `What is the ${subject} best known for (${i + 1})?`, hops: 2 },
    instance: {
      ambiguity_type: 'semantic',
      status: 'ready',
      stage: 'filter',
      interpretations: [interpretation(0, reading1, answer1), interpretation(1, reading2, answer2)],
      long_answers: [{ text: `If ${subject} means ${reading1}, it is best known for the ${answer1}; if it means ${reading2}, for the ${answer2}.` }],
      filter_votes: [{ model: 'filter-model', verdict: 'aligned', reason: 'both readings are natural' }],
    },
    passages,
  });
}

/** `count` records of awb-instance/1, one a line. */
export function judgingFixture(count: number): string {
  return `${Array.from({ length: count }, (_, i) => record(i)).join('\n')}\n`;
}
