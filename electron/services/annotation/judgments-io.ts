import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { campaignAnnotators, findAnnotatorId } from '../../../db/queries/annotators';
import { findAssignment, insertAssignment, nextPosition } from '../../../db/queries/assignments';
import { getCampaign, isCampaignItem } from '../../../db/queries/campaigns';
import { campaignCurrentJudgments, currentJudgments, insertJudgment, judgmentExists, markConflict } from '../../../db/queries/judgments';
import { getProtocol } from '../../../db/queries/protocols';
import { transaction, type WritableDB } from '../../../db/sql';
import { AppError, type ImportIssue, type JudgmentFormat, type JudgmentImportReport } from '../../../shared/api';
import { isValidValue } from '../../../shared/protocols';
import { MAX_JUDGMENT_FILE_BYTES, readTextBounded } from './bounded-read';
import { sha256 } from '../hash';

/**
 * Judgments as plain files, one row per (campaign, instance, annotator, criterion):
 * `campaign, instance_id, annotator, criterion, value, comment, created_at`, as CSV (RFC 4180,
 * with a header) or JSON Lines. Export writes the current value of every judgment; import takes
 * judgments gathered in a spreadsheet or another tool, all or nothing, and re-importing the same
 * rows adds nothing.
 */

export const JUDGMENT_COLUMNS = ['campaign', 'instance_id', 'annotator', 'criterion', 'value', 'comment', 'created_at'] as const;

function csvField(value: string | number): string {
  const text = String(value);
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function exportJudgments(db: WritableDB, campaignId: number, format: JudgmentFormat, file: string): { file: string; rows: number } {
  const campaign = getCampaign(db, campaignId);
  if (!campaign) throw new AppError('not_found', `No campaign ${campaignId}`);
  const rows = campaignCurrentJudgments(db, campaignId)
    .filter((j) => j.value !== null)
    .map((j) => ({ campaign: campaignId, instance_id: j.instance_id, annotator: j.annotator, criterion: j.criterion, value: j.value!, comment: j.comment, created_at: j.created_at }));
  const text =
    format === 'csv'
      ? [JUDGMENT_COLUMNS.join(','), ...rows.map((r) => JUDGMENT_COLUMNS.map((c) => csvField(r[c])).join(','))].join('\r\n') + '\r\n'
      : rows.map((r) => JSON.stringify(r)).join('\n') + (rows.length ? '\n' : '');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  return { file, rows: rows.length };
}


interface Row {
  location: string;
  values: Record<string, unknown>;
}

function readRows(file: string, format: JudgmentFormat): Row[] {
  const text = readTextBounded(file, MAX_JUDGMENT_FILE_BYTES, 'judgments file').replace(/^\ufeff/, '');
  const name = path.basename(file);
  if (format === 'jsonl') {
    return text
      .split(/\r?\n/)
      .map((line, i) => ({ line, i }))
      .filter(({ line }) => line.trim() !== '')
      .map(({ line, i }) => {
        try {
          return { location: `${name}: line ${i + 1}`, values: JSON.parse(line) as Record<string, unknown> };
        } catch {
          throw new AppError('invalid_input', `${name}: line ${i + 1} is not valid JSON; nothing was imported.`);
        }
      });
  }
  let records: Record<string, string>[];
  try {
    records = parse(text, { columns: true, skip_empty_lines: true, trim: false }) as Record<string, string>[];
  } catch (error) {
    throw new AppError('invalid_input', `${name}: not valid CSV (${(error as Error).message}); nothing was imported.`);
  }
  return records.map((values, i) => ({ location: `${name}: row ${i + 2}`, values }));
}

export function importJudgments(db: WritableDB, campaignId: number, format: JudgmentFormat, file: string): JudgmentImportReport {
  const campaign = getCampaign(db, campaignId);
  if (!campaign) throw new AppError('not_found', `No campaign ${campaignId}`);
  if (!fs.existsSync(file)) throw new AppError('not_found', `No file at ${file}`);
  const protocol = getProtocol(db, campaign.protocol_id)!;
  const annotators = new Set(campaignAnnotators(db, campaignId).map((a) => a.name));
  const rows = readRows(file, format);
  const errors: ImportIssue[] = [];
  const seen = new Map<string, string>();
  const checked: { location: string; instanceId: number; annotator: string; criterion: string; value: string; comment: string; createdAt: string }[] = [];
  for (const row of rows) {
    const fail = (field: string, message: string) => errors.push({ location: row.location, field, message });
    const v = row.values;
    const missing = JUDGMENT_COLUMNS.filter((c) => c !== 'comment' && c !== 'created_at' && (v[c] === undefined || v[c] === null || String(v[c]).trim() === ''));
    if (missing.length) {
      fail(missing[0]!, 'is missing');
      continue;
    }
    if (Number(v.campaign) !== campaignId) fail('campaign', `is ${String(v.campaign)}, but this import is for campaign ${campaignId}`);
    const instanceId = Number(v.instance_id);
    if (!Number.isInteger(instanceId) || !isCampaignItem(db, campaignId, instanceId)) fail('instance_id', `${String(v.instance_id)} is not an instance of this campaign`);
    const annotator = String(v.annotator);
    if (!annotators.has(annotator)) fail('annotator', `"${annotator}" is not an annotator of this campaign`);
    const criterion = protocol.criteria.find((c) => c.id === String(v.criterion));
    if (!criterion) fail('criterion', `"${String(v.criterion)}" is not a criterion of ${protocol.name}`);
    const value = String(v.value);
    if (criterion && !isValidValue(criterion.scale, value)) fail('value', `"${value}" is not on the scale of "${criterion.id}"`);
    const createdAt = v.created_at ? String(v.created_at) : new Date(0).toISOString();
    if (Number.isNaN(Date.parse(createdAt))) fail('created_at', `"${createdAt}" is not a date`);
    const key = `${instanceId}\u0000${annotator}\u0000${String(v.criterion)}`;
    const first = seen.get(key);
    if (first) fail('', `duplicate of ${first} (same instance, annotator and criterion)`);
    seen.set(key, row.location);
    if (errors.length === 0 || errors.at(-1)!.location !== row.location) {
      checked.push({ location: row.location, instanceId, annotator, criterion: String(v.criterion), value, comment: String(v.comment ?? ''), createdAt });
    }
  }
  const report: JudgmentImportReport = { file, rows: rows.length, imported: 0, already: 0, conflicts: 0, committed: false, errors: errors.slice(0, 100) };
  if (errors.length) return report;
  transaction(db, () => {
    for (const row of checked) {
      const annotatorId = findAnnotatorId(db, row.annotator)!;
      const assignment =
        findAssignment(db, campaignId, annotatorId, row.instanceId) ??
        { id: insertAssignment(db, campaignId, row.instanceId, annotatorId, nextPosition(db, campaignId, annotatorId)) };
      // The same row imported again gets the same id, and is passed over.
      const uid = `file:${sha256([campaignId, row.instanceId, row.annotator, row.criterion, row.value, row.comment, row.createdAt].join('\u0000')).slice(0, 32)}`;
      const current = currentJudgments(db, assignment.id).find((j) => j.criterion === row.criterion);
      // A row that says what the database already holds (say, an export read back) adds nothing.
      if (judgmentExists(db, uid) || (current && current.value === row.value && current.comment === row.comment)) {
        report.already++;
        continue;
      }
      const id = insertJudgment(db, { uid, assignmentId: assignment.id, criterion: row.criterion, value: row.value, comment: row.comment, source: 'file', itemMs: null, createdAt: row.createdAt });
      report.imported++;
      // Never a silent overwrite: a changed value keeps its history and waits to be resolved.
      if (current && current.value !== null && current.value !== row.value) {
        markConflict(db, id);
        report.conflicts++;
      }
    }
  });
  report.committed = true;
  return report;
}

/** The format a judgments file's extension names. */
export function judgmentFormatOf(file: string): JudgmentFormat {
  if (/\.csv$/i.test(file)) return 'csv';
  if (/\.(jsonl|ndjson)$/i.test(file)) return 'jsonl';
  throw new AppError('invalid_input', `Cannot tell the format of ${path.basename(file)}: give the format (csv or jsonl).`);
}
