import type { ImportIssue } from '../api/core';

/**
 * Predictions made elsewhere, as JSON Lines: one object per line,
 * `{"source_id": "...", "answer": "long answer", "short_answers": [...]?, "citations": [...]?}`.
 * `source_id` is the dataset's own id of the question (a string; a whole number is accepted and
 * read as its decimal text). `citations` name fragments of the instance's frozen evidence list by
 * rank (1-based, a number or a numeric string) or by passage title or source id (case ignored). Other fields are
 * ignored. Blank lines are skipped. The file is refused as a whole when any line is broken: every
 * problem is listed with its line.
 */

export interface Prediction {
  sourceId: string;
  answer: string;
  shortAnswers: string[] | null;
  citations: string[] | null;
  line: number;
}

export interface PredictionsFile {
  predictions: Map<string, Prediction>;
  /** Non-blank lines read. */
  lines: number;
}

export class PredictionsError extends Error {
  constructor(
    readonly problems: ImportIssue[],
    file: string,
  ) {
    const shown = problems.slice(0, 20).map((p) => `${p.location}${p.field ? ` · ${p.field}` : ''}: ${p.message}`);
    const more = problems.length > 20 ? `; … and ${problems.length - 20} more` : '';
    super(`${file}: ${problems.length} problem${problems.length === 1 ? '' : 's'}, nothing scored: ${shown.join('; ')}${more}`);
    this.name = 'PredictionsError';
  }
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** Parses a predictions file's text; throws a PredictionsError listing every problem. */
export function parsePredictions(text: string, file = 'predictions'): PredictionsFile {
  const predictions = new Map<string, Prediction>();
  const problems: ImportIssue[] = [];
  const lines = text.split(/\r?\n/);
  let read = 0;
  const problem = (line: number, field: string, message: string) => problems.push({ location: `${file}: line ${line}`, field, message });
  lines.forEach((raw, index) => {
    const line = index + 1;
    const content = index === 0 ? raw.replace(/^\uFEFF/, '') : raw;
    if (content.trim() === '') return;
    read++;
    let value: unknown;
    try {
      value = JSON.parse(content);
    } catch (error) {
      problem(line, '', `not valid JSON (${(error as Error).message})`);
      return;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      problem(line, '', `expected a JSON object, found ${typeName(value)}`);
      return;
    }
    const record = value as Record<string, unknown>;
    const before = problems.length;
    let sourceId: string | null = null;
    const id = record.source_id;
    if (typeof id === 'string' && id.trim() !== '') sourceId = id;
    else if (typeof id === 'number' && Number.isSafeInteger(id)) sourceId = String(id);
    else if (id === undefined) problem(line, 'source_id', 'missing: every prediction names its question by the dataset\'s id');
    else problem(line, 'source_id', `expected a non-empty string, found ${typeof id === 'string' ? 'an empty string' : typeName(id)}${typeof id === 'number' ? ' that is not a safe whole number (quote long ids)' : ''}`);
    if (typeof record.answer !== 'string') {
      problem(line, 'answer', record.answer === undefined ? 'missing: the long answer (a string; "" for none)' : `expected a string, found ${typeName(record.answer)}`);
    }
    let shortAnswers: string[] | null = null;
    if (record.short_answers !== undefined && record.short_answers !== null) {
      if (!Array.isArray(record.short_answers)) problem(line, 'short_answers', `expected an array of strings, found ${typeName(record.short_answers)}`);
      else {
        const bad = record.short_answers.findIndex((a) => typeof a !== 'string');
        if (bad >= 0) problem(line, `short_answers[${bad}]`, `expected a string, found ${typeName(record.short_answers[bad])}`);
        else shortAnswers = record.short_answers as string[];
      }
    }
    let citations: string[] | null = null;
    if (record.citations !== undefined && record.citations !== null) {
      if (!Array.isArray(record.citations)) problem(line, 'citations', `expected an array of ranks or titles, found ${typeName(record.citations)}`);
      else {
        const bad = record.citations.findIndex((c) => typeof c !== 'string' && !(typeof c === 'number' && Number.isInteger(c)));
        if (bad >= 0) problem(line, `citations[${bad}]`, `expected a whole number (a rank) or a string, found ${typeName(record.citations[bad])}`);
        else citations = (record.citations as (string | number)[]).map((c) => String(c).trim());
      }
    }
    if (problems.length > before || sourceId === null) return;
    const first = predictions.get(sourceId);
    if (first) {
      problem(line, 'source_id', `duplicate id "${sourceId}" (first on line ${first.line})`);
      return;
    }
    predictions.set(sourceId, { sourceId, answer: record.answer as string, shortAnswers, citations, line });
  });
  if (problems.length) throw new PredictionsError(problems, file);
  return { predictions, lines: read };
}
