import { ByteWriter, ParquetWriter } from 'hyparquet-writer';
import type { SchemaElement } from 'hyparquet';
import { writeColumn } from 'hyparquet-writer/src/column.js';
import { snappyCompress as librarySnappy } from 'hyparquet-writer/src/snappy.js';
import type { PageIndexes } from 'hyparquet-writer/src/types.js';
import { describe, expect, it } from 'vitest';
import { encodeShredded, ParquetAssembler, type FileSink } from '../../electron/services/release/files';
import { parquetSchema, RELEASE_COLUMNS, type Field, type ReleaseRow } from '../../shared/release/schema';
import { Shredder, type LeafData } from '../../shared/release/shred';
import { snappyCompress } from '../../electron/services/release/snappy';
import { rng, words } from '../helpers/synthetic';

/** Rows of every shape the schema allows: nulls where optional, empty and long lists, nested nulls. */
function randomRows(count: number, seed: number): ReleaseRow[] {
  const random = rng(seed);
  const scalar = (type: string) => (type === 'string' ? words(random, 1 + Math.floor(random() * 4)) : type === 'int32' ? Math.floor(random() * 1000) - 10 : type === 'float64' ? random() : random() < 0.5);
  const valueOf = (field: Field): unknown => {
    if (field.optional && random() < 0.3) return null;
    if ('type' in field) return scalar(field.type);
    if ('struct' in field) return Object.fromEntries(field.struct.map((child) => [child.name, valueOf(child)]));
    const length = [0, 1, 2, 3, 5][Math.floor(random() * 5)]!;
    const list = field.list;
    return Array.from({ length }, () => (typeof list === 'string' ? scalar(list) : Object.fromEntries(list.map((child) => [child.name, valueOf(child)]))));
  };
  return Array.from({ length: count }, () => Object.fromEntries(RELEASE_COLUMNS.map((column) => [column.name, valueOf(column)])));
}

function memorySink(): { open: (file: string) => FileSink; bytes: () => Buffer } {
  const parts: Buffer[] = [];
  return { open: () => ({ write: (bytes) => void parts.push(Buffer.from(bytes)), close: () => undefined }), bytes: () => Buffer.concat(parts) };
}

/** A row group as hyparquet-writer's own column writer encodes it, with the release's settings. */
function libraryGroup(columnData: LeafData[], shredder: Shredder): { bytes: Uint8Array; indexes: PageIndexes[] } {
  const writer = new ByteWriter();
  const indexes = columnData.map((pageData, i) => {
    const leaf = shredder.leaves[i]!;
    const schemaPath = leaf.schemaPath as SchemaElement[];
    const column = { columnName: leaf.name, element: schemaPath.at(-1)!, schemaPath, codec: 'SNAPPY' as const, compressors: { SNAPPY: librarySnappy }, stats: false, pageSize: 1 << 20, columnIndex: false, offsetIndex: true };
    // The library as it is used elsewhere: levels as plain arrays.
    return writeColumn({ writer, column, pageData: { ...pageData, definitionLevels: Array.from(pageData.definitionLevels), repetitionLevels: Array.from(pageData.repetitionLevels) } });
  });
  return { bytes: writer.getBytes(), indexes };
}

/** Text that is long, and whose UTF-8 is up to three and four bytes a character. */
function unicodeText(random: () => number, length: number): string {
  const pieces = ['é', 'ß', '中文', '日本語', '😀', 'plain ', 'Ω', '\ud800'];
  let text = '';
  while (text.length < length) text += pieces[Math.floor(random() * pieces.length)];
  return text;
}

describe('shredding release rows into Parquet columns', () => {
  it('encodes every column chunk as hyparquet-writer does: non-ASCII and unpaired surrogates, pages split by UTF-8 size, dictionaries of one value, booleans, doubles', () => {
    const columns: Field[] = [
      { name: 'id', type: 'string', doc: '' },
      { name: 'same', type: 'string', doc: '' },
      { name: 'long', type: 'string', optional: true, doc: '' },
      { name: 'flag', type: 'bool', doc: '' },
      { name: 'maybe', type: 'bool', optional: true, doc: '' },
      { name: 'score', type: 'float64', optional: true, doc: '' },
      { name: 'never', type: 'int32', optional: true, doc: '' },
      { name: 'items', list: [{ name: 'text', type: 'string', doc: '' }, { name: 'ranks', list: 'int32', doc: '' }], doc: '' },
    ];
    const shredder = new Shredder(columns);
    const random = rng(11);
    for (const [count, longLength] of [[300, 4000], [40, 30], [7, 0]] as const) {
      const rows = Array.from({ length: count }, (_, i) => ({
        id: `${i}-${unicodeText(random, 3)}`,
        same: 'même valeur',
        long: random() < 0.2 ? null : unicodeText(random, longLength),
        flag: random() < 0.9,
        maybe: random() < 0.4 ? null : random() < 0.5,
        score: random() < 0.3 ? null : random() * 100 - 50,
        never: null,
        items: Array.from({ length: Math.floor(random() * 4) }, () => ({ text: words(random, 2), ranks: Array.from({ length: Math.floor(random() * 3) }, () => Math.floor(random() * 9)) })),
      }));
      const data = shredder.shred(rows);
      const ours = encodeShredded(data, shredder, rows.length);
      const library = libraryGroup(shredder.shred(rows), shredder);
      expect(Buffer.from(ours.bytes).equals(Buffer.from(library.bytes))).toBe(true);
      expect(ours.indexes).toEqual(library.indexes.map(({ chunk, offsetIndex }) => ({ chunk, offsetIndex })));
      if (longLength > 1000) {
        // Under 1 MiB counted in characters, over it in UTF-8 bytes: pages split by bytes.
        expect(rows.reduce((sum, row) => sum + (row.long?.length ?? 0), 0)).toBeLessThan(1 << 20);
        expect(ours.indexes[2]!.offsetIndex?.page_locations.length).toBeGreaterThanOrEqual(2);
      }
    }
  });

  it('compresses with Snappy to the same bytes as hyparquet-writer, from empty input to long repeats', () => {
    const random = rng(3);
    const inputs = [new Uint8Array(0), new Uint8Array(14), Buffer.from('abcabcabcabcabcabc'), Buffer.from(unicodeText(random, 200_000)), Buffer.from(words(random, 50_000))];
    const noise = new Uint8Array(100_000);
    for (let i = 0; i < noise.length; i++) noise[i] = Math.floor(random() * 256);
    inputs.push(noise, Buffer.alloc(70_000, 7));
    for (const input of inputs) expect(Buffer.from(snappyCompress(input)).equals(Buffer.from(librarySnappy(input)))).toBe(true);
    // Each result is its own: compressing more (into the same scratch array) leaves earlier ones as they were.
    const results = inputs.map((input) => snappyCompress(input));
    results.forEach((result, i) => expect(Buffer.from(result).equals(Buffer.from(librarySnappy(inputs[i]!)))).toBe(true));
  });

  it('writes the same bytes as hyparquet-writer’s own writer, from row groups encoded apart, for rows of every shape', () => {
    const rows = randomRows(700, 5);
    const kv = [{ key: 'awb.format', value: 'awb-release/1' }];
    const reference = new ByteWriter();
    const writer = new ParquetWriter({ writer: reference, schema: parquetSchema() as ConstructorParameters<typeof ParquetWriter>[0]['schema'], statistics: false, kvMetadata: kv, createdBy: 'Ambiguity Workbench (hyparquet-writer)' });
    writer.write({ columnData: RELEASE_COLUMNS.map((c) => ({ name: c.name, data: rows.map((r) => r[c.name]) })), rowGroupSize: 250 });
    writer.finish();

    const sink = memorySink();
    const file = new ParquetAssembler('x.parquet', '/tmp', sink.open, kv);
    const shredder = new Shredder(RELEASE_COLUMNS);
    // Groups encoded on their own (as workers do), placed in the file afterwards.
    const groups = [0, 250, 500].map((at) => encodeShredded(shredder.shred(rows.slice(at, at + 250)), shredder, rows.slice(at, at + 250).length));
    for (const group of groups) file.append(group);
    file.finish();
    const ours = sink.bytes();
    expect(ours.length).toBeGreaterThan(10_000);
    expect(ours.equals(Buffer.from(reference.getBuffer()))).toBe(true);
  });

  it('gives every leaf its levels: absent lists, empty lists, nulls inside structs', () => {
    const shredder = new Shredder([
      { name: 'id', type: 'string', doc: '' },
      { name: 'n', type: 'int32', optional: true, doc: '' },
      { name: 'items', list: [{ name: 'a', type: 'string', optional: true, doc: '' }, { name: 'tags', list: 'string', doc: '' }], doc: '' },
    ]);
    expect(shredder.leaves.map((l) => [l.name, l.maxDefinitionLevel])).toEqual([
      ['id', 0],
      ['n', 1],
      ['items.list.element.a', 2],
      ['items.list.element.tags.list.element', 2],
    ]);
    const plain = (data: LeafData) => ({ ...data, definitionLevels: [...data.definitionLevels], repetitionLevels: [...data.repetitionLevels] });
    const [id, n, a, tags] = shredder.shred([
      { id: 'x', n: null, items: [] },
      { id: 'y', n: 3, items: [{ a: 'p', tags: ['t1', 't2'] }, { a: null, tags: [] }] },
    ]);
    expect(plain(id!)).toEqual({ values: ['x', 'y'], definitionLevels: [], repetitionLevels: [], maxDefinitionLevel: 0 });
    expect(plain(n!)).toEqual({ values: [null, 3], definitionLevels: [0, 1], repetitionLevels: [], maxDefinitionLevel: 1 });
    expect(plain(a!)).toEqual({ values: [undefined, 'p', null], definitionLevels: [0, 2, 1], repetitionLevels: [0, 0, 1], maxDefinitionLevel: 2 });
    expect(plain(tags!)).toEqual({ values: [undefined, 't1', 't2', undefined], definitionLevels: [0, 2, 2, 1], repetitionLevels: [0, 0, 2, 1], maxDefinitionLevel: 2 });
    expect(() => shredder.shred([{ id: null, n: 1, items: [] }])).toThrow(/required value id/);
  });
});
