import { ByteWriter } from 'hyparquet-writer';
import type { ColumnChunk, Encoding, OffsetIndex, ParquetType, SchemaElement } from 'hyparquet';
import { writePageHeader } from 'hyparquet-writer/src/datapage.js';
import { estimateValueSize, useDictionary } from 'hyparquet-writer/src/dictionary.js';
import { writeRleBitPackedHybrid } from 'hyparquet-writer/src/encoding.js';
import { writePlain } from 'hyparquet-writer/src/plain.js';
import { getMaxRepetitionLevel } from 'hyparquet-writer/src/schema.js';
import type { PageIndexes } from 'hyparquet-writer/src/types.js';
import type { LeafColumn, LeafData } from '../../../shared/release/shred';
import { snappyCompress } from './snappy';

/**
 * One leaf column of a row group, written as hyparquet-writer's `writeColumn` writes it with the
 * release's settings (Snappy, data page v2, pages of 1 MiB, a dictionary when it at least halves
 * the values, an offset index, no statistics), byte for byte, but without its per-value costs:
 * strings go into the page as UTF-8 in place instead of through a TextEncoder array each, bytes
 * are appended to a plain array instead of through a DataView one method call at a time, and
 * Snappy writes into an array sized once (./snappy.ts). The library's own pieces that cost
 * nothing per value (the dictionary decision, level and page header encodings, plain numbers)
 * are used as they are. `test/unit/release-shred.test.ts` checks the bytes against the library's
 * own writer. Only the release schema's leaf types are handled: strings, int32, double, boolean.
 */

/** hyparquet-writer's ByteWriter with its hot appends on a Buffer, and strings written in place. */
export class FastByteWriter extends ByteWriter {
  bytes: Buffer;

  constructor(size = 1 << 16) {
    super(size);
    this.bytes = Buffer.from(this.buffer);
  }

  /** Empties the writer for reuse; views taken from it before are overwritten. */
  reset(): void {
    this.index = 0;
    this.offset = 0;
  }

  override ensure(size: number): void {
    if (this.index + size <= this.bytes.length) return;
    const grown = new ArrayBuffer(Math.max(this.bytes.length * 2, this.index + size));
    new Uint8Array(grown).set(this.bytes.subarray(0, this.index));
    this.buffer = grown;
    this.view = new DataView(grown);
    this.bytes = Buffer.from(grown);
  }

  override appendUint8(value: number): void {
    if (this.index >= this.bytes.length) this.ensure(1);
    this.bytes[this.index++] = value;
    this.offset++;
  }

  override appendBytes(value: Uint8Array): void {
    this.ensure(value.length);
    this.bytes.set(value, this.index);
    this.index += value.length;
    this.offset += value.length;
  }

  /** A PLAIN byte array: the UTF-8 length, then the UTF-8 bytes. */
  appendString(value: string): void {
    this.ensure(4 + value.length * 3);
    const length = this.bytes.write(value, this.index + 4, 'utf8');
    this.view.setUint32(this.index, length, true);
    this.index += 4 + length;
    this.offset += 4 + length;
  }
}

// Scratch writers for one page at a time: what they hold is copied out before the next page.
const pageScratch = new FastByteWriter(1 << 20);
const levelScratch = new FastByteWriter(1 << 16);
const rleScratch = new FastByteWriter(1 << 16);

const isAbsent = (value: unknown) => value === null || value === undefined;

function writePlainValues(writer: FastByteWriter, values: readonly unknown[], type: ParquetType): void {
  if (type !== 'BYTE_ARRAY') {
    writePlain(writer, values as never, type, undefined);
    return;
  }
  for (const value of values) {
    if (typeof value === 'string') writer.appendString(value);
    else if (value instanceof Uint8Array) {
      writer.appendUint32(value.length);
      writer.appendBytes(value);
    } else throw new Error(`parquet expected Uint8Array value, got ${typeof value}`);
  }
}

/** Pages start at row boundaries once a page's values reach `pageSize` bytes (as the library counts them). */
function pageBoundaries(values: readonly unknown[], type: ParquetType, strings: boolean, pageSize: number, repetitionLevels: Uint8Array): { start: number; end: number }[] {
  if (strings) {
    // Strings are counted in UTF-8 bytes, at most three per UTF-16 unit: a column far below the
    // page size needs no exact count.
    let most = 0;
    for (const value of values) if (typeof value === 'string') most += value.length * 3;
    if (most < pageSize) return values.length ? [{ start: 0, end: values.length }] : [];
  }
  const sizeOf = (value: unknown) => (strings && typeof value === 'string' ? Buffer.byteLength(value, 'utf8') : estimateValueSize(value, type, undefined));
  const boundaries: { start: number; end: number }[] = [];
  let start = 0;
  let bytes = 0;
  for (let i = 0; i < values.length; i++) {
    const size = sizeOf(values[i]);
    bytes += size;
    if (bytes >= pageSize && i > start && (!repetitionLevels.length || repetitionLevels[i] === 0)) {
      boundaries.push({ start, end: i });
      start = i;
      bytes = size;
    }
  }
  if (start < values.length) boundaries.push({ start, end: values.length });
  return boundaries;
}

function writeDictionaryPage(writer: FastByteWriter, dictionary: readonly unknown[], type: ParquetType): number {
  const page = pageScratch;
  page.reset();
  writePlainValues(page, dictionary, type);
  const raw = page.getBytes();
  const compressed = snappyCompress(raw);
  const headerStart = writer.offset;
  writePageHeader(writer, {
    type: 'DICTIONARY_PAGE',
    uncompressed_page_size: raw.byteLength,
    compressed_page_size: compressed.byteLength,
    dictionary_page_header: { num_values: dictionary.length, encoding: 'PLAIN' },
  });
  const headerSize = writer.offset - headerStart;
  writer.appendBytes(compressed);
  return headerSize + raw.byteLength;
}

interface Page {
  values: readonly unknown[];
  definitionLevels: Uint8Array;
  repetitionLevels: Uint8Array;
}

function writeDataPage(writer: FastByteWriter, leaf: LeafColumn, type: ParquetType, encoding: Encoding, maxDefinitionLevel: number, page: Page): number {
  const { values, definitionLevels, repetitionLevels } = page;
  const levels = levelScratch;
  levels.reset();
  const num_values = definitionLevels.length || values.length;
  let num_rows = values.length;
  if (repetitionLevels.length) {
    num_rows = 0;
    for (const level of repetitionLevels) if (level === 0) num_rows++;
  }
  let num_nulls = 0;
  for (const level of definitionLevels) if (level < maxDefinitionLevel) num_nulls++;
  const maxRepetitionLevel = getMaxRepetitionLevel(leaf.schemaPath as SchemaElement[]);
  const repetition_levels_byte_length = maxRepetitionLevel ? writeRleBitPackedHybrid(levels, repetitionLevels, Math.ceil(Math.log2(maxRepetitionLevel + 1))) : 0;
  const definition_levels_byte_length = maxDefinitionLevel ? writeRleBitPackedHybrid(levels, definitionLevels, Math.ceil(Math.log2(maxDefinitionLevel + 1))) : 0;

  const present = num_nulls ? values.filter((v) => !isAbsent(v)) : values;
  const data = pageScratch;
  data.reset();
  if (encoding === 'PLAIN') writePlainValues(data, present, type);
  else if (encoding === 'RLE') {
    const rle = rleScratch;
    rle.reset();
    writeRleBitPackedHybrid(rle, present as never, 1);
    data.appendUint32(rle.offset);
    data.appendBytes(rle.getBytes());
  } else {
    let maxValue = 0;
    for (const v of present as number[]) if (v > maxValue) maxValue = v;
    const bitWidth = Math.ceil(Math.log2(maxValue + 1));
    data.appendUint8(bitWidth);
    writeRleBitPackedHybrid(data, present as number[], bitWidth);
  }
  const compressed = snappyCompress(data.getBytes());
  const headerStart = writer.offset;
  writePageHeader(writer, {
    type: 'DATA_PAGE_V2',
    uncompressed_page_size: levels.offset + data.offset,
    compressed_page_size: levels.offset + compressed.length,
    data_page_header_v2: { num_values, num_nulls, num_rows, encoding, definition_levels_byte_length, repetition_levels_byte_length, is_compressed: true },
  });
  const headerSize = writer.offset - headerStart;
  writer.appendBytes(levels.getBytes());
  writer.appendBytes(compressed);
  return headerSize + levels.offset + data.offset;
}

/** Writes one leaf's column chunk at the writer's offset; returns its metadata and offset index. */
export function writeLeafColumn(writer: FastByteWriter, leaf: LeafColumn, data: LeafData, pageSize: number): PageIndexes {
  const element = leaf.schemaPath.at(-1)! as SchemaElement;
  const type = element.type;
  if (type !== 'BYTE_ARRAY' && type !== 'INT32' && type !== 'DOUBLE' && type !== 'BOOLEAN') throw new Error(`column ${leaf.name}: type ${String(type)} is not one a release writes`);
  const { values, definitionLevels, repetitionLevels, maxDefinitionLevel } = data;
  const offsetStart = writer.offset;
  let uncompressedSize = 0;
  const encodings: Encoding[] = [];
  const { dictionary, indexes } = useDictionary(values as never, type, undefined, undefined, undefined, maxDefinitionLevel === 0);
  let encoding: Encoding;
  let writeValues: readonly unknown[];
  let dictionary_page_offset: bigint | undefined;
  if (dictionary && indexes) {
    writeValues = indexes;
    encoding = 'RLE_DICTIONARY';
    dictionary_page_offset = BigInt(writer.offset);
    uncompressedSize += writeDictionaryPage(writer, dictionary, type);
    encodings.push('PLAIN');
  } else {
    writeValues = values;
    encoding = type === 'BOOLEAN' && values.length > 16 ? 'RLE' : 'PLAIN';
  }
  encodings.push(encoding);
  const strings = !dictionary && element.converted_type === 'UTF8';
  const boundaries = pageBoundaries(writeValues, dictionary ? 'INT32' : type, strings, pageSize, repetitionLevels);
  const offsetIndex: OffsetIndex | undefined = boundaries.length > 1 ? { page_locations: [] } : undefined;
  const data_page_offset = BigInt(writer.offset);
  let firstRow = 0n;
  let previousStart = 0;
  for (const { start, end } of boundaries) {
    const pageOffset = writer.offset;
    uncompressedSize += writeDataPage(writer, leaf, dictionary ? 'INT32' : type, encoding, maxDefinitionLevel, {
      values: writeValues.slice(start, end),
      definitionLevels: definitionLevels.slice(start, end),
      repetitionLevels: repetitionLevels.slice(start, end),
    });
    if (offsetIndex) {
      if (repetitionLevels.length) {
        for (let i = previousStart + 1; i <= start; i++) if (repetitionLevels[i] === 0) firstRow++;
      } else firstRow = BigInt(start);
      offsetIndex.page_locations.push({ offset: BigInt(pageOffset), compressed_page_size: writer.offset - pageOffset, first_row_index: firstRow });
    }
    previousStart = start;
  }
  const chunk: ColumnChunk = {
    meta_data: {
      type,
      encodings,
      path_in_schema: leaf.schemaPath.slice(1).map((s) => s.name),
      codec: 'SNAPPY',
      num_values: BigInt(values.length),
      total_compressed_size: BigInt(writer.offset - offsetStart),
      total_uncompressed_size: BigInt(uncompressedSize),
      data_page_offset,
      dictionary_page_offset,
    },
    file_offset: BigInt(offsetStart),
  };
  return { chunk, offsetIndex };
}
