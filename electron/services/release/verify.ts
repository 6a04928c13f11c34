import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { parquetMetadataAsync, parquetReadObjects, type AsyncBuffer } from 'hyparquet';
import { AppError, type VerifyCheck, type VerifyReport } from '../../../shared/api';
import { AwbRecord } from '../../../shared/awb-format';
import { instanceKey, parquetSchema } from '../../../shared/release/schema';
import { parseChecksums } from './files';

/**
 * `awb release verify DIR`: every checksum, every file listed (and nothing unlisted), the
 * JSONL records against the awb-instance/1 schema, the Parquet files' schema, and the row counts
 * of every data file against release.json.
 */

function fileBuffer(file: string): AsyncBuffer & { close(): void } {
  const fd = fs.openSync(file, 'r');
  return {
    byteLength: fs.fstatSync(fd).size,
    slice(start: number, end?: number) {
      const stop = end ?? fs.fstatSync(fd).size;
      const bytes = Buffer.alloc(stop - start);
      fs.readSync(fd, bytes, 0, bytes.length, start);
      return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length);
    },
    close: () => fs.closeSync(fd),
  };
}

function hashFile(file: string): string {
  const hash = createHash('sha256');
  const fd = fs.openSync(file, 'r');
  const chunk = Buffer.alloc(1 << 20);
  try {
    for (;;) {
      const n = fs.readSync(fd, chunk, 0, chunk.length, null);
      if (!n) break;
      hash.update(chunk.subarray(0, n));
    }
  } finally {
    fs.closeSync(fd);
  }
  return hash.digest('hex');
}

function listFiles(dir: string, prefix = ''): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
    return entry.isDirectory() ? listFiles(path.join(dir, entry.name), relative) : [relative];
  });
}

interface Metadata {
  format?: string;
  counts?: Record<string, number>;
  files?: { path: string; sha256: string; rows: number | null }[];
}

export async function verifyRelease(dirInput: string): Promise<VerifyReport> {
  const dir = path.resolve(dirInput);
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) throw new AppError('not_found', `No release folder at ${dir}`);
  const checks: VerifyCheck[] = [];
  const check = (name: string, ok: boolean, message: string) => checks.push({ name, ok, message });

  // Checksums: every listed file matches, and every file but the list itself is listed.
  const listPath = path.join(dir, 'checksums.sha256');
  let listed: { path: string; sha256: string }[] = [];
  if (!fs.existsSync(listPath)) check('checksums', false, 'checksums.sha256 is missing');
  else {
    try {
      listed = parseChecksums(fs.readFileSync(listPath, 'utf8'));
    } catch (error) {
      check('checksums', false, (error as Error).message);
    }
    for (const entry of listed) {
      const file = path.join(dir, entry.path);
      if (!fs.existsSync(file)) check(`checksum ${entry.path}`, false, 'listed but missing');
      else {
        const actual = hashFile(file);
        check(`checksum ${entry.path}`, actual === entry.sha256, actual === entry.sha256 ? 'matches' : `expected ${entry.sha256.slice(0, 12)}…, found ${actual.slice(0, 12)}…`);
      }
    }
    const unlisted = listFiles(dir).filter((f) => f !== 'checksums.sha256' && !listed.some((l) => l.path === f));
    check('every file listed', unlisted.length === 0, unlisted.length ? `not in checksums.sha256: ${unlisted.join(', ')}` : `${listed.length} files`);
  }

  let metadata: Metadata = {};
  try {
    metadata = JSON.parse(fs.readFileSync(path.join(dir, 'release.json'), 'utf8')) as Metadata;
    check('release.json', metadata.format === 'awb-release/1', metadata.format === 'awb-release/1' ? 'awb-release/1' : `unknown format ${String(metadata.format)}`);
  } catch (error) {
    check('release.json', false, (error as Error).message);
  }

  const expectedSchema = parquetSchema();
  const perSplit: Record<string, { jsonl: number; parquet: number }> = {};
  for (const entry of metadata.files ?? []) {
    const file = path.join(dir, entry.path);
    if (!fs.existsSync(file)) {
      check(`rows ${entry.path}`, false, 'missing');
      continue;
    }
    const jsonl = /^data\/(.+)\.jsonl$/.exec(entry.path);
    const parquet = /^data\/(.+)-00000-of-00001\.parquet$/.exec(entry.path);
    if (jsonl) {
      let rows = 0;
      let bad: string | null = null;
      const lines = readline.createInterface({ input: fs.createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
      for await (const line of lines) {
        if (!line) continue;
        rows++;
        if (bad) continue;
        try {
          const parsed = AwbRecord.safeParse(JSON.parse(line));
          if (!parsed.success) bad = `line ${rows}: ${parsed.error.issues[0]?.path.join('.')}: ${parsed.error.issues[0]?.message}`;
        } catch (error) {
          bad = `line ${rows}: ${(error as Error).message}`;
        }
      }
      check(`schema ${entry.path}`, bad === null, bad ?? 'every line is an awb-instance/1 record');
      check(`rows ${entry.path}`, rows === entry.rows, `${rows} lines, release.json says ${entry.rows}`);
      (perSplit[jsonl[1]!] ??= { jsonl: 0, parquet: 0 }).jsonl = rows;
    } else if (parquet) {
      const buffer = fileBuffer(file);
      try {
        const meta = await parquetMetadataAsync(buffer);
        const found = meta.schema.map((s) => `${s.name}:${s.type ?? ''}:${s.repetition_type ?? ''}:${s.num_children ?? 0}`);
        const wanted = expectedSchema.map((s) => `${s.name}:${s.type ?? ''}:${s.repetition_type ?? ''}:${s.num_children ?? 0}`);
        const same = found.length === wanted.length && found.every((f, i) => f === wanted[i]);
        check(`schema ${entry.path}`, same, same ? `${meta.schema.length} schema elements as documented` : 'the Parquet schema differs from the documented one');
        const rows = Number(meta.num_rows);
        check(`rows ${entry.path}`, rows === entry.rows, `${rows} rows, release.json says ${entry.rows}`);
        (perSplit[parquet[1]!] ??= { jsonl: 0, parquet: 0 }).parquet = rows;
        if (rows > 0 && same) {
          const [first] = (await parquetReadObjects({ file: buffer, metadata: meta, rowStart: 0, rowEnd: 1, columns: ['key'] })) as { key: string }[];
          const jsonlFile = path.join(dir, entry.path.replace(/-00000-of-00001\.parquet$/, '.jsonl'));
          if (fs.existsSync(jsonlFile)) {
            const firstLine = await firstLineOf(jsonlFile);
            const key = firstLine ? instanceKey(JSON.parse(firstLine) as AwbRecord) : null;
            check(`order ${entry.path}`, key === first?.key, key === first?.key ? 'first row matches the JSONL file' : `first row ${first?.key}, JSONL starts with ${key}`);
          }
        }
      } catch (error) {
        check(`schema ${entry.path}`, false, (error as Error).message);
      } finally {
        buffer.close();
      }
    }
  }
  for (const [split, expected] of Object.entries(metadata.counts ?? {})) {
    const found = perSplit[split];
    const ok = found !== undefined && found.jsonl === expected && found.parquet === expected;
    check(`count ${split}`, ok, found ? `JSONL ${found.jsonl}, Parquet ${found.parquet}, release.json ${expected}` : 'no data files');
  }
  return { dir, ok: checks.length > 0 && checks.every((c) => c.ok), checks };
}

async function firstLineOf(file: string): Promise<string | null> {
  const lines = readline.createInterface({ input: fs.createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
  for await (const line of lines) {
    lines.close();
    return line;
  }
  return null;
}
