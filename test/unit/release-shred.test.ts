import { ByteWriter, ParquetWriter } from 'hyparquet-writer';
import { describe, expect, it } from 'vitest';
import { encodeShredded, ParquetAssembler, type FileSink } from '../../electron/services/release/files';
import { parquetSchema, RELEASE_COLUMNS, type Field, type ReleaseRow } from '../../shared/release/schema';
import { Shredder } from '../../shared/release/shred';
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

describe('shredding release rows into Parquet columns', () => {
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
    const [id, n, a, tags] = shredder.shred([
      { id: 'x', n: null, items: [] },
      { id: 'y', n: 3, items: [{ a: 'p', tags: ['t1', 't2'] }, { a: null, tags: [] }] },
    ]);
    expect(id).toEqual({ values: ['x', 'y'], definitionLevels: [], repetitionLevels: [], maxDefinitionLevel: 0 });
    expect(n).toEqual({ values: [null, 3], definitionLevels: [0, 1], repetitionLevels: [], maxDefinitionLevel: 1 });
    expect(a).toEqual({ values: [undefined, 'p', null], definitionLevels: [0, 2, 1], repetitionLevels: [0, 0, 1], maxDefinitionLevel: 2 });
    expect(tags).toEqual({ values: [undefined, 't1', 't2', undefined], definitionLevels: [0, 2, 2, 1], repetitionLevels: [0, 0, 2, 1], maxDefinitionLevel: 2 });
    expect(() => shredder.shred([{ id: null, n: 1, items: [] }])).toThrow(/required value id/);
  });
});
