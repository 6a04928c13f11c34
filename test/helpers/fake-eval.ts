import type { ChatReply } from './fake-openai';

/**
 * The scripted model of the evaluation tests, for the CondAmbigQA sample: it answers each of the
 * evaluation's answer shapes (by the schema name a request asks for) the way a cooperative model
 * would, knowing both answers of two questions and one of the third.
 */

/** What the scripted model "knows" for each question of the CondAmbigQA sample. */
export const KNOWN: { match: RegExp; answers: string[] }[] = [
  { match: /bridge/i, answers: ['1883', 'May 2004'] },
  { match: /cup final/i, answers: ['Harbour City', 'Northfield Ladies'] },
  // The tower: only one of its two interpretations is known (a collapsed answer).
  { match: /tower/i, answers: ['330 metres'] },
];

export type Body = { model?: string; messages?: { role: string; content: string }[]; response_format?: { json_schema?: { name: string } } };

export const schemaOf = (body: Body) => body.response_format?.json_schema?.name ?? 'unknown';
export const userOf = (body: Body) => body.messages?.find((m) => m.role === 'user')?.content ?? '';
/** The question a request is about: the first line naming one. */
export const questionOf = (body: Body) => /(?:Question|Original question|Interpretation in hand|Interpretation): (.*)/.exec(userOf(body))?.[1] ?? '';
export const known = (text: string) => KNOWN.find((k) => k.match.test(text))?.answers ?? [];
export const json = (value: unknown): ChatReply => ({ content: JSON.stringify(value), promptTokens: 100, completionTokens: 20 });

/** The scripted model: answers each schema the way a cooperative model would. */
export function brain(body: Body): ChatReply {
  const question = questionOf(body);
  const answers = known(question);
  const long = answers.length ? `It depends on what is meant: ${answers.join('; or ')}.` : 'I do not know.';
  const user = userOf(body);
  switch (schemaOf(body)) {
    case 'answer':
      return json({ long_answer: long, short_answers: answers });
    case 'reasoned_answer':
      return json({ reasoning: 'step by step', long_answer: long, short_answers: answers });
    case 'cited_answer':
      return json({ long_answer: long, short_answers: answers, citations: [1, 2, 99] });
    case 'reasoned_cited_answer':
      return json({ reasoning: 'over the passages', long_answer: long, short_answers: answers, citations: [1] });
    case 'interpretations':
      return json({ interpretations: answers.map((a, i) => `${question} (sense ${i + 1}: ${a})`) });
    case 'verify':
      return json({
        labels: [
          { passage: 1, label: 'useful' },
          { passage: 2, label: 'useless' },
        ],
      });
    case 'synthesis':
      return json({ interpretations: answers.map((a) => ({ question, answer: a, citations: [1] })), long_answer: long, short_answers: answers });
    case 'react_step': {
      // Search once, then answer.
      const searched = /Turn 1/.test(user);
      return json(
        searched
          ? { thought: 'enough', action: 'answer', query: '', long_answer: long, short_answers: answers }
          : { thought: 'look it up', action: 'search', query: question, long_answer: '', short_answers: [] },
      );
    }
    case 'detect':
      return json({ reasoning: 'two senses', is_ambiguous: true, ambiguity_type: 'semantic', ambiguous_aspects: ['the thing named'], clarification_needed: 'which one' });
    case 'clarify': {
      const original = /Question: (.*)/.exec(user)?.[1] ?? '';
      return json({ reasoning: 'split', clarified_questions: known(original).map((a) => `${original} [${a}]`) });
    }
    case 'act_step': {
      const current = /Interpretation in hand: (.*)/.exec(user)?.[1] ?? '';
      const answer = /\[(.*)\]/.exec(current)?.[1] ?? known(current)[0] ?? '';
      return json(
        /Turn 1/.test(user)
          ? { thought: 'answer', action: 'answer', query: '', new_interpretations: [], answer, citations: [1] }
          : { thought: 'search', action: 'search', query: current, new_interpretations: [], answer: '', citations: [] },
      );
    }
    case 'sub_question':
      return json({ sub_question: `${question} (one sense)` });
    case 'hyde':
      return json({ passage: `A passage about ${question}.` });
    case 'conditional': {
      const conditions = [...user.matchAll(/^\d+\. (.*)$/gm)].map((m) => m[1]!);
      return json({ pairs: answers.map((a, i) => ({ condition: conditions[i] ?? `sense ${i + 1}`, answer: a, citations: [i + 1] })) });
    }
    case 'reader': {
      // An extractive reader: the gold answer if the context holds it, else nothing.
      const context = /Context: (.*)/.exec(user)?.[1] ?? '';
      const q = /Question: (.*)/.exec(user)?.[1] ?? '';
      const found = [...KNOWN.flatMap((k) => k.answers)].find(
        (a) => context.includes(a) && (q.includes('original') || q.includes("men's") || q.includes('antenna') ? KNOWN.some((k) => k.answers[0] === a) : true),
      );
      return json({ answer: found ?? '' });
    }
    case 'cond_judge': {
      // Grades the answers by the share of reference answers the model's pairs hold.
      const goldBlock = /Reference conditions and answers:\n([\s\S]*?)\n\nThe model's/.exec(user)?.[1] ?? '';
      const reference = [...goldBlock.matchAll(/^\d+\. Condition: .* → Answer: (.*)$/gm)].map((m) => m[1]!);
      const given = /The model's conditions and answers:\n([\s\S]*?)\n\nKeys:/.exec(user)?.[1] ?? '';
      const found = reference.filter((a) => given.includes(a)).length;
      return json({ condition_score: 0.75, answer_score: reference.length ? found / reference.length : 0, rationale: 'Graded by the scripted model.' });
    }
    case 'judge':
      return json({ relevance: 4, faithfulness: 5, informativeness: 3, correctness: 4, rationale: 'Covers the interpretations it names.' });
    default:
      return { status: 400 };
  }
}
