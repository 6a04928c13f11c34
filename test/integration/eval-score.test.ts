import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../db/connection';
import type { WritableDB } from '../../db/sql';
import { createHandlers, Workbench } from '../../electron/services';
import { importFile } from '../../electron/services/import/import-file';
import { AppError, dispatch, type Input, type ReleaseSummary, type ScoreReport } from '../../shared/api';
import { awb, awbJson } from '../helpers/cli';
import { ASQA, tempDir, writeFile } from '../helpers/db';
import { richRecord } from '../helpers/release-fixture';

// Scoring predictions made elsewhere (`evaluation:score`, `awb eval score`) against the ASQA demo
// sample imported as a dataset, and against a release split of small rich instances.

const tmp = tempDir('awb-eval-score-');
const dbFile = tmp.file('score.db');
let db: WritableDB;
let workbench: Workbench;
let handlers: ReturnType<typeof createHandlers>;

const PIRATES = '8224675151111585010';
const SECOND = '-8096234731970550529';
let secondLongAnswer = '';

function jsonl(rows: unknown[]): string {
  return `${rows.map((r) => (typeof r === 'string' ? r : JSON.stringify(r))).join('\n')}\n`;
}

async function score(input: Input<'evaluation:score'>): Promise<ScoreReport> {
  const result = await dispatch(handlers, 'evaluation:score', input);
  if (!result.ok) throw new AppError(result.error.code, result.error.message, result.error.details);
  return result.value as ScoreReport;
}

async function refusal(input: Input<'evaluation:score'>): Promise<{ code: string; message: string; details?: unknown }> {
  const result = await dispatch(handlers, 'evaluation:score', input);
  if (result.ok) throw new Error('expected a refusal');
  return result.error;
}

beforeAll(async () => {
  db = openDatabase(dbFile);
  await importFile(db, { file: ASQA, format: 'asqa', dataset: 'asqa' });
  const rich = writeFile(tmp.file('rich.jsonl'), jsonl(Array.from({ length: 8 }, (_, i) => richRecord(i))));
  await importFile(db, { file: rich, format: 'awb' });
  const records = JSON.parse(fs.readFileSync(ASQA, 'utf8')) as { id: string; annotations: { long_answer: string }[] }[];
  secondLongAnswer = records.find((r) => r.id === SECOND)!.annotations[0]!.long_answer;
  workbench = new Workbench({ databasePath: dbFile, mode: 'browser', version: '0.1.0' });
  handlers = createHandlers(workbench);
});

afterAll(() => {
  workbench?.close();
  db?.close();
  tmp.cleanup();
});

describe('evaluation:score against a dataset', () => {
  let file = '';
  beforeAll(() => {
    file = writeFile(
      tmp.file('asqa-preds.jsonl'),
      jsonl([
        { source_id: PIRATES, answer: 'The first film premiered at Disneyland on June 28, 2003.' },
        { source_id: SECOND, answer: secondLongAnswer, extra_field: 'ignored' },
        '',
        { source_id: 'not-an-asqa-id', answer: 'x' },
      ]),
    );
  });

  it('counts items, missing and unknown ids, and scores STR-EM as the ASQA scorer', async () => {
    const report = await score({ dataset: 'asqa', predictions: file, resamples: 200 });
    expect(report).toMatchObject({ n: 300, predictions: 3, missing: 298, unknown: ['not-an-asqa-id'], dataset: 'asqa', release: null });
    // Python, official normalisation: pirates 1 of 2 pairs, the second record's own long answer 2 of 2,
    // the 298 missing items 0: (0.5 + 1) / 300 = 0.5 %.
    expect(report.metrics.str_em).toBeCloseTo(0.5, 9);
    // The second prediction is a reference long answer itself: ROUGE-L 100 on it, and at most a
    // little more from nothing elsewhere (missing answers score 0).
    expect(report.metrics.rouge_l).toBeGreaterThanOrEqual(100 / 300);
    expect(report.metrics.rouge_l).toBeLessThan(100 / 300 + 0.5);
    expect(report.details.str_em).toMatchObject({ n: 300 });
    expect(report.details.str_em!.ci!.low).toBeLessThanOrEqual(0.5);
    // No short answers given: no answer-count difference for the two predictions; missing ones
    // count as zero answers against their interpretations.
    expect(report.details.answer_count_difference!.n).toBe(298);
    expect(Object.keys(report.byType)).toEqual(['unspecified']);
    expect(report.byType.unspecified!.n).toBe(300);
    expect(report.byType.unspecified!.metrics.str_em).toBeCloseTo(0.5, 9);
    expect(report.notes.rouge_l).toMatch(/rougeLsum.*Porter stemming/);
  });

  it('computes only the metrics asked for, and refuses the reader metrics with the reason', async () => {
    const report = await score({ dataset: 'asqa', predictions: file, metrics: ['str_em', 'token_f1'], resamples: 0 });
    expect(Object.keys(report.metrics).sort()).toEqual(['str_em', 'token_f1']);
    expect(report.details.str_em!.ci).toBeNull();
    const refused = await refusal({ dataset: 'asqa', predictions: file, metrics: ['disambig_f1'] });
    expect(refused.message).toMatch(/metrics: disambig_f1 needs the extractive reader .* and is computed by evaluation runs/);
  });

  it('refuses a broken file as a whole, naming every bad line', async () => {
    const bad = writeFile(
      tmp.file('bad.jsonl'),
      jsonl([
        { source_id: PIRATES, answer: 'ok' },
        '{"source_id": "x", "answer": ',
        { source_id: PIRATES, answer: 'again' },
        { source_id: 12.5, answer: 3 },
        { source_id: 'y', answer: 'a', short_answers: 'not a list', citations: [1, { page: 2 }] },
        '[1, 2]',
      ]),
    );
    const refused = await refusal({ dataset: 'asqa', predictions: bad });
    expect(refused.code).toBe('invalid_input');
    expect(refused.message).toMatch(/bad\.jsonl: 7 problems, nothing scored/);
    expect(refused.message).toContain('line 2: not valid JSON');
    expect(refused.message).toContain(`line 3 · source_id: duplicate id "${PIRATES}" (first on line 1)`);
    expect(refused.message).toContain('line 4 · source_id: expected a non-empty string, found a number that is not a safe whole number');
    expect(refused.message).toContain('line 4 · answer: expected a string, found a number');
    expect(refused.message).toContain('line 5 · short_answers: expected an array of strings, found a string');
    expect(refused.message).toContain('line 5 · citations[1]: expected a whole number (a rank) or a string, found an object');
    expect(refused.message).toContain('line 6: expected a JSON object, found an array');
    expect((refused.details as { problems: unknown[] }).problems).toHaveLength(7);
  });

  it('refuses a prediction line over 16 MB by its size, streaming the file, and still names the other bad lines', async () => {
    const huge = tmp.file('huge-line.jsonl');
    const fd = fs.openSync(huge, 'w');
    fs.writeSync(fd, `${JSON.stringify({ source_id: PIRATES, answer: 'ok' })}\n{"source_id": "big", "answer": "`);
    const block = 'word '.repeat(200_000);
    for (let written = 0; written < 50 * 1024 * 1024; written += block.length) fs.writeSync(fd, block);
    fs.writeSync(fd, '"}\n{"source_id": 7}\n');
    fs.closeSync(fd);
    const refused = await refusal({ dataset: 'asqa', predictions: huge });
    expect(refused.code).toBe('invalid_input');
    expect(refused.message).toMatch(/huge-line\.jsonl: 2 problems, nothing scored/);
    expect(refused.message).toMatch(/line 2: the line is 50\.\d MB, over the limit of 16\.0 MB per prediction/);
    expect(refused.message).toContain('line 3 · answer: missing');
    // The CLI says the same and exits 1.
    const cli = awb(['eval', 'score', '--dataset', 'asqa', '--predictions', huge, '--db', dbFile]);
    expect(cli.status).toBe(1);
    expect(cli.stderr).toMatch(/line 2: the line is 50\.\d MB, over the limit of 16\.0 MB per prediction/);
  });

  it("refuses another dataset's predictions, an unknown dataset and a missing file", async () => {
    const other = writeFile(tmp.file('other.jsonl'), jsonl([{ source_id: 'r000', answer: 'Medway' }, { source_id: 'r001', answer: 'Medway' }]));
    const refused = await refusal({ dataset: 'asqa', predictions: other });
    expect(refused.message).toMatch(/none of its 2 ids names a question of dataset "asqa" \(line 1: "r000"\); are these another dataset's predictions\?/);
    expect((await refusal({ dataset: 'nope', predictions: other })).message).toBe('No dataset named "nope"');
    expect((await refusal({ dataset: 'asqa', predictions: tmp.file('absent.jsonl') })).message).toMatch(/Cannot read the predictions file .*absent\.jsonl: ENOENT/);
    expect((await refusal({ predictions: other })).message).toMatch(/name a dataset, a release, or both/);
    expect((await refusal({ dataset: 'asqa', split: 'dev', predictions: other })).message).toMatch(/a split needs a release/);
  });
});

describe('evaluation:score against a release split', () => {
  let releaseId = 0;
  let file = '';
  beforeAll(async () => {
    const started = await dispatch(handlers, 'release:create', {
      name: 'Rich',
      version: '1.0.0',
      out: tmp.file('rich-release'),
      selection: { datasets: ['Rich'] },
      split: { mode: 'source' },
    });
    if (!started.ok) throw new Error(started.error.message);
    const job = await workbench.jobs.wait((started.value as { jobId: string }).jobId);
    releaseId = (job.result as ReleaseSummary).id!;
    file = writeFile(
      tmp.file('rich-preds.jsonl'),
      jsonl([{ source_id: 'r000', answer: 'In Kent it is the Medway; in Ohio the Mad River.', short_answers: ['Medway', 'Mad River'], citations: [1, 'Mills', 'Ohio'] }]),
    );
  });

  it('scores the frozen instances of one split, with citations by rank or title', async () => {
    // Split "dev" holds r000 and r004 (source split: every fourth record). r000's interpretations
    // cite ranks 1 (Medway) and 2 (Mills); its prediction cites rank 1, "Mills" and "Ohio" (not
    // cited by the gold): precision 2/3. r004 is missing: no citations, precision 0. Mean 33.33 %.
    const report = await score({ release: releaseId, split: 'dev', predictions: file, resamples: 100 });
    expect(report).toMatchObject({ n: 2, missing: 1, unknown: [], release: releaseId, split: 'dev' });
    expect(report.metrics.citation_precision).toBeCloseTo(100 / 3, 9);
    expect(report.metrics.str_em).toBe(50);
    // D-F1 reads the answer text (ADF): 9 tokens against "medway" is F1 0.2 < 0.5, nothing covered.
    // Its short-answer form covers both interpretations of r000 (and none of the missing r004).
    expect(report.metrics.d_f1).toBe(0);
    expect(report.metrics.d_f1_short).toBe(50);
    // r000: 2 answers for 2 interpretations (0); r004: 0 for 2 (−2).
    expect(report.metrics.answer_count).toBe(1);
    expect(report.metrics.answer_count_difference).toBe(-1);
    expect(report.byType.constraint!.n).toBe(2);
    // The gold long answer itself: ROUGE-L 100 for r000, 0 for the empty r004.
    expect(report.metrics.rouge_l).toBeCloseTo(50, 9);
    // DR-F1 per item: √(0 × 1) and √(0 × 0); with the short-answer D-F1 the corpus form would be √(50 × 50).
    expect(report.metrics.dr_f1).toBe(0);
    expect(report.metrics.dr_f1_corpus).toBe(0);
  });

  it('refuses an unknown split or release by name', async () => {
    expect((await refusal({ release: releaseId, split: 'nope', predictions: file })).message).toMatch(/has no split "nope"; its splits: dev, train/);
    expect((await refusal({ release: 999, predictions: file })).message).toBe('No release 999');
  });
});

describe('awb eval score', () => {
  it('prints the report as JSON and as a table, and exits 1 on a broken file', () => {
    const file = writeFile(tmp.file('cli-preds.jsonl'), jsonl([{ source_id: PIRATES, answer: 'It premiered on June 28, 2003.' }]));
    const json = awbJson<ScoreReport>(['eval', 'score', '--dataset', 'asqa', '--predictions', file, '--metrics', 'str_em,rouge_l', '--resamples', '50', '--db', dbFile]);
    expect(json.status).toBe(0);
    expect(json.json).toMatchObject({ n: 300, missing: 299, unknown: [] });
    expect(json.json.metrics.str_em).toBeCloseTo((100 * 0.5) / 300, 9);
    expect(Object.keys(json.json.metrics)).toEqual(['str_em', 'rouge_l']);
    const text = awb(['eval', 'score', '--dataset', 'asqa', '--predictions', file, '--resamples', '0', '--db', dbFile]);
    expect(text.status).toBe(0);
    expect(text.stdout).toContain('300 items, 1 predictions, 299 missing (scored as empty), 0 unknown ids');
    expect(text.stdout).toMatch(/str_em\s+0\.17/);
    const bad = writeFile(tmp.file('cli-bad.jsonl'), '{"source_id": 1}\n');
    const refused = awb(['eval', 'score', '--dataset', 'asqa', '--predictions', bad, '--db', dbFile]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('line 1 · answer: missing');
  });
});
