import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../db/connection';
import { get, sql } from '../../db/sql';
import { importFile } from '../../electron/services/import/import-file';
import { readBaseQuestionRecord } from '../../electron/services/record-reader';
import type { ImportReport, Stats } from '../../shared/api';
import { awbJson } from '../helpers/cli';
import { ROOT, tempDir, writeFile } from '../helpers/db';

/**
 * SQuAD 2.0 in its official shape (`{"version", "data": [article]}`): real SQuAD files are not
 * downloadable here, so the fixture is a small hand-made file in that shape (answerable questions
 * with several dev-style answers, unanswerable ones with plausible answers, a shifted
 * answer_start). Every question becomes a base question with its paragraph as the passage.
 */

const FIXTURE = `${ROOT}/test/fixtures/squad2_sample.json`;
const tmp = tempDir('awb-squad2-');
afterAll(() => tmp.cleanup());

describe('import --format squad2', () => {
  it('makes one base question per question, labels the unanswerable ones, and counts them in stats', () => {
    const db = tmp.file('cli.db');
    const imported = awbJson<ImportReport>(['import', FIXTURE, '--format', 'squad2', '--dataset', 'squad-dev', '--db', db]);
    expect(imported.status).toBe(0);
    expect(imported.json).toMatchObject({ committed: true, read: 7, imported: 7, rejected: 0, passagesCreated: 3 });
    const stats = awbJson<Stats>(['stats', '--db', db]);
    expect(stats.json.baseQuestionsByAnswerability).toEqual({ answerable: 4, ambiguous: 0, unanswerable: 3, unlabelled: 0 });
    expect(stats.json).toMatchObject({ baseQuestions: 7, passages: 3 });
  });

  it('keeps the answers, the plausible answers and the repaired span, and reads back as awb-instance/1', async () => {
    const db = openDatabase(tmp.file('records.db'));
    const report = await importFile(db, { file: FIXTURE, format: 'squad2', dataset: 'squad' });
    expect(report.committed).toBe(true);
    const id = (source: string) => get<{ id: number }>(db, sql`SELECT id FROM base_questions WHERE source_id = ${source}`)!.id;
    const answerable = readBaseQuestionRecord(db, id('5f00000000000000000a0001'));
    expect(answerable.base_question).toMatchObject({ answer: 'Melnik', aliases: ['at Melnik'], answerable: true, answerability: 'answerable', hops: 1 });
    expect(answerable.base_question.answerability_provenance).toMatchObject({ source: 'dataset', detail: 'squad' });
    expect(answerable.passages[0]).toMatchObject({ title: 'Vltava', source_id: 'Vltava#0', corpus: 'squad' });
    const impossible = readBaseQuestionRecord(db, id('5f00000000000000000a0003'));
    expect(impossible.base_question).toMatchObject({ answer: null, answerable: false, answerability: 'unanswerable', paragraphs: [{ passage: 'p1', is_supporting: false }] });
    expect(impossible.base_question.extra.plausible_answers).toEqual([{ text: 'Melnik', start: answerable.passages[0]!.text.indexOf('Melnik') }]);
    const shifted = readBaseQuestionRecord(db, id('5f00000000000000000a0002'));
    const context = shifted.passages[0]!.text;
    expect(shifted.base_question.extra.span_repairs).toEqual([{ text: 'about 430 kilometres', given: context.indexOf('about 430 kilometres') + 3, found: context.indexOf('about 430 kilometres') }]);
    db.close();
  });

  it('refuses a question without is_impossible (a SQuAD 1.1 file, say): the place, the reason, and nothing written', async () => {
    const broken = JSON.stringify({
      version: 'v2.0',
      data: [
        { title: 'Fine', paragraphs: [{ context: 'Oslo is the capital of Norway.', qas: [{ id: 'a1', question: 'What is the capital of Norway?', answers: [{ text: 'Oslo', answer_start: 0 }], is_impossible: false }] }] },
        { title: 'Old', paragraphs: [{ context: 'Bern is the seat of government.', qas: [{ id: 'b1', question: 'What is the seat?', answers: [{ text: 'Bern', answer_start: 0 }] }] }] },
      ],
    });
    const db = openDatabase(tmp.file('broken.db'));
    const report = await importFile(db, { file: writeFile(tmp.file('squad11.json'), broken), format: 'squad2', dataset: 'broken' });
    expect(report.committed).toBe(false);
    expect(report.errors[0]).toMatchObject({
      location: 'squad11.json: line 1, data[1]',
      field: 'paragraphs[0].qas[0].is_impossible',
      message: 'paragraphs[0] › qas[0] (id b1): is_impossible is missing: SQuAD 2.0 marks every question true or false (a SQuAD 1.1 file has no such field)',
    });
    expect(get<{ n: number }>(db, sql`SELECT (SELECT count(*) FROM base_questions) + (SELECT count(*) FROM passages) + (SELECT count(*) FROM datasets) AS n`)!.n).toBe(0);
    db.close();
  });

  it('refuses contradictions and a question id used twice', async () => {
    const qa = (id: string, impossible: boolean, answers: { text: string; answer_start: number }[]) => ({ id, question: 'Which city?', answers, is_impossible: impossible });
    const file = writeFile(
      tmp.file('contradictions.json'),
      JSON.stringify({
        data: [
          { title: 'A', paragraphs: [{ context: 'Lyon lies on the Rhone.', qas: [qa('x1', true, [{ text: 'Lyon', answer_start: 0 }]), qa('x2', false, []), qa('x3', false, [{ text: 'Paris', answer_start: 0 }])] }] },
          { title: 'B', paragraphs: [{ context: 'Nantes lies on the Loire.', qas: [qa('x4', false, [{ text: 'Nantes', answer_start: 0 }])] }] },
          { title: 'C', paragraphs: [{ context: 'Nantes lies on the Loire.', qas: [qa('x4', false, [{ text: 'Nantes', answer_start: 0 }])] }] },
        ],
      }),
    );
    const db = openDatabase(tmp.file('contradictions.db'));
    const report = await importFile(db, { file, format: 'squad2', dataset: 'c' });
    expect(report.committed).toBe(false);
    expect(report.errors.map((e) => e.message)).toEqual([
      'paragraphs[0] › qas[0] (id x1): is_impossible is true but the question has 1 answer(s)',
      'paragraphs[0] › qas[1] (id x2): is_impossible is false but the question has no answer',
      'paragraphs[0] › qas[2] (id x3): the answer "Paris" does not occur in the context',
      'duplicate question id "x4" in this file (first on line 1)',
    ]);
    db.close();
  });
});

describe('a SQuAD file under another format', () => {
  it('is named for what it is', async () => {
    const db = openDatabase(tmp.file('hint.db'));
    const report = await importFile(db, { file: FIXTURE, format: 'musique', dataset: 'wrong' });
    expect(report.committed).toBe(false);
    expect(report.errors[0]!.message).toBe('this looks like a SQuAD 2.0 file ({"version", "data": [articles]}); try the format "squad2"');
    db.close();
  });
});
