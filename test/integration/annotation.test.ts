import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../db/connection';
import { insertJudgment } from '../../db/queries/judgments';
import { get, sql, type WritableDB } from '../../db/sql';
import { adjudicate, campaignAgreement, disagreements } from '../../electron/services/annotation/agreement';
import { campaignView, createCampaign } from '../../electron/services/annotation/campaigns';
import { DatabaseJudging } from '../../electron/services/annotation/judging';
import { exportJudgments, importJudgments } from '../../electron/services/annotation/judgments-io';
import { exportPack, importPack, PackJudging, readPack, resultsPath } from '../../electron/services/annotation/packs';
import { importProtocol, resolveProtocol, saveProtocol } from '../../electron/services/annotation/protocols';
import type { AgreementReport, CampaignView } from '../../shared/api';
import { BUILT_IN_PROTOCOLS } from '../../shared/protocols';
import { awb, awbJson } from '../helpers/cli';
import { tempDir, writeFile } from '../helpers/db';
import { fillInstances } from '../helpers/synthetic';

const tmp = tempDir('awb-annotation-');
let db: WritableDB;
const dbFile = tmp.file('annotation.db');

beforeAll(() => {
  db = openDatabase(dbFile);
  fillInstances(db, 400, 11);
});
afterAll(() => {
  db.close();
  tmp.cleanup();
});

function countJudgments(): number {
  return (db.prepare('SELECT count(*) AS n FROM judgments').get() as { n: number }).n;
}

interface CampaignJson {
  id: number;
  protocol: { key: string; criteria: { id: string; scale: { kind: string } }[] };
  assignments: { instanceId: number; annotator: string }[];
  items: number[];
}

describe('protocols', () => {
  it('ships the four built-in protocols under their documented ids, with snake_case criteria', () => {
    const keys = BUILT_IN_PROTOCOLS.map((p) => p.key);
    expect(keys).toEqual(['march-validation', 'long-answer-quality', 'condambigqa-review', 'urasys-human-eval']);
    const march = resolveProtocol(db, 'march-validation');
    expect(march.criteria.map((c) => [c.id, c.scale.kind])).toEqual([
      ['ambiguity', 'yesno'],
      ['clarification', 'yesno'],
      ['long_answer', 'yesno'],
    ]);
    const quality = resolveProtocol(db, 'long-answer-quality');
    expect(quality.criteria.map((c) => c.scale)).toEqual(quality.criteria.map(() => expect.objectContaining({ kind: 'ordinal', min: 0, max: 5 })));
    for (const p of BUILT_IN_PROTOCOLS) for (const c of p.criteria) expect(c.id).toMatch(/^[a-z][a-z0-9_]*$/);
  });

  it('versions a user protocol on every save and refuses to change a built-in one', () => {
    const document = { key: 'pilot-check', name: 'Pilot check', criteria: [{ id: 'fluent', label: 'Fluent', question: 'Is it fluent?', scale: { kind: 'ordinal', min: 1, max: 3 } }] };
    const first = saveProtocol(db, document);
    const second = importProtocol(db, { format: 'awb-protocol/1', version: 9, ...document, name: 'Pilot check, reworded' });
    expect([first.version, second.version]).toEqual([1, 2]);
    expect(resolveProtocol(db, 'pilot-check').name).toBe('Pilot check, reworded');
    expect(() => saveProtocol(db, { ...document, key: 'march-validation' })).toThrow(/built in/);
    expect(() => saveProtocol(db, { ...document, criteria: [{ ...document.criteria[0], id: 'Bad Id' }] })).toThrow(/criteria\.0\.id/);
  });
});

describe('campaigns', () => {
  let created: CampaignJson;

  it('samples per ambiguity type from a seed and balances the assignments', () => {
    const result = awbJson<CampaignJson>([
      'campaign', 'create', '--name', 'Round 1', '--protocol', 'march-validation', '--annotators', 'ann,bob,cid,dee,eve',
      '--per-type', '7', '--k', '3', '--seed', '42', '--db', dbFile,
    ]);
    expect(result.status).toBe(0);
    created = result.json;
    expect(created.items).toHaveLength(21); // 7 each of the three types fillInstances makes
    expect(created.protocol.key).toBe('march-validation');
    expect(created.protocol.criteria.map((c) => [c.id, c.scale.kind])).toEqual([['ambiguity', 'yesno'], ['clarification', 'yesno'], ['long_answer', 'yesno']]);
    expect(created.assignments).toHaveLength(21 * 3);
    const perType = new Map<string, number>();
    for (const id of created.items) {
      const row = db.prepare('SELECT ambiguity_type FROM instances WHERE id = ?').get(id) as { ambiguity_type: string };
      perType.set(row.ambiguity_type, (perType.get(row.ambiguity_type) ?? 0) + 1);
    }
    expect([...perType.values()]).toEqual([7, 7, 7]);
    const loads = new Map<string, number>();
    for (const a of created.assignments) loads.set(a.annotator, (loads.get(a.annotator) ?? 0) + 1);
    expect(loads.size).toBe(5);
    expect(Math.max(...loads.values()) - Math.min(...loads.values())).toBeLessThanOrEqual(1);
    for (const id of created.items) {
      const who = created.assignments.filter((a) => a.instanceId === id).map((a) => a.annotator);
      expect(new Set(who).size).toBe(3);
    }
  });

  it('draws the same sample and assignment from the same seed, and another from another seed', () => {
    const again = awbJson<CampaignJson>(['campaign', 'create', '--name', 'Round 1 again', '--protocol', 'march-validation', '--annotators', 'ann,bob,cid,dee,eve', '--per-type', '7', '--k', '3', '--seed', '42', '--db', dbFile]).json;
    const other = awbJson<CampaignJson>(['campaign', 'create', '--name', 'Round 1 other', '--protocol', 'march-validation', '--annotators', 'ann,bob,cid,dee,eve', '--per-type', '7', '--k', '3', '--seed', '43', '--db', dbFile]).json;
    const pairs = (c: CampaignJson) => c.assignments.map((a) => `${a.instanceId}:${a.annotator}`).sort();
    expect(again.items).toEqual(created.items);
    expect(pairs(again)).toEqual(pairs(created));
    expect(other.items).not.toEqual(created.items);
  });

  it('shows a campaign as JSON with protocol, criteria and assignments', () => {
    const shown = awbJson<CampaignJson>(['campaign', 'show', String(created.id), '--db', dbFile]);
    expect(shown.status).toBe(0);
    expect(shown.json.protocol.key).toBe('march-validation');
    expect(shown.json.assignments.map((a) => `${a.instanceId}:${a.annotator}`).sort()).toEqual(created.assignments.map((a) => `${a.instanceId}:${a.annotator}`).sort());
  });

  it('refuses a bad request with a clear message', () => {
    const unknown = awb(['campaign', 'create', '--name', 'x', '--protocol', 'nope', '--annotators', 'a', '--db', dbFile]);
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toMatch(/No protocol "nope"\. Built in: march-validation/);
    const tooMany = awb(['campaign', 'create', '--name', 'x', '--protocol', 'march-validation', '--annotators', 'a,b', '--k', '3', '--db', dbFile]);
    expect(tooMany.stderr).toMatch(/1 to 2 annotators, not 3/);
    const filter = awb(['campaign', 'create', '--name', 'x', '--protocol', 'march-validation', '--annotators', 'a', '--filter', 'type=vague', '--db', dbFile]);
    expect(filter.status).toBe(2);
    expect(filter.stderr).toMatch(/campaign:create: selection\.types\.0: Invalid option: expected one of "semantic"/);
  });
});

function smallCampaign(name: string, annotators = ['ann', 'bob', 'cid'], extra: Partial<Parameters<typeof createCampaign>[1]> = {}): CampaignView {
  return createCampaign(db, { name, protocol: 'march-validation', annotators, seed: 3, selection: { types: ['semantic'], perType: 4 }, ...extra });
}

describe('judging in the database', () => {
  it('records decisions, undoes the last one, skips, and keeps the time per item', () => {
    const campaign = smallCampaign('Judging');
    const judging = new DatabaseJudging(db, campaign.id, 'ann');
    const queue = judging.queue();
    expect(queue.total).toBe(4);
    expect(queue.campaign.blind).toBe(true);
    const first = queue.items[0]!;
    judging.decide({ instanceId: first.instanceId, criterion: 'ambiguity', value: 'yes', comment: '', itemMs: 1200 });
    judging.decide({ instanceId: first.instanceId, criterion: 'clarification', value: 'no', comment: 'reading 2 repeats reading 1', itemMs: 800 });
    let item = judging.decide({ instanceId: first.instanceId, criterion: 'long_answer', value: 'yes', comment: '', itemMs: 500 });
    expect(item.values).toMatchObject({ ambiguity: { value: 'yes' }, clarification: { value: 'no', comment: 'reading 2 repeats reading 1' }, long_answer: { value: 'yes' } });
    expect(item.timeMs).toBe(2500);
    expect(judging.queue()).toMatchObject({ done: 1, perCriterion: { ambiguity: 1, clarification: 1, long_answer: 1 } });

    expect(judging.undo()).toEqual({ instanceId: first.instanceId, criterion: 'long_answer', position: first.position });
    expect(judging.undo()).toEqual({ instanceId: first.instanceId, criterion: 'clarification', position: first.position });
    item = judging.item(first.position);
    expect(item.values.long_answer?.value).toBeNull();
    expect(item.values.clarification?.value).toBeNull();
    expect(item.values.ambiguity?.value).toBe('yes');
    expect(judging.queue().done).toBe(0);

    // Undos walk back one decision at a time: two decisions on one criterion take two undos.
    judging.decide({ instanceId: first.instanceId, criterion: 'clarification', value: 'yes', comment: 'first look', itemMs: 100 });
    judging.decide({ instanceId: first.instanceId, criterion: 'clarification', value: 'no', comment: 'second look', itemMs: 100 });
    expect(judging.undo()).toMatchObject({ criterion: 'clarification' });
    expect(judging.item(first.position).values.clarification).toMatchObject({ value: 'yes', comment: 'first look' });
    expect(judging.undo()).toMatchObject({ criterion: 'clarification' });
    expect(judging.item(first.position).values.clarification?.value).toBeNull();
    expect(judging.undo()).toMatchObject({ criterion: 'ambiguity' });
    expect(judging.item(first.position).values.ambiguity?.value).toBeNull();
    expect(judging.undo()).toBeNull();

    // A decision that a later file import replaced is not undone: that would overwrite the import.
    judging.decide({ instanceId: first.instanceId, criterion: 'clarification', value: 'yes', comment: 'mine', itemMs: 100 });
    const assignmentId = get<{ id: number }>(
      db,
      sql`SELECT s.id FROM assignments s JOIN annotators a ON a.id = s.annotator_id WHERE s.campaign_id = ${campaign.id} AND s.instance_id = ${first.instanceId} AND a.name = 'ann'`,
    )!.id;
    insertJudgment(db, { uid: 'from-file-1', assignmentId, criterion: 'clarification', value: 'no', comment: 'from file', source: 'file', itemMs: null, createdAt: new Date().toISOString() });
    expect(judging.undo()).toBeNull();
    expect(judging.item(first.position).values.clarification).toMatchObject({ value: 'no', comment: 'from file' });

    judging.skip(queue.items[1]!.instanceId, 300);
    expect(judging.queue().items[1]!.skipped).toBe(true);
  });

  it('refuses values off the scale, unknown criteria and items not assigned to the annotator', () => {
    const campaign = smallCampaign('Refusals', ['ann', 'bob'], { perInstance: 1 });
    const judging = new DatabaseJudging(db, campaign.id, 'ann');
    const mine = judging.queue().items[0]!.instanceId;
    const theirs = campaign.assignments.find((a) => a.annotator === 'bob')!.instanceId;
    expect(() => judging.decide({ instanceId: mine, criterion: 'ambiguity', value: 'maybe', comment: '', itemMs: 0 })).toThrow(/"maybe" is not on the scale of "ambiguity"/);
    expect(() => judging.decide({ instanceId: mine, criterion: 'fluency', value: 'yes', comment: '', itemMs: 0 })).toThrow(/no criterion "fluency"/);
    expect(() => judging.decide({ instanceId: theirs, criterion: 'ambiguity', value: 'yes', comment: '', itemMs: 0 })).toThrow(/not assigned to ann/);
    expect(() => new DatabaseJudging(db, campaign.id, 'zed')).toThrow(/"zed" has no items/);
  });

  it("hides the pipeline's verdicts from annotators of a blind campaign: filter votes, status, removal reason", () => {
    const campaign = smallCampaign('Blind');
    const instanceId = campaign.items[0]!;
    db.prepare("INSERT INTO filter_votes (instance_id, model, verdict, reason) VALUES (?, 'judge-model', 'misaligned', 'reading 2 is off')").run(instanceId);
    db.prepare("UPDATE instances SET status = 'removed', removed_stage = 'filter', removed_reason = 'filter: 1 of 3 said misaligned' WHERE id = ?").run(instanceId);
    const judging = new DatabaseJudging(db, campaign.id, 'ann');
    const position = judging.queue().items.find((i) => i.instanceId === instanceId)!.position;
    expect(judging.item(position).instance).toMatchObject({ filterVotes: [], status: 'ready', removedStage: null, removedReason: null, blind: true });
    const open = smallCampaign('Not blind', ['ann'], { blind: false });
    const seeing = new DatabaseJudging(db, open.id, 'ann');
    const at = seeing.queue().items.find((i) => i.instanceId === instanceId)!.position;
    expect(seeing.item(at).instance.filterVotes.map((v) => v.model)).toEqual(['judge-model']);
    expect(seeing.item(at).instance).toMatchObject({ status: 'removed', removedReason: 'filter: 1 of 3 said misaligned' });
    const packFile = tmp.file('blind.awbpack');
    exportPack(db, { campaignId: campaign.id, annotator: 'ann', file: packFile });
    const text = fs.readFileSync(packFile, 'utf8');
    expect(text).not.toContain('judge-model');
    expect(text).not.toContain('said misaligned');
  });
});

describe('offline packs', () => {
  let campaign: CampaignView;
  let packFile: string;

  beforeAll(() => {
    campaign = smallCampaign('Packs');
    packFile = tmp.file('bob.awbpack');
    const report = awbJson<{ items: number; file: string }>(['pack', 'export', '--campaign', String(campaign.id), '--annotator', 'bob', '--out', packFile, '--db', dbFile]);
    expect(report.status).toBe(0);
    expect(report.json.items).toBe(4);
  });

  it('holds everything the annotator needs, under a checksum', () => {
    const pack = readPack(packFile);
    expect(pack.campaign.uid).toBe(campaign.uid);
    expect(pack.protocol.key).toBe('march-validation');
    expect(pack.protocol.guidelines.length).toBeGreaterThan(100);
    expect(pack.items.map((i) => i.instance.id).sort()).toEqual(campaign.assignments.filter((a) => a.annotator === 'bob').map((a) => a.instanceId).sort());
    expect(pack.checksum).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('is judged offline, then merged back once however often it is imported', () => {
    const judging = new PackJudging(packFile);
    const items = judging.queue().items;
    for (const item of items.slice(0, 3)) {
      for (const criterion of ['ambiguity', 'clarification', 'long_answer']) judging.decide({ instanceId: item.instanceId, criterion, value: 'yes', comment: '', itemMs: 100 });
    }
    judging.decide({ instanceId: items[3]!.instanceId, criterion: 'ambiguity', value: 'no', comment: 'not ambiguous', itemMs: 100 });
    judging.decide({ instanceId: items[3]!.instanceId, criterion: 'ambiguity', value: 'yes', comment: '', itemMs: 100 });
    // Two undos clear both decisions on the criterion; a third takes back item 3's last one.
    expect(judging.undo()).toMatchObject({ instanceId: items[3]!.instanceId, criterion: 'ambiguity' });
    expect(judging.item(items[3]!.position).values.ambiguity).toMatchObject({ value: 'no', comment: 'not ambiguous' });
    expect(judging.undo()).toMatchObject({ instanceId: items[3]!.instanceId, criterion: 'ambiguity' });
    expect(judging.item(items[3]!.position).values.ambiguity?.value ?? null).toBeNull();
    expect(judging.undo()).toMatchObject({ instanceId: items[2]!.instanceId, criterion: 'long_answer' });
    judging.decide({ instanceId: items[2]!.instanceId, criterion: 'long_answer', value: 'yes', comment: '', itemMs: 100 });
    judging.decide({ instanceId: items[3]!.instanceId, criterion: 'ambiguity', value: 'yes', comment: '', itemMs: 100 });
    // A second session on the same pack resumes from the results file.
    expect(new PackJudging(packFile).queue().done).toBe(3);

    // Every event goes in, undos included: 13 decisions and 3 undos.
    const before = countJudgments();
    const first = awbJson<{ imported: number; already: number; conflicts: number }>(['pack', 'import', packFile, '--db', dbFile]);
    expect(first.status).toBe(0);
    expect(first.json).toMatchObject({ imported: 16, already: 0, conflicts: 0 });
    const after = countJudgments();
    expect(after - before).toBe(16);
    const second = awbJson<{ imported: number; already: number }>(['pack', 'import', packFile, '--db', dbFile]);
    expect(second.json).toMatchObject({ imported: 0, already: 16 });
    expect(countJudgments()).toBe(after);
    const view = campaignView(db, campaign.id);
    expect(view.progress.find((p) => p.annotator === 'bob')).toMatchObject({ total: 4, done: 3 });
  });

  it('refuses a pack changed after export, naming the reason, and imports nothing', () => {
    const edited = tmp.file('edited.awbpack');
    fs.writeFileSync(edited, fs.readFileSync(packFile, 'utf8').replace('"annotator":"bob"', '"annotator":"ann"'));
    fs.copyFileSync(resultsPath(packFile), resultsPath(edited));
    const before = countJudgments();
    const result = awb(['pack', 'import', edited, '--db', dbFile]);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/changed after it was exported \(its checksum does not match\)/);
    expect(countJudgments()).toBe(before);
  });

  it('refuses a truncated pack', () => {
    const truncated = tmp.file('truncated.awbpack');
    const text = fs.readFileSync(packFile, 'utf8');
    fs.writeFileSync(truncated, text.slice(0, Math.floor(text.length / 2)));
    expect(awb(['pack', 'import', truncated, '--db', dbFile]).stderr).toMatch(/not complete JSON: the pack is truncated or damaged/);
  });

  it('refuses a pack of another campaign', () => {
    const other = smallCampaign('Other');
    const result = awb(['pack', 'import', packFile, '--campaign', String(other.id), '--db', dbFile]);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(new RegExp(`for campaign ${campaign.id} \\("Packs"\\), not campaign ${other.id}`));
    const elsewhere = tmp.file('elsewhere.db');
    const fresh = awb(['pack', 'import', packFile, '--db', elsewhere]);
    expect(fresh.stderr).toMatch(/which this database does not hold/);
  });

  it('refuses results for an instance not assigned to the annotator, naming the line', () => {
    const copy = tmp.file('tampered.awbpack');
    fs.copyFileSync(packFile, copy);
    const lines = fs.readFileSync(resultsPath(packFile), 'utf8').trimEnd().split('\n');
    lines.push(JSON.stringify({ type: 'judgment', uid: 'forged-0001', instance_id: 999999, criterion: 'ambiguity', value: 'yes', comment: '', item_ms: 1, undo: false, created_at: new Date().toISOString() }));
    fs.writeFileSync(resultsPath(copy), `${lines.join('\n')}\n`);
    const before = countJudgments();
    const result = awb(['pack', 'import', copy, '--db', dbFile]);
    expect(result.stderr).toMatch(new RegExp(`line ${lines.length}: instance 999999 is not assigned to bob in this campaign\\. Nothing was imported\\.`));
    expect(countJudgments()).toBe(before);
  });

  it("refuses results that name another annotator or campaign than their pack, and results without their pack", () => {
    const copy = tmp.file('relabelled.awbpack');
    fs.copyFileSync(packFile, copy);
    const [head, ...rest] = fs.readFileSync(resultsPath(packFile), 'utf8').trimEnd().split('\n');
    const header = JSON.parse(head!) as Record<string, unknown>;
    fs.writeFileSync(resultsPath(copy), `${[JSON.stringify({ ...header, annotator: 'ann' }), ...rest].join('\n')}\n`);
    const before = countJudgments();
    const relabelled = awb(['pack', 'import', copy, '--db', dbFile]);
    expect(relabelled.status).toBe(1);
    expect(relabelled.stderr).toMatch(/holds ann's judgments for campaign .*, but its pack is bob's for .*\. Nothing was imported\./);
    fs.writeFileSync(resultsPath(copy), `${[JSON.stringify({ ...header, campaign_uid: '00000000-other-campaign' }), ...rest].join('\n')}\n`);
    expect(awb(['pack', 'import', copy, '--db', dbFile]).stderr).toMatch(/for campaign 00000000-other-campaign, but its pack is bob's/);
    const lonely = tmp.file('lonely.awbpack.results.jsonl');
    fs.copyFileSync(resultsPath(packFile), lonely);
    expect(awb(['pack', 'import', lonely, '--db', dbFile]).stderr).toMatch(/The results need their pack beside them: lonely\.awbpack is missing\. Nothing was imported\./);
    expect(countJudgments()).toBe(before);
    // Named by its results file, a pack with its results beside it imports as usual.
    expect(awbJson(['pack', 'import', resultsPath(packFile), '--db', dbFile]).json).toMatchObject({ imported: 0, already: 16 });
  });

  it('keeps a changed judgment with its history and flags the conflict until adjudicated', () => {
    const c = smallCampaign('Conflicts', ['ann', 'bob']);
    const file = tmp.file('conflict.awbpack');
    exportPack(db, { campaignId: c.id, annotator: 'ann', file });
    const instanceId = c.items[0]!;
    // The same annotator judged in the app meanwhile, then the pack says otherwise.
    new DatabaseJudging(db, c.id, 'ann').decide({ instanceId, criterion: 'ambiguity', value: 'yes', comment: '', itemMs: 10 });
    new PackJudging(file).decide({ instanceId, criterion: 'ambiguity', value: 'no', comment: 'changed my mind', itemMs: 10 });
    const report = importPack(db, file);
    expect(report).toMatchObject({ imported: 1, conflicts: 1 });
    const history = db.prepare("SELECT j.value, j.conflict FROM judgments j JOIN assignments s ON s.id = j.assignment_id WHERE s.campaign_id = ? AND s.instance_id = ? AND j.criterion = 'ambiguity' ORDER BY j.id").all(c.id, instanceId);
    expect(history).toEqual([{ value: 'yes', conflict: 0 }, { value: 'no', conflict: 1 }]);
    const listed = disagreements(db, c.id).find((d) => d.instanceId === instanceId && d.criterion === 'ambiguity')!;
    expect(listed.votes.find((v) => v.annotator === 'ann')).toMatchObject({ value: 'no', conflict: true, comment: 'changed my mind' });
    expect(campaignAgreement(db, c.id, { resamples: 10 }).conflicts).toBe(1);
    adjudicate(db, { campaignId: c.id, instanceId, criterion: 'ambiguity', value: 'no', reason: 'the annotator revised it', adjudicator: 'lead' });
    expect(campaignAgreement(db, c.id, { resamples: 10 })).toMatchObject({ conflicts: 0, adjudicated: 1 });
  });

  it('leaves out a results line cut off by a crash and carries on after it', () => {
    const c = smallCampaign('Crash', ['ann']);
    const file = tmp.file('crash.awbpack');
    exportPack(db, { campaignId: c.id, annotator: 'ann', file });
    const judging = new PackJudging(file);
    const [a, b] = judging.queue().items;
    judging.decide({ instanceId: a!.instanceId, criterion: 'ambiguity', value: 'yes', comment: '', itemMs: 5 });
    fs.appendFileSync(resultsPath(file), '{"type":"judgment","uid":"half-writ');
    const resumed = new PackJudging(file);
    expect(resumed.queue().perCriterion.ambiguity).toBe(1);
    resumed.decide({ instanceId: b!.instanceId, criterion: 'ambiguity', value: 'no', comment: '', itemMs: 5 });
    expect(importPack(db, file)).toMatchObject({ imported: 2, incompleteLastLine: false });
  });
});

describe('judgments as files', () => {
  let campaign: CampaignView;
  beforeAll(() => {
    campaign = smallCampaign('Files', ['ann', 'bob']);
    const judging = new DatabaseJudging(db, campaign.id, 'ann');
    for (const id of campaign.items) judging.decide({ instanceId: id, criterion: 'ambiguity', value: 'yes', comment: 'clear, "quoted", with a comma', itemMs: 1 });
  });

  it('round-trips through CSV and JSON Lines, and a second import adds nothing', () => {
    for (const format of ['csv', 'jsonl'] as const) {
      const file = tmp.file(`judgments.${format}`);
      expect(exportJudgments(db, campaign.id, format, file).rows).toBe(4);
      const target = smallCampaign(`Files ${format}`, ['ann', 'bob']);
      const text = fs.readFileSync(file, 'utf8').replaceAll(format === 'csv' ? `\r\n${campaign.id},` : `"campaign":${campaign.id},`, format === 'csv' ? `\r\n${target.id},` : `"campaign":${target.id},`);
      writeFile(file, text);
      const first = importJudgments(db, target.id, format, file);
      expect(first).toMatchObject({ committed: true, imported: 4, already: 0 });
      expect(importJudgments(db, target.id, format, file)).toMatchObject({ committed: true, imported: 0, already: 4 });
      const back = tmp.file(`back.${format}`);
      exportJudgments(db, target.id, format, back);
      expect(fs.readFileSync(back, 'utf8')).toContain('with a comma');
    }
    const header = fs.readFileSync(tmp.file('judgments.csv'), 'utf8').split('\r\n')[0];
    expect(header).toBe('campaign,instance_id,annotator,criterion,value,comment,created_at');
  });

  it('never overwrites silently: a changed value is kept with its history as a conflict; an export read back adds nothing', () => {
    const file = tmp.file('changed.csv');
    exportJudgments(db, campaign.id, 'csv', file);
    const before = countJudgments();
    expect(importJudgments(db, campaign.id, 'csv', file)).toMatchObject({ committed: true, imported: 0, already: 4, conflicts: 0 });
    expect(countJudgments()).toBe(before);
    const changed = fs.readFileSync(file, 'utf8').replace(',ann,ambiguity,yes,', ',ann,ambiguity,no,');
    writeFile(file, changed);
    const instanceId = Number(changed.split('\r\n').find((line) => line.includes(',ann,ambiguity,no,'))!.split(',')[1]);
    expect(importJudgments(db, campaign.id, 'csv', file)).toMatchObject({ committed: true, imported: 1, already: 3, conflicts: 1 });
    const history = db
      .prepare("SELECT j.value, j.conflict FROM judgments j JOIN assignments s ON s.id = j.assignment_id WHERE s.campaign_id = ? AND s.instance_id = ? AND j.criterion = 'ambiguity' ORDER BY j.id")
      .all(campaign.id, instanceId);
    expect(history).toEqual([{ value: 'yes', conflict: 0 }, { value: 'no', conflict: 1 }]);
    expect(campaignAgreement(db, campaign.id, { resamples: 10 }).conflicts).toBe(1);
  });

  it('refuses a file with unknown ids, annotators, criteria, off-scale values or duplicate rows, naming each row, and imports nothing', () => {
    const instance = campaign.items[0]!;
    const rows = [
      'campaign,instance_id,annotator,criterion,value,comment,created_at',
      `${campaign.id},${instance},bob,ambiguity,yes,,2026-01-01T00:00:00Z`,
      `${campaign.id},999999,bob,ambiguity,yes,,2026-01-01T00:00:00Z`,
      `${campaign.id},${instance},zed,ambiguity,yes,,2026-01-01T00:00:00Z`,
      `${campaign.id},${instance},bob,fluency,yes,,2026-01-01T00:00:00Z`,
      `${campaign.id},${instance},bob,clarification,perhaps,,2026-01-01T00:00:00Z`,
      `${campaign.id},${instance},bob,ambiguity,no,,2026-01-01T00:00:00Z`,
    ];
    const file = writeFile(tmp.file('bad.csv'), `${rows.join('\n')}\n`);
    const before = countJudgments();
    const result = awbJson<{ committed: boolean; errors: { location: string; field: string; message: string }[] }>(['judgments', 'import', file, '--campaign', String(campaign.id), '--db', dbFile]);
    expect(result.status).toBe(1);
    expect(result.json.committed).toBe(false);
    expect(result.json.errors.map((e) => [e.location, e.field])).toEqual([
      ['bad.csv: row 3', 'instance_id'],
      ['bad.csv: row 4', 'annotator'],
      ['bad.csv: row 5', 'criterion'],
      ['bad.csv: row 6', 'value'],
      ['bad.csv: row 7', ''],
    ]);
    expect(result.json.errors[4]!.message).toMatch(/duplicate of bad\.csv: row 2/);
    expect(countJudgments()).toBe(before);
  });
});

describe('agreement', () => {
  it('prints the documented JSON, matching hand-computed values, with null for undefined ones', () => {
    const c = createCampaign(db, { name: 'Agreement', protocol: 'march-validation', annotators: ['a', 'b', 'c'], seed: 1, selection: { types: ['constraint'], perType: 4 } });
    // ambiguity: (y,y,y) (y,y,n) (n,n,n) (y,n,n): P̄ = 2/3, p(yes) = 1/2, κ = (2/3 − 1/2)/(1 − 1/2) = 1/3.
    const votes = [['yes', 'yes', 'yes'], ['yes', 'yes', 'no'], ['no', 'no', 'no'], ['yes', 'no', 'no']];
    const lines = ['campaign,instance_id,annotator,criterion,value,comment,created_at'];
    c.items.forEach((id, i) => {
      ['a', 'b', 'c'].forEach((rater, r) => {
        lines.push(`${c.id},${id},${rater},ambiguity,${votes[i]![r]},,2026-01-01T00:00:00Z`);
        lines.push(`${c.id},${id},${rater},clarification,yes,,2026-01-01T00:00:00Z`);
      });
    });
    const file = writeFile(tmp.file('agreement.csv'), `${lines.join('\n')}\n`);
    expect(importJudgments(db, c.id, 'csv', file).committed).toBe(true);

    const result = awbJson<AgreementReport>(['agreement', '--campaign', String(c.id), '--db', dbFile]);
    expect(result.status).toBe(0);
    const overall = (criterion: string) => result.json.rows.find((r) => r.criterion === criterion && r.ambiguityType === 'all')!;
    const ambiguity = overall('ambiguity');
    expect(ambiguity).toMatchObject({ items: 4, raters: 3, yesRate: 0.5, strictAgreement: 0.5 });
    expect(ambiguity.fleissKappa).toBeCloseTo(1 / 3, 6);
    expect(ambiguity.pBar).toBeCloseTo(2 / 3, 6);
    for (const key of ['majorityAgreement', 'krippendorffAlpha', 'gwetAc1']) expect(typeof (ambiguity as unknown as Record<string, unknown>)[key]).toBe('number');
    expect(ambiguity.kappaCiLow).toBeLessThan(1 / 3);
    // Everyone said yes: κ is undefined (chance agreement is 1), not 0 or 1; the paradox is flagged.
    const clarification = overall('clarification');
    expect(clarification).toMatchObject({ fleissKappa: null, pBar: 1, yesRate: 1, prevalenceParadox: true });
    expect(clarification.undefinedReasons.fleissKappa).toMatch(/.+/);
    // Nobody judged the long answer.
    expect(overall('long_answer')).toMatchObject({ items: 0, fleissKappa: null, yesRate: null });
    expect(result.json.rows.some((r) => r.criterion === 'ambiguity' && r.ambiguityType === 'constraint')).toBe(true);

    const text = awb(['agreement', '--campaign', String(c.id), '--db', dbFile, '--format', 'latex']);
    expect(text.stdout).toContain('\\begin{tabular}');
    expect(text.stdout).toContain('0.333');
  });

  it('counts raters per item, not the annotators of the campaign, when each item goes to k of them', () => {
    const c = createCampaign(db, { name: 'Two of four', protocol: 'march-validation', annotators: ['a', 'b', 'c', 'd'], perInstance: 2, seed: 2, selection: { types: ['semantic'], perType: 4 } });
    for (const annotator of ['a', 'b', 'c', 'd']) {
      const judging = new DatabaseJudging(db, c.id, annotator);
      for (const item of judging.queue().items) judging.decide({ instanceId: item.instanceId, criterion: 'ambiguity', value: 'yes', comment: '', itemMs: 1 });
    }
    const row = campaignAgreement(db, c.id, { resamples: 10 }).rows.find((r) => r.criterion === 'ambiguity' && r.ambiguityType === 'all')!;
    expect(row).toMatchObject({ items: 4, raters: 2 });
  });
});
