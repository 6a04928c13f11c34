import { createHash, type Hash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ByteWriter, ParquetWriter } from 'hyparquet-writer';
import type { ColumnChunk, SchemaElement } from 'hyparquet';
import type { PageIndexes } from 'hyparquet-writer/src/types.js';
import { parquetSchema } from '../../../shared/release/schema';
import type { LeafData, Shredder } from '../../../shared/release/shred';
import { FastByteWriter, writeLeafColumn } from './column-writer';

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

/** One row group encoded on its own, its offsets counted from 0 (see `ParquetAssembler.append`). */
export interface EncodedGroup {
  rows: number;
  bytes: Uint8Array;
  columns: ColumnChunk[];
  indexes: PageIndexes[];
}

const CODEC = 'SNAPPY';
/** hyparquet-writer's default page size, which the release keeps. */
const PAGE_SIZE = 1 << 20;

/**
 * Encodes rows as one Parquet row group, from columns shredded in one walk over the rows
 * (shared/release/shred.ts) rather than one walk per leaf, each leaf written by ./column-writer.ts
 * (hyparquet-writer's column encoding, the same bytes, without its per-value costs). Row groups
 * are independent, so workers can encode them in parallel; the offsets inside are relative to the
 * group's first byte until the assembler places it in the file.
 */
export function encodeShredded(columnData: LeafData[], shredder: Shredder, rowCount: number): EncodedGroup {
  // Sized for the group up front (about 400 bytes a row here) rather than doubled and copied.
  const writer = new FastByteWriter(Math.max(1 << 16, rowCount * 512));
  const indexes = columnData.map((data, i) => writeLeafColumn(writer, shredder.leaves[i]!, data, PAGE_SIZE));
  return { rows: rowCount, bytes: writer.getBytes(), columns: indexes.map((index) => index.chunk), indexes };
}

/**
 * A Parquet file put together from row groups encoded elsewhere: each group's bytes are appended
 * in order and its offsets moved to where it landed; the footer (schema, row groups, offset
 * indexes, key-value metadata) is hyparquet-writer's own. Memory holds one group at a time.
 */
export class ParquetAssembler {
  readonly file: HashedFile;
  private readonly writer: ParquetWriter;
  private readonly bytes = new ByteWriter(1 << 20);
  private readonly flush: () => void;

  constructor(relativePath: string, dir: string, open: OpenSink, keyValues: { key: string; value: string }[] = []) {
    this.file = new HashedFile(relativePath, dir, open);
    const bytes = this.bytes;
    const file = this.file;
    this.flush = () => {
      file.write(new Uint8Array(bytes.buffer, 0, bytes.index));
      bytes.index = 0;
    };
    Object.assign(bytes, { flush: this.flush, finish: this.flush });
    this.writer = new ParquetWriter({
      writer: bytes,
      schema: parquetSchema() as SchemaElement[],
      codec: CODEC,
      statistics: false,
      kvMetadata: keyValues,
      createdBy: 'Ambiguity Workbench (hyparquet-writer)',
    });
  }

  append(group: EncodedGroup): void {
    if (!group.rows) return;
    // The group's bytes go straight to the file (the writer's buffer holds only the footer's).
    this.flush();
    const base = BigInt(this.bytes.offset);
    this.file.write(group.bytes);
    this.bytes.offset += group.bytes.length;
    for (const chunk of group.columns) {
      if (chunk.file_offset !== undefined) chunk.file_offset += base;
      const meta = chunk.meta_data!;
      meta.data_page_offset += base;
      if (meta.dictionary_page_offset !== undefined) meta.dictionary_page_offset += base;
    }
    for (const index of group.indexes) {
      for (const page of index.offsetIndex?.page_locations ?? []) page.offset += base;
    }
    let totalBytes = 0n;
    for (const { meta_data } of group.columns) totalBytes += meta_data?.total_uncompressed_size ?? 0n;
    this.writer.num_rows += BigInt(group.rows);
    this.writer.row_groups.push({ columns: group.columns, total_byte_size: totalBytes, num_rows: BigInt(group.rows), total_compressed_size: BigInt(group.bytes.length) });
    this.writer.pendingIndexes.push(...group.indexes);
    this.file.rows += group.rows;
  }

  /** Writes the footer, closes the file and returns its SHA-256. */
  finish(): string {
    if (this.writer.finish()) throw new Error('the Parquet writer went asynchronous');
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

