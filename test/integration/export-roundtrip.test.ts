import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { getStats } from '../../db/queries/stats';
import { all, sql } from '../../db/sql';
import { exportJsonl } from '../../electron/services/export';
import { importFile } from '../../electron/services/import/import-file';
import { AwbRecord } from '../../shared/awb-format';
import { AMBIGNQ, ASQA, CONDAMBIGQA, MUSIQUE, memoryDb, tempDir } from '../helpers/db';

const tmp = tempDir('awb-export-');
afterAll(() => tmp.cleanup());

async function seeded() {
  const db = memoryDb();
  await importFile(db, { file: MUSIQUE, format: 'musique', dataset: 'MuSiQue' });
  await importFile(db, { file: ASQA, format: 'asqa', dataset: 'ASQA' });
  await importFile(db, { file: AMBIGNQ, format: 'ambignq', dataset: 'AmbigNQ' });
  await importFile(db, { file: CONDAMBIGQA, format: 'condambigqa', dataset: 'CondAmbigQA' });
  return db;
}

/** Every row of the content tables, without database ids, in a stable order. */
function contents(db: ReturnType<typeof memoryDb>) {
  return {
    passages: all(db, sql`SELECT c.name, p.title, p.text, p.source_id FROM passages p JOIN corpora c ON c.id = p.corpus_id ORDER BY c.name, p.title, p.text`),
    questions: all(db, sql`SELECT d.name, b.source_id, b.question, b.hops, b.answer, b.aliases, b.answerable, b.extra FROM base_questions b JOIN datasets d ON d.id = b.dataset_id ORDER BY d.name, b.source_id`),
    readings: all(
      db,
      sql`SELECT b.source_id, i.ambiguity_type, r.position, r.clarified_question, r.condition, r.short_answer, r.answer_aliases, r.answer_start, r.answer_end, r.extra
          FROM interpretations r JOIN instances i ON i.id = r.instance_id JOIN base_questions b ON b.id = i.base_question_id
          ORDER BY b.source_id, i.ambiguity_type, r.position`,
    ),
  };
}

describe('export and import round-trip', () => {
  it('loses nothing: import(export(db)) holds the same data, and exporting it again gives the same bytes', async () => {
    const db = await seeded();
    const first = tmp.file('first.jsonl');
    const report = await exportJsonl(db, { file: first });
    const stats = getStats(db);
    expect(report.instances).toBe(stats.instances);
    expect(report.baseQuestions).toBe(stats.baseQuestions);

    // Every line is a valid awb-instance/1 record.
    const lines = fs.readFileSync(first, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(report.records);
    for (const line of lines.slice(0, 50)) expect(AwbRecord.safeParse(JSON.parse(line)).success).toBe(true);

    const copy = memoryDb();
    const imported = await importFile(copy, { file: first, format: 'awb' });
    expect(imported).toMatchObject({ rejected: 0, committed: true, imported: report.records });
    expect(getStats(copy)).toEqual(stats);
    expect(contents(copy)).toEqual(contents(db));

    const second = tmp.file('second.jsonl');
    await exportJsonl(copy, { file: second });
    expect(fs.readFileSync(second, 'utf8')).toBe(fs.readFileSync(first, 'utf8'));

    // And importing the export into the database it came from adds nothing.
    expect(await importFile(db, { file: first, format: 'awb' })).toMatchObject({ imported: 0, duplicates: report.records });
  });

  it('exports chosen datasets only, and can rename on import', async () => {
    const db = await seeded();
    const file = tmp.file('cond.jsonl');
    const report = await exportJsonl(db, { file, datasets: ['CondAmbigQA'] });
    expect(report).toMatchObject({ records: 3, instances: 3 });
    const copy = memoryDb();
    await importFile(copy, { file, format: 'awb', dataset: 'Conditions v2' });
    expect(all(copy, sql`SELECT name FROM datasets`)).toEqual([{ name: 'Conditions v2' }]);
    expect(all(copy, sql`SELECT name FROM corpora`)).toEqual([{ name: 'Conditions v2' }]);
    expect(all(copy, sql`SELECT DISTINCT detail FROM provenance`)).toEqual([{ detail: 'Conditions v2' }]);
  });

  it('writes nothing under the target name when the export fails', async () => {
    const db = await seeded();
    await expect(exportJsonl(db, { file: tmp.file('x.jsonl'), datasets: ['no such dataset'] })).rejects.toThrow(/No dataset named/);
    expect(fs.existsSync(tmp.file('x.jsonl'))).toBe(false);
    const controller = new AbortController();
    controller.abort();
    await expect(exportJsonl(db, { file: tmp.file('y.jsonl'), signal: controller.signal })).rejects.toThrow(/cancelled/);
    expect(fs.readdirSync(tmp.dir).filter((f) => f.startsWith('y.jsonl'))).toEqual([]);
  });
});
