import type { ImportIssue } from '../api/core';

/**
 * Predictions made elsewhere, as JSON Lines: one object per line,
 * `{"source_id": "...", "answer": "long answer", "short_answers": [...]?, "citations": [...]?}`.
 * `source_id` is the dataset's own id of the question (a string; a whole number is accepted and
 * read as its decimal text). `citations` name fragments of the instance's frozen evidence list by
 * rank (1-based, a number or a numeric string) or by passage title or source id (case ignored). Other fields are
 * ignored. Blank lines are skipped. The file is refused as a whole when any line is broken: every
 * problem is listed with its line (the first thousand; the rest are counted).
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
    /** Problems past those listed, counted only. */
    unlisted = 0,
  ) {
    const total = problems.length + unlisted;
    const shown = problems.slice(0, 20).map((p) => `${p.location}${p.field ? ` · ${p.field}` : ''}: ${p.message}`);
    const more = total > 20 ? `; … and ${total - 20} more` : '';
    super(`${file}: ${total} problem${total === 1 ? '' : 's'}, nothing scored: ${shown.join('; ')}${more}`);
    this.name = 'PredictionsError';
  }
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** Problems kept for the report: past this many, only their count grows. */
const KEPT_PROBLEMS = 1000;

/**
 * Reads a predictions file line by line (the service streams the file through it; each line is
 * bounded in size before it gets here), so that the file is never held whole in memory.
 */
export class PredictionsReader {
  private readonly predictions = new Map<string, Prediction>();
  private readonly problems: ImportIssue[] = [];
  private moreProblems = 0;
  private read = 0;

  constructor(private readonly file = 'predictions') {}

  private problem(line: number, field: string, message: string): void {
    if (this.problems.length < KEPT_PROBLEMS) this.problems.push({ location: `${this.file}: line ${line}`, field, message });
    else this.moreProblems++;
  }

  /** A line too long to be read: refused with its size (the limit is the reader's caller's). */
  oversized(line: number, bytes: number, limitBytes: number): void {
    this.read++;
    const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;
    this.problem(line, '', `the line is ${mb(bytes)}, over the limit of ${mb(limitBytes)} per prediction`);
  }

  /** One line of the file (1-based number), its BOM and line ending already taken off. */
  add(line: number, content: string): void {
    if (content.trim() === '') return;
    this.read++;
    const problemsBefore = this.problems.length + this.moreProblems;
    const problem = (field: string, message: string) => this.problem(line, field, message);
    let value: unknown;
    try {
      value = JSON.parse(content);
    } catch (error) {
      problem('', `not valid JSON (${(error as Error).message})`);
      return;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      problem('', `expected a JSON object, found ${typeName(value)}`);
      return;
    }
    const record = value as Record<string, unknown>;
    let sourceId: string | null = null;
    const id = record.source_id;
    if (typeof id === 'string' && id.trim() !== '') sourceId = id;
    else if (typeof id === 'number' && Number.isSafeInteger(id)) sourceId = String(id);
    else if (id === undefined) problem('source_id', 'missing: every prediction names its question by the dataset\'s id');
    else problem('source_id', `expected a non-empty string, found ${typeof id === 'string' ? 'an empty string' : typeName(id)}${typeof id === 'number' ? ' that is not a safe whole number (quote long ids)' : ''}`);
    if (typeof record.answer !== 'string') {
      problem('answer', record.answer === undefined ? 'missing: the long answer (a string; "" for none)' : `expected a string, found ${typeName(record.answer)}`);
    }
    let shortAnswers: string[] | null = null;
    if (record.short_answers !== undefined && record.short_answers !== null) {
      if (!Array.isArray(record.short_answers)) problem('short_answers', `expected an array of strings, found ${typeName(record.short_answers)}`);
      else {
        const bad = record.short_answers.findIndex((a) => typeof a !== 'string');
        if (bad >= 0) problem(`short_answers[${bad}]`, `expected a string, found ${typeName(record.short_answers[bad])}`);
        else shortAnswers = record.short_answers as string[];
      }
    }
    let citations: string[] | null = null;
    if (record.citations !== undefined && record.citations !== null) {
      if (!Array.isArray(record.citations)) problem('citations', `expected an array of ranks or titles, found ${typeName(record.citations)}`);
      else {
        const bad = record.citations.findIndex((c) => typeof c !== 'string' && !(typeof c === 'number' && Number.isInteger(c)));
        if (bad >= 0) problem(`citations[${bad}]`, `expected a whole number (a rank) or a string, found ${typeName(record.citations[bad])}`);
        else citations = (record.citations as (string | number)[]).map((c) => String(c).trim());
      }
    }
    if (this.problems.length + this.moreProblems > problemsBefore || sourceId === null) return;
    const first = this.predictions.get(sourceId);
    if (first) {
      problem('source_id', `duplicate id "${sourceId}" (first on line ${first.line})`);
      return;
    }
    this.predictions.set(sourceId, { sourceId, answer: record.answer as string, shortAnswers, citations, line });
  }

  /** The predictions read; throws a PredictionsError listing the problems, if there were any. */
  finish(): PredictionsFile {
    if (this.problems.length) throw new PredictionsError(this.problems, this.file, this.moreProblems);
    return { predictions: this.predictions, lines: this.read };
  }
}

/** Parses a predictions file's text; throws a PredictionsError listing every problem. */
export function parsePredictions(text: string, file = 'predictions'): PredictionsFile {
  const reader = new PredictionsReader(file);
  text.split(/\r?\n/).forEach((raw, index) => reader.add(index + 1, index === 0 ? raw.replace(/^\uFEFF/, '') : raw));
  return reader.finish();
}
