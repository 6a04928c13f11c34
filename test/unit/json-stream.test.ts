import { afterAll, describe, expect, it } from 'vitest';
import { firstInvalidUtf8, parseRecord } from '../../electron/services/import/json-record';
import { FileStructureError, type RawRecord } from '../../electron/services/import/json-scanner';
import { readRecords } from '../../electron/services/import/json-stream';
import { tempDir, writeFile } from '../helpers/db';

const tmp = tempDir('awb-reader-');
afterAll(() => tmp.cleanup());

let n = 0;
async function read(content: string | Buffer, options: { chunkBytes?: number; maxRecordBytes?: number; splits?: string[]; wrapper?: string } = {}) {
  const file = writeFile(tmp.file(`f${n++}.json`), content);
  const records: RawRecord[] = [];
  const iterator = readRecords(file, {
    maxRecordBytes: options.maxRecordBytes ?? 1 << 20,
    chunkBytes: options.chunkBytes ?? 3,
    ...(options.splits ? { splits: options.splits } : {}),
    ...(options.wrapper ? { wrapper: options.wrapper } : {}),
  });
  for await (const record of iterator) records.push(record);
  return records;
}

const values = (records: RawRecord[]) => records.map((r) => (r.bytes ? JSON.parse(r.bytes.toString('utf8')) : null));

describe('readRecords', () => {
  it('splits a JSON array whose strings contain brackets, commas and escaped quotes, across tiny chunks', async () => {
    const data = [{ a: 'x]}', b: ['[', '{'] }, { q: 'say \\"hi\\", ok?', n: -1.5e3 }, 'plain', 42, null, { u: 'é ☃ 𝄞' }];
    for (const chunkBytes of [1, 2, 3, 7, 1024]) {
      const records = await read(JSON.stringify(data, null, 2), { chunkBytes });
      expect(values(records)).toEqual(data);
    }
  });

  it('names each element by index and starting line', async () => {
    const records = await read('[\n  {"id": 1},\n\n  {"id": 2}\n]');
    expect(records.map((r) => r.location)).toEqual(['line 2, element [0]', 'line 4, element [1]']);
  });

  it('reads JSON Lines with CRLF line ends, a byte-order mark and blank lines', async () => {
    const content = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"id":"a"}\r\n\r\n{"id":"b"}\r\n')]);
    const records = await read(content);
    expect(values(records)).toEqual([{ id: 'a' }, { id: 'b' }]);
    expect(records.map((r) => r.line)).toEqual([1, 3]);
  });

  it('reads a byte-order mark before a JSON array', async () => {
    const records = await read(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('[{"id":"a"}]')]));
    expect(values(records)).toEqual([{ id: 'a' }]);
  });

  it('reads the wrapped layout (SQuAD): the records under one key, scalar and nested siblings passed over', async () => {
    const content = JSON.stringify({ version: 'v2.0', meta: { note: 'x', list: [1, { k: 'v' }] }, data: [{ title: 'A]', n: 1 }, { title: '{B', n: 2 }], after: true }, null, 1);
    for (const chunkBytes of [1, 3, 1024]) {
      const records = await read(content, { wrapper: 'data', chunkBytes });
      expect(values(records)).toEqual([{ title: 'A]', n: 1 }, { title: '{B', n: 2 }]);
      expect(records.map((r) => r.location.replace(/^line \d+, /, ''))).toEqual(['data[0]', 'data[1]']);
    }
  });

  it('refuses a wrapped file without its record array, saying which key it wanted', async () => {
    await expect(read('{"version": "v2.0", "articles": [{"a": 1}]}', { wrapper: 'data' })).rejects.toThrow(/no records under "data"/);
    await expect(read('[{"a": 1}]', { wrapper: 'data' })).resolves.toHaveLength(1);
  });

  it('reads the splits layout with split and key', async () => {
    const content = JSON.stringify({ train: { t1: { q: 'a' } }, dev: { 'd"1': { q: 'b' }, d2: { q: 'c' } } }, null, 1);
    const records = await read(content, { splits: ['train', 'dev'] });
    expect(values(records)).toEqual([{ q: 'a' }, { q: 'b' }, { q: 'c' }]);
    expect(records.map((r) => [r.split, r.key])).toEqual([['train', 't1'], ['dev', 'd"1'], ['dev', 'd2']]);
    expect(records[1]!.location).toMatch(/dev\["d\\"1"\]/);
  });

  it('treats an object that is not a splits file as JSON Lines', async () => {
    const records = await read('{"train": 1}\n', { splits: ['train'] });
    expect(values(records)).toEqual([{ train: 1 }]);
  });

  it('reads objects pretty-printed one after another (as jq prints them), across tiny chunks', async () => {
    const data = [{ id: 'a', text: 'x}{' }, { id: 'b', nested: { list: [1, '{'] } }, { id: 'c' }];
    const content = data.map((d) => JSON.stringify(d, null, 2)).join('\n');
    for (const chunkBytes of [1, 3, 1024]) expect(values(await read(content, { chunkBytes }))).toEqual(data);
    const records = await read(`${JSON.stringify(data[0], null, 2)}\n\n${JSON.stringify(data[1], null, 2)}\n`);
    expect(records.map((r) => r.location)).toEqual(['line 1, record [0]', 'line 6, record [1]']);
    // One pretty-printed object is one record.
    expect(values(await read(JSON.stringify({ id: 'only', n: 1 }, null, 2)))).toEqual([{ id: 'only', n: 1 }]);
  });

  it('keeps a record with a broken value to itself in a pretty-printed stream, and says where the stream breaks', async () => {
    const records = await read('{\n  "id": "a",\n  "n": 01\n}\n{\n  "id": "b"\n}\n');
    expect(records).toHaveLength(2);
    const broken = parseRecord(records[0]!, 1 << 20);
    expect(broken.ok).toBe(false);
    expect(parseRecord(records[1]!, 1 << 20).ok).toBe(true);
    const failure = (content: string) => read(content).then(() => null, (error: FileStructureError) => [error.line, error.message]);
    expect(await failure('{\n  "id": "a"\n},\n{\n  "id": "b"\n}')).toEqual([3, expect.stringMatching(/unexpected , between records/)]);
    expect(await failure('{\n  "id": "a"\n}\n[1]')).toEqual([4, expect.stringMatching(/expected a JSON object/)]);
    expect(await failure('{\n  "id": "a"\n}\n{\n  "id": "b"')).toEqual([5, expect.stringMatching(/ends inside record \[1\] \(which starts on line 4\).*truncated/)]);
  });

  it('reports a truncated array with the line it ends on', async () => {
    await expect(read('[\n{"id": 1},\n{"id": 2')).rejects.toThrow(FileStructureError);
    await expect(read('[\n{"id": 1},\n{"id": 2')).rejects.toThrow(/ends inside record \[1\].*line 3.*truncated/);
  });

  it('reports content after the array', async () => {
    await expect(read('[{"id": 1}]\n{"id": 2}')).rejects.toThrow(/after the end of the top-level JSON value/);
  });

  it('reports an empty file and a whitespace-only file', async () => {
    await expect(read('')).rejects.toThrow(/the file is empty/);
    await expect(read('  \n\n ')).rejects.toThrow(/only whitespace/);
  });

  it('does not keep a record over the size limit, and goes on', async () => {
    const big = JSON.stringify({ text: 'x'.repeat(5000) });
    const records = await read(`[${big}, {"id": 2}]`, { maxRecordBytes: 1000, chunkBytes: 256 });
    expect(records[0]!.bytes).toBeNull();
    expect(records[0]!.size).toBeGreaterThan(5000);
    expect(values(records.slice(1))).toEqual([{ id: 2 }]);
    const parsed = parseRecord(records[0]!, 1000);
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.message).toMatch(/over the limit of 1 KiB per record/);
  });
});

describe('parseRecord', () => {
  const raw = (text: string | Buffer, line = 10): RawRecord => {
    const bytes = Buffer.isBuffer(text) ? text : Buffer.from(text);
    return { index: 0, line, location: `line ${line}`, bytes, size: bytes.length };
  };

  it('parses valid JSON', () => {
    expect(parseRecord(raw('{"a": [1, 2]}'), 100)).toEqual({ ok: true, value: { a: [1, 2] } });
  });

  it('names the line of a syntax error inside a multi-line record', () => {
    const result = parseRecord(raw('{\n"a": 1,\n"b": }'), 1000);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.line).toBe(12);
    expect(!result.ok && result.message).toMatch(/^invalid JSON/);
  });

  it('rejects bytes that are not UTF-8, naming the line', () => {
    const bytes = Buffer.concat([Buffer.from('{"a":\n"caf'), Buffer.from([0xe9]), Buffer.from('"}')]);
    const result = parseRecord(raw(bytes, 5), 1000);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.line).toBe(6);
    expect(!result.ok && result.message).toMatch(/not valid UTF-8/);
  });

  it('finds the first invalid UTF-8 byte (overlong forms and surrogates too)', () => {
    expect(firstInvalidUtf8(Buffer.from('ok é'))).toBe(5);
    expect(firstInvalidUtf8(Buffer.from([0x61, 0xc0, 0x80]))).toBe(1);
    expect(firstInvalidUtf8(Buffer.from([0x61, 0xed, 0xa0, 0x80]))).toBe(1);
    expect(firstInvalidUtf8(Buffer.from([0xe2, 0x82]))).toBe(0);
  });
});

describe('jsonSyntaxError', () => {
  it('accepts what JSON.parse accepts', async () => {
    const { jsonSyntaxError } = await import('../../electron/services/import/json-record');
    for (const text of ['{}', '[]', '{"a":[1,-2.5e3,true,false,null,"x\\u00e9\\n"]}', ' "s" ', '0']) expect(jsonSyntaxError(text)).toBeNull();
  });

  it('points at the first mistake', async () => {
    const { jsonSyntaxError } = await import('../../electron/services/import/json-record');
    expect(jsonSyntaxError('{"a": 1,}')).toEqual({ offset: 8, message: "expected a property name in double quotes, found \"}\"" });
    expect(jsonSyntaxError('{"a" 1}')?.message).toMatch(/expected ':'/);
    expect(jsonSyntaxError('[1 2]')?.offset).toBe(3);
    expect(jsonSyntaxError('{"a": "x\ny"}')?.message).toMatch(/unescaped control character/);
    expect(jsonSyntaxError('{"a": tru}')?.offset).toBe(6);
    expect(jsonSyntaxError("{'a': 1}")?.message).toMatch(/double quotes/);
    expect(jsonSyntaxError('{"a": 1} x')?.message).toMatch(/after the value/);
  });
});
