import fs from 'node:fs';
import path from 'node:path';
import { zipSync } from 'fflate';
import { getRelease, listReleases, type ReleaseRow } from '../../../db/queries/releases';
import type { ReadableDB } from '../../../db/sql';
import { AppError, type ReleaseDetail, type ReleaseListRow } from '../../../shared/api';
import { releaseFolderName } from '../../../shared/release/folder';
import { readGate } from '../../../shared/release/gate';

/** Reading releases back: the list, one release, the folder as a zip (the diff is in diff.ts). */

function listRow(row: Omit<ReleaseRow, 'card' | 'metadata' | 'files'>): ReleaseListRow {
  const gate = readGate(JSON.parse(row.gate));
  return {
    id: row.id,
    name: row.name,
    version: row.version,
    instances: row.instances,
    counts: JSON.parse(row.counts) as Record<string, number>,
    licence: row.licence,
    gatePassed: gate.passed,
    gateVerdict: gate.verdict,
    gateCoverage: gate.coverage,
    forced: row.forced_reason,
    dir: row.dir,
    createdAt: row.created_at,
  };
}

export function releaseList(db: ReadableDB): ReleaseListRow[] {
  return listReleases(db).map(listRow);
}

export function releaseRow(db: ReadableDB, id: number): ReleaseRow {
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
    gate: readGate(JSON.parse(row.gate)),
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
  const top = releaseFolderName(row.name, row.version);
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
