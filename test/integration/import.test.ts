import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { getStats } from '../../db/queries/stats';
import { all, get, sql, type WritableDB } from '../../db/sql';
import { instanceDetail } from '../../electron/services/browse';
import { importFile } from '../../electron/services/import/import-file';
import { AMBIGNQ, ASQA, CONDAMBIGQA, MUSIQUE, memoryDb, readJson, tempDir, writeFile } from '../helpers/db';

interface MusiqueRecord {
  id: string;
  question: string;
  paragraphs: { idx: number; title: string; paragraph_text: string; is_supporting: boolean }[];
  question_decomposition: { question: string; paragraph_support_idx: number }[];
}
interface AsqaRecord {
  id: string;
  qa_pairs: { question: string; short_answers: string[] }[];
  annotations: { long_answer: string; knowledge: { content: string | null }[] }[];
}
interface AmbignqRecord {
  id: string;
  annotations: { type: string; qaPairs?: { question: string; answer: string[] }[] }[];
}

const tmp = tempDir('awb-import-');
afterAll(() => tmp.cleanup());

const musique = readJson<MusiqueRecord[]>(MUSIQUE);

function count(db: WritableDB, table: string): number {
  return get<{ n: number }>(db, sql`SELECT count(*) AS n FROM ${sql.id(table)}`)!.n;
}

/** Every row count of the tables an import writes, to compare before and after. */
function snapshot(db: WritableDB) {
  return Object.fromEntries(
    ['datasets', 'corpora', 'passages', 'base_questions', 'base_question_passages', 'decomposition_steps', 'instances', 'interpretations', 'evidence', 'long_answers', 'long_answer_citations', 'provenance'].map(
      (t) => [t, count(db, t)],
    ),
  );
}

describe('MuSiQue import', () => {
  it('stores base questions, deduplicated paragraphs, both decomposition styles and hops', async () => {
    const db = memoryDb();
    const report = await importFile(db, { file: MUSIQUE, format: 'musique', dataset: 'musique' });
    expect(report).toMatchObject({ read: 100, imported: 100, duplicates: 0, rejected: 0, committed: true, errors: [] });

    const distinct = new Set(musique.flatMap((r) => r.paragraphs.map((p) => `${p.title}\u0000${p.paragraph_text}`)));
    expect(count(db, 'passages')).toBe(distinct.size);
    expect(report.passagesCreated).toBe(distinct.size);
    expect(count(db, 'base_question_passages')).toBe(musique.reduce((n, r) => n + r.paragraphs.length, 0));
    expect(count(db, 'decomposition_steps')).toBe(musique.reduce((n, r) => n + r.question_decomposition.length, 0));

    const styles = all<{ style: string; n: number }>(db, sql`SELECT style, count(*) AS n FROM decomposition_steps GROUP BY style ORDER BY style`);
    const relation = musique.flatMap((r) => r.question_decomposition).filter((s) => s.question.includes('>>')).length;
    expect(styles).toEqual([
      { style: 'natural', n: count(db, 'decomposition_steps') - relation },
      { style: 'relation', n: relation },
    ]);

    // The supporting paragraph of each step is the one MuSiQue names.
    const first = musique[0]!;
    const bq = get<{ id: number; hops: number }>(db, sql`SELECT id, hops FROM base_questions WHERE source_id = ${first.id}`)!;
    expect(bq.hops).toBe(first.question_decomposition.length);
    const steps = all<{ support_position: number }>(db, sql`SELECT support_position FROM decomposition_steps WHERE base_question_id = ${bq.id} ORDER BY position`);
    expect(steps.map((s) => s.support_position)).toEqual(first.question_decomposition.map((s) => first.paragraphs.findIndex((p) => p.idx === s.paragraph_support_idx)));
    const supporting = all<{ position: number }>(db, sql`SELECT position FROM base_question_passages WHERE base_question_id = ${bq.id} AND is_supporting = 1 ORDER BY position`);
    expect(supporting.map((s) => s.position)).toEqual(first.paragraphs.flatMap((p, i) => (p.is_supporting ? [i] : [])));
  });

  it('is idempotent: importing the same file again adds nothing', async () => {
    const db = memoryDb();
    await importFile(db, { file: MUSIQUE, format: 'musique' });
    const before = snapshot(db);
    const again = await importFile(db, { file: MUSIQUE, format: 'musique' });
    expect(again).toMatchObject({ read: 100, imported: 0, duplicates: 100, rejected: 0, passagesCreated: 0 });
    expect(snapshot(db)).toEqual(before);
  });

  it('reads JSON Lines too', async () => {
    const file = writeFile(tmp.file('musique.jsonl'), musique.slice(0, 5).map((r) => JSON.stringify(r)).join('\n'));
    const db = memoryDb();
    expect(await importFile(db, { file, format: 'musique' })).toMatchObject({ read: 5, imported: 5 });
  });

  it('reads records pretty-printed one after another (jq .[] output), and names a broken one by its line', async () => {
    const pretty = musique.slice(0, 3).map((r) => JSON.stringify(r, null, 2));
    const db = memoryDb();
    expect(await importFile(db, { file: writeFile(tmp.file('musique-pretty.json'), pretty.join('\n')), format: 'musique' })).toMatchObject({ read: 3, imported: 3, rejected: 0 });
    // The second record loses a comma: the file is refused, pointing into that record.
    const broken = pretty[1]!.replace('",\n', '"\n');
    expect(broken).not.toBe(pretty[1]);
    const line = pretty[0]!.split('\n').length + 1;
    const fresh = memoryDb();
    const report = await importFile(fresh, { file: writeFile(tmp.file('musique-pretty-broken.json'), [pretty[0], broken, pretty[2]].join('\n')), format: 'musique' });
    expect(report).toMatchObject({ read: 3, imported: 0, committed: false });
    // The error names the line where the missing comma is noticed: the one after it.
    const cut = pretty[1]!.slice(0, pretty[1]!.indexOf('",\n')).split('\n').length;
    expect(report.errors[0]).toMatchObject({ location: `musique-pretty-broken.json: line ${line + cut}`, message: expect.stringMatching(/invalid JSON: expected ','/) });
    expect(count(fresh, 'base_questions')).toBe(0);
  });
});

describe('ASQA import', () => {
  const asqa = readJson<AsqaRecord[]>(ASQA);

  it('makes one instance per question, its qa_pairs the readings, and keeps long answers and knowledge', async () => {
    const db = memoryDb();
    const report = await importFile(db, { file: ASQA, format: 'asqa' });
    expect(report).toMatchObject({ read: 300, imported: 300, rejected: 0, committed: true });
    expect(getStats(db)).toMatchObject({
      baseQuestions: 300,
      instances: 300,
      interpretations: asqa.reduce((n, r) => n + r.qa_pairs.length, 0),
      longAnswers: asqa.reduce((n, r) => n + r.annotations.filter((a) => a.long_answer.trim()).length, 0),
    });
    expect(count(db, 'long_answer_citations')).toBe(
      asqa.reduce((n, r) => n + r.annotations.reduce((m, a) => m + a.knowledge.filter((k) => k.content?.trim()).length, 0), 0),
    );
    const one = get<{ id: number }>(db, sql`SELECT i.id FROM instances i JOIN base_questions b ON b.id = i.base_question_id WHERE b.source_id = ${asqa[0]!.id}`)!;
    const detail = instanceDetail(db, one.id);
    expect(detail.ambiguityType).toBe('unspecified');
    expect(detail.interpretations.map((i) => i.clarifiedQuestion)).toEqual(asqa[0]!.qa_pairs.map((p) => p.question));
    expect(detail.interpretations.map((i) => i.shortAnswer?.text)).toEqual(asqa[0]!.qa_pairs.map((p) => p.short_answers[0]));
    expect(detail.interpretations[0]!.extra).toEqual({ wikipage: 'Pirates of the Caribbean: The Curse of the Black Pearl' });
  });

  it('reads the official {"train": {...}, "dev": {...}} file, with contexts as evidence and located spans', async () => {
    const official = {
      train: {},
      dev: Object.fromEntries(
        asqa.slice(0, 3).map((r) => [
          r.id,
          {
            ambiguous_question: `${r.qa_pairs[0]!.question.slice(0, 20)} (official)`,
            sample_id: Number(r.id),
            qa_pairs: r.qa_pairs.map((p) => ({
              ...p,
              context: p.short_answers[0] ? `Background text. The answer is ${p.short_answers[0]}. More text.` : 'No context provided',
            })),
            annotations: r.annotations,
            wikipages: [],
          },
        ]),
      ),
    };
    const file = writeFile(tmp.file('ASQA.json'), JSON.stringify(official, null, 2));
    const db = memoryDb();
    const report = await importFile(db, { file, format: 'asqa' });
    expect(report).toMatchObject({ read: 3, imported: 3, rejected: 0 });
    const id = get<{ id: number }>(db, sql`SELECT i.id FROM instances i JOIN base_questions b ON b.id = i.base_question_id WHERE b.source_id = ${asqa[0]!.id}`)!.id;
    const detail = instanceDetail(db, id);
    const reading = detail.interpretations[0]!;
    expect(reading.evidence).toHaveLength(1);
    const passage = reading.evidence[0]!.passage.text;
    expect(passage.slice(reading.shortAnswer!.start!, reading.shortAnswer!.end!)).toBe(reading.shortAnswer!.text);
    const bq = get<{ extra: string }>(db, sql`SELECT extra FROM base_questions WHERE source_id = ${asqa[0]!.id}`)!;
    expect(JSON.parse(bq.extra)).toMatchObject({ split: 'dev', sample_id: Number(asqa[0]!.id) });
  });
});

describe('AmbigNQ import', () => {
  const ambignq = readJson<AmbignqRecord[]>(AMBIGNQ);

  it('keeps every question and makes instances of those with a multipleQAs annotation (the one with most pairs)', async () => {
    const db = memoryDb();
    const report = await importFile(db, { file: AMBIGNQ, format: 'ambignq' });
    expect(report).toMatchObject({ read: 300, imported: 300, rejected: 0 });
    const multiple = ambignq.filter((r) => r.annotations.some((a) => a.type === 'multipleQAs'));
    const longest = (r: AmbignqRecord) => Math.max(...r.annotations.filter((a) => a.type === 'multipleQAs').map((a) => a.qaPairs!.length));
    expect(getStats(db)).toMatchObject({
      baseQuestions: 300,
      instances: multiple.length,
      interpretations: multiple.reduce((n, r) => n + longest(r), 0),
    });
    // A question annotated twice with different numbers of pairs gets the longer annotation.
    const twice = multiple.find((r) => new Set(r.annotations.filter((a) => a.type === 'multipleQAs').map((a) => a.qaPairs!.length)).size > 1);
    expect(twice).toBeDefined();
    const row = get<{ interpretation_count: number; extra: string }>(
      db,
      sql`SELECT i.interpretation_count, i.extra FROM instances i JOIN base_questions b ON b.id = i.base_question_id WHERE b.source_id = ${twice!.id}`,
    )!;
    expect(row.interpretation_count).toBe(longest(twice!));
    const chosen = JSON.parse(row.extra) as { annotation_index: number };
    expect(twice!.annotations[chosen.annotation_index]!.qaPairs!.length).toBe(longest(twice!));
  });
});

describe('CondAmbigQA import', () => {
  it('freezes ctxs as the evidence list exactly and points citations into it (reporting, never appending, those that match none)', async () => {
    const db = memoryDb();
    const report = await importFile(db, { file: CONDAMBIGQA, format: 'condambigqa' });
    expect(report).toMatchObject({ read: 3, imported: 3, rejected: 0 });
    // cond-001's "River crossings" and cond-003's roof passage are not among their ctxs.
    expect(report.citationLinks).toMatchObject({ byNumber: 0, byTitleText: 5, unmatched: 2, numberTextDisagree: 0 });
    expect(report.citationLinks!.examples.map((e) => [e.sourceId, e.title])).toEqual([
      ['cond-001', 'River crossings'],
      ['cond-003', 'City Tower'],
    ]);
    const id = get<{ id: number }>(db, sql`SELECT i.id FROM instances i JOIN base_questions b ON b.id = i.base_question_id WHERE b.source_id = 'cond-003'`)!.id;
    const detail = instanceDetail(db, id);
    expect(detail.evidence.map((e) => [e.rank, e.origin])).toEqual([
      [1, 'retrieved'],
      [2, 'retrieved'],
    ]);
    expect(detail.interpretations.map((i) => i.condition)).toEqual(['Measured to the tip of its antenna', 'Measured to its roof, without the antenna']);
    expect(detail.interpretations.map((i) => i.citations)).toEqual([[1], []]);
    expect(detail.interpretations.map((i) => i.shortAnswer?.text)).toEqual(['330 metres', '300 metres']);
    const first = get<{ id: number }>(db, sql`SELECT i.id FROM instances i JOIN base_questions b ON b.id = i.base_question_id WHERE b.source_id = 'cond-001'`)!.id;
    const bridge = instanceDetail(db, first);
    expect(bridge.interpretations[1]!.shortAnswer).toMatchObject({ text: '2004', aliases: ['May 2004'] });
    expect(bridge.evidence[0]!.score).toBe(0.91);
  });
});

describe('bad input: a clear error naming the place, and nothing imported', () => {
  async function expectRejected(content: string | Buffer, expected: { location: RegExp; field?: string; message: RegExp }, name = 'bad.json') {
    const file = writeFile(tmp.file(name), content);
    const db = memoryDb();
    const before = snapshot(db);
    const report = await importFile(db, { file, format: 'musique' });
    expect(report.committed).toBe(false);
    expect(report.imported).toBe(0);
    expect(report.rejected).toBeGreaterThan(0);
    const error = report.errors[0]!;
    expect(error.location).toMatch(expected.location);
    if (expected.field !== undefined) expect(error.field).toBe(expected.field);
    expect(error.message).toMatch(expected.message);
    expect(snapshot(db)).toEqual(before);
    return report;
  }

  const good = musique.slice(0, 3);

  it('invalid JSON', async () => {
    const lines = good.map((r) => JSON.stringify(r));
    lines[1] = lines[1]!.replace('"question":', '"question"');
    await expectRejected(lines.join('\n'), { location: /bad\.json: line 2$/, field: '', message: /invalid JSON: expected ':'/ });
  });

  it('a wrong field type', async () => {
    const records = structuredClone(good) as unknown as Record<string, unknown>[];
    (records[2]!.paragraphs as Record<string, unknown>[])[4]!.title = 42;
    await expectRejected(JSON.stringify(records, null, 1), { location: /element \[2\]/, field: 'paragraphs[4].title', message: /expected string, received number/ });
  });

  it('a missing required field', async () => {
    const records = structuredClone(good) as unknown as Record<string, unknown>[];
    delete records[0]!.question;
    await expectRejected(JSON.stringify(records), { location: /line 1, element \[0\]/, field: 'question', message: /expected string, received undefined/ });
  });

  it('a duplicate id within the file', async () => {
    const records = [...good, good[1]];
    await expectRejected(JSON.stringify(records), { location: /element \[3\]/, field: 'id', message: new RegExp(`duplicate id "${good[1]!.id}"`) });
  });

  it('bytes that are not UTF-8', async () => {
    const text = good.map((r) => JSON.stringify(r)).join('\n');
    const at = text.indexOf('Journal');
    const bytes = Buffer.concat([Buffer.from(text.slice(0, at)), Buffer.from([0xff, 0xfe]), Buffer.from(text.slice(at))]);
    await expectRejected(bytes, { location: /line 1$/, message: /not valid UTF-8/ });
  });

  it('an empty file', async () => {
    await expectRejected('', { location: /bad\.json: line 1/, message: /the file is empty/ });
  });

  it('a truncated file', async () => {
    const text = JSON.stringify(good, null, 2);
    await expectRejected(text.slice(0, text.length - 200), { location: /line \d+/, message: /truncated/ });
  });

  it('a single 50 MB line', async () => {
    const huge = JSON.stringify({ ...good[0], id: 'huge', question: 'x'.repeat(50 * 1024 * 1024) });
    await expectRejected(`${JSON.stringify(good[1])}\n${huge}\n`, { location: /line 2$/, message: /is 50\.\d MiB, over the limit of 16\.0 MiB/ }, 'huge.jsonl');
  });

  it('a file that is not the format named (with a hint)', async () => {
    const file = tmp.file('asqa-as-musique.json');
    fs.copyFileSync(ASQA, file);
    const db = memoryDb();
    const report = await importFile(db, { file, format: 'musique' });
    expect(report).toMatchObject({ committed: false, imported: 0, rejected: 300 });
    expect(report.errors[0]!.message).toBe('this looks like ASQA data, not MuSiQue v1.0; try the format "asqa"');
    expect(report.errors.length).toBe(100);
    expect(report.moreErrors).toBeGreaterThan(0);
    expect(count(db, 'base_questions')).toBe(0);
    // ASQA records carry AmbigNQ's `annotations` key: still named as ASQA.
    const asAmbignq = await importFile(db, { file, format: 'ambignq' });
    expect(asAmbignq).toMatchObject({ committed: false, imported: 0 });
    expect(asAmbignq.errors[0]!.message).toBe('this looks like ASQA data, not AmbigNQ (light or full); try the format "asqa"');
  });

  it('a byte-order mark and CRLF line ends simply work', async () => {
    const text = `\ufeff${good.map((r) => JSON.stringify(r)).join('\r\n')}\r\n`;
    const file = writeFile(tmp.file('crlf.jsonl'), text);
    const db = memoryDb();
    expect(await importFile(db, { file, format: 'musique' })).toMatchObject({ read: 3, imported: 3, rejected: 0, committed: true });
  });

  it('--skip-invalid imports the valid records and writes a rejects report', async () => {
    const records = structuredClone(good) as unknown as Record<string, unknown>[];
    delete records[1]!.paragraphs;
    const file = writeFile(tmp.file('partial.json'), JSON.stringify(records));
    const db = memoryDb();
    const report = await importFile(db, { file, format: 'musique', skipInvalid: true });
    expect(report).toMatchObject({ read: 3, imported: 2, rejected: 1, committed: true, rejectsFile: `${file}.rejects.jsonl` });
    const rejects = fs.readFileSync(`${file}.rejects.jsonl`, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { location: string; errors: { field: string }[]; record: string });
    expect(rejects).toHaveLength(1);
    expect(rejects[0]!.location).toMatch(/element \[1\]/);
    expect(rejects[0]!.errors[0]!.field).toBe('paragraphs');
    expect((JSON.parse(rejects[0]!.record) as { id: string }).id).toBe(good[1]!.id);
    expect(count(db, 'base_questions')).toBe(2);
  });

  it('refuses to mix formats in one dataset', async () => {
    const db = memoryDb();
    await importFile(db, { file: MUSIQUE, format: 'musique', dataset: 'shared name' });
    await expect(importFile(db, { file: ASQA, format: 'asqa', dataset: 'shared name' })).rejects.toThrow(/already holds musique records/);
    expect(count(db, 'instances')).toBe(0);
  });

  it('names a missing file', async () => {
    await expect(importFile(memoryDb(), { file: tmp.file('nope.json'), format: 'musique' })).rejects.toThrow(/No file at/);
  });
});
