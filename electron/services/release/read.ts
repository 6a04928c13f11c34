import fs from 'node:fs';
import path from 'node:path';
import { zipSync } from 'fflate';
import { getRelease, listReleases, releaseEntries, type ReleaseRow } from '../../../db/queries/releases';
import { FrozenRecords } from './frozen';
import type { ReadableDB } from '../../../db/sql';
import { AppError, type GateResult, type ReleaseDetail, type ReleaseDiff, type ReleaseDiffRow, type ReleaseListRow } from '../../../shared/api';
import { changedFields, mergeByKey } from '../../../shared/release/diff';

/** Reading releases back: the list, one release, the diff between two, the folder as a zip. */

function listRow(row: Omit<ReleaseRow, 'card' | 'metadata' | 'files'>): ReleaseListRow {
  const gate = JSON.parse(row.gate) as GateResult;
  return {
    id: row.id,
    name: row.name,
    version: row.version,
    instances: row.instances,
    counts: JSON.parse(row.counts) as Record<string, number>,
    licence: row.licence,
    gatePassed: gate.passed,
    forced: row.forced_reason,
    dir: row.dir,
    createdAt: row.created_at,
  };
}

export function releaseList(db: ReadableDB): ReleaseListRow[] {
  return listReleases(db).map(listRow);
}

function releaseRow(db: ReadableDB, id: number): ReleaseRow {
  const row = getRelease(db, id);
  if (!row) throw new AppError('not_found', `No release ${id}`);
  return row;
}

export function releaseDetail(db: ReadableDB, id: number): ReleaseDetail {
  const row = releaseRow(db, id);
  return {
    ...listRow(row),
    selection: JSON.parse(row.selection) as ReleaseDetail['selection'],
    split: JSON.parse(row.split) as ReleaseDetail['split'],
    thresholds: JSON.parse(row.thresholds) as ReleaseDetail['thresholds'],
    gate: JSON.parse(row.gate) as GateResult,
    files: JSON.parse(row.files) as ReleaseDetail['files'],
    appVersion: row.app_version,
    schemaVersion: row.schema_version,
    card: row.card,
    metadata: JSON.parse(row.metadata) as Record<string, unknown>,
  };
}

export function releaseCard(db: ReadableDB, id: number): { markdown: string } {
  return { markdown: releaseRow(db, id).card };
}

const byKey = (x: { key: string }, y: { key: string }) => (x.key < y.key ? -1 : x.key > y.key ? 1 : 0);

export function diffReleases(db: ReadableDB, a: number, b: number, limit: number): ReleaseDiff {
  const ra = releaseRow(db, a);
  const rb = releaseRow(db, b);
  const left = releaseEntries(db, a).sort(byKey);
  const right = releaseEntries(db, b).sort(byKey);
  const frozen = new FrozenRecords(db, FrozenRecords.chunksFor(new Set([...left, ...right].map((e) => e.split)).size * 2));
  const out: ReleaseDiff = {
    a: { id: ra.id, name: ra.name, version: ra.version },
    b: { id: rb.id, name: rb.name, version: rb.version },
    added: 0,
    removed: 0,
    changed: 0,
    unchanged: 0,
    rows: [],
    truncated: false,
  };
  const push = (row: ReleaseDiffRow) => {
    if (out.rows.length < limit) out.rows.push(row);
    else out.truncated = true;
  };
  for (const event of mergeByKey(left, right)) {
    if (event.change === 'same' && event.a.split === event.b.split) out.unchanged++;
    else if (event.change === 'same') {
      // Same content, another split: a change for whoever trains on one split and tests on another.
      out.changed++;
      push({ key: event.a.key, change: 'changed', fields: ['split'], splitA: event.a.split, splitB: event.b.split });
    } else if (event.change === 'added') {
      out.added++;
      push({ key: event.b.key, change: 'added', fields: [], splitA: null, splitB: event.b.split });
    } else if (event.change === 'removed') {
      out.removed++;
      push({ key: event.a.key, change: 'removed', fields: [], splitA: event.a.split, splitB: null });
    } else {
      out.changed++;
      if (out.rows.length >= limit) {
        out.truncated = true;
        continue;
      }
      const before = frozen.record<unknown>(event.a);
      const after = frozen.record<unknown>(event.b);
      const fields = changedFields(before, after);
      push({ key: event.a.key, change: 'changed', fields: event.a.split === event.b.split ? fields : ['split', ...fields], splitA: event.a.split, splitB: event.b.split });
    }
  }
  return out;
}

function filesUnder(dir: string, prefix = ''): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
    return entry.isDirectory() ? filesUnder(path.join(dir, entry.name), relative) : [relative];
  });
}

const ZIP_LIMIT = 512 * 1024 * 1024;

/** The release folder as one zip (browser mode's download), files in name order, dated 1980. */
export function releaseZip(db: ReadableDB, id: number): { fileName: string; base64: string; bytes: number } {
  const row = releaseRow(db, id);
  if (!fs.existsSync(row.dir)) throw new AppError('not_found', `The folder of release ${row.name} ${row.version} (${row.dir}) is gone.`);
  const top = `${row.name.replace(/[^A-Za-z0-9._-]+/g, '-')}-${row.version}`;
  const files = filesUnder(row.dir).sort();
  const total = files.reduce((n, file) => n + fs.statSync(path.join(row.dir, file)).size, 0);
  // The zip is built in memory and sent as one answer: fine for a benchmark's size, not for gigabytes.
  if (total > ZIP_LIMIT) {
    throw new AppError('invalid_input', `Release ${row.name} ${row.version} is ${(total / 1e6).toFixed(0)} MB, too large to download as one zip; copy the folder ${row.dir} instead.`);
  }
  const entries: Record<string, Uint8Array> = {};
  for (const file of files) entries[`${top}/${file}`] = fs.readFileSync(path.join(row.dir, file));
  const zip = zipSync(entries, { level: 6, mtime: new Date(1980, 0, 1) });
  return { fileName: `${top}.zip`, base64: Buffer.from(zip).toString('base64'), bytes: zip.length };
}
