import { createHash, type Hash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ByteWriter, ParquetWriter } from 'hyparquet-writer';
import { parquetSchema, RELEASE_COLUMNS, type ReleaseRow } from '../../../shared/release/schema';

/**
 * The release's files, written synchronously in large chunks so that a failed write (a full disk)
 * surfaces at once as an exception; each file's SHA-256 is computed from the bytes as they go out,
 * never by reading the file back.
 */

/** Where bytes go. Tests swap in a sink that fails after N bytes to play a full disk. */
export interface FileSink {
  write(bytes: Uint8Array): void;
  close(): void;
}

export type OpenSink = (file: string) => FileSink;

export const openFileSink: OpenSink = (file) => {
  const fd = fs.openSync(file, 'wx');
  let closed = false;
  return {
    write(bytes) {
      let offset = 0;
      while (offset < bytes.length) offset += fs.writeSync(fd, bytes, offset, bytes.length - offset);
    },
    close() {
      if (closed) return;
      closed = true;
      fs.closeSync(fd);
    },
  };
};

/** A file being written: counts its bytes and hashes them. */
export class HashedFile {
  private readonly hash: Hash = createHash('sha256');
  private readonly sink: FileSink;
  bytes = 0;
  rows = 0;

  constructor(
    readonly relativePath: string,
    dir: string,
    open: OpenSink,
  ) {
    fs.mkdirSync(path.dirname(path.join(dir, relativePath)), { recursive: true });
    this.sink = open(path.join(dir, relativePath));
  }

  write(bytes: Uint8Array): void {
    if (!bytes.length) return;
    this.sink.write(bytes);
    this.hash.update(bytes);
    this.bytes += bytes.length;
  }

  /** Closes the file and returns its SHA-256 (hex). */
  finish(): string {
    this.sink.close();
    return this.hash.digest('hex');
  }

  abort(): void {
    try {
      this.sink.close();
    } catch {
      // already failing: the folder is removed anyway
    }
  }
}

/** JSON Lines, buffered into chunks of about a megabyte. */
export class JsonlFile {
  readonly file: HashedFile;
  private parts: string[] = [];
  private pending = 0;

  constructor(relativePath: string, dir: string, open: OpenSink) {
    this.file = new HashedFile(relativePath, dir, open);
  }

  add(line: string): void {
    this.parts.push(line, '\n');
    this.pending += line.length + 1;
    this.file.rows++;
    if (this.pending >= 1 << 20) this.flush();
  }

  private flush(): void {
    if (!this.parts.length) return;
    this.file.write(Buffer.from(this.parts.join(''), 'utf8'));
    this.parts = [];
    this.pending = 0;
  }

  finish(): string {
    this.flush();
    return this.file.finish();
  }
}

/**
 * Parquet through hyparquet-writer: rows are gathered `rowGroupRows` at a time and written as one
 * row group, so memory holds one group per split, never the table. The footer keeps only the
 * groups' metadata.
 */
export class ParquetFile {
  readonly file: HashedFile;
  private readonly writer: ParquetWriter;
  private rows: ReleaseRow[] = [];

  constructor(
    relativePath: string,
    dir: string,
    open: OpenSink,
    private readonly rowGroupRows: number,
    keyValues: { key: string; value: string }[] = [],
  ) {
    this.file = new HashedFile(relativePath, dir, open);
    const bytes = new ByteWriter(1 << 20);
    const file = this.file;
    const flush = () => {
      file.write(new Uint8Array(bytes.buffer, 0, bytes.index));
      bytes.index = 0;
    };
    Object.assign(bytes, { flush, finish: flush });
    this.writer = new ParquetWriter({
      writer: bytes,
      schema: parquetSchema() as ConstructorParameters<typeof ParquetWriter>[0]['schema'],
      statistics: false,
      kvMetadata: keyValues,
      createdBy: 'Ambiguity Workbench (hyparquet-writer)',
    });
  }

  add(row: ReleaseRow): void {
    this.rows.push(row);
    this.file.rows++;
    if (this.rows.length >= this.rowGroupRows) this.flush();
  }

  private flush(): void {
    if (!this.rows.length) return;
    const rows = this.rows;
    this.rows = [];
    const result = this.writer.write({
      columnData: RELEASE_COLUMNS.map((column) => ({ name: column.name, data: rows.map((r) => r[column.name]) })),
      rowGroupSize: rows.length,
    });
    if (result) throw new Error('the Parquet writer went asynchronous');
  }

  finish(): string {
    this.flush();
    const result = this.writer.finish();
    if (result) throw new Error('the Parquet writer went asynchronous');
    return this.file.finish();
  }
}

/** `checksums.sha256` in the format `sha256sum -c` reads. */
export function checksumsText(files: readonly { path: string; sha256: string }[]): string {
  return files.map((f) => `${f.sha256}  ${f.path}\n`).join('');
}

export function parseChecksums(text: string): { path: string; sha256: string }[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const m = /^([0-9a-f]{64}) [ *](.+)$/.exec(line);
      if (!m) throw new Error(`not a checksum line: ${line.slice(0, 80)}`);
      return { sha256: m[1]!, path: m[2]! };
    });
}

export function sha256(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}
