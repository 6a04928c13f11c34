import fs from 'node:fs';
import { isUtf8 } from 'node:buffer';

/**
 * Streams the records of a JSON file without holding the file in memory. Four layouts:
 *
 * - `jsonl`: one JSON value per line (blank lines skipped, CRLF accepted);
 * - `stream`: JSON objects one after another, each over several lines, as `jq` or an indenting
 *   serialiser prints them (told from JSON Lines by a first line that is `{` alone);
 * - `array`: one top-level JSON array whose elements are the records;
 * - `splits`: one top-level object of objects, `{"train": {"id": record, ...}, "dev": {...}}`
 *   (the official ASQA file).
 *
 * Records are cut out of the byte stream by a small structural scanner (brackets and strings
 * only) and parsed one at a time with JSON.parse, so memory stays at one record plus one read
 * chunk, and every problem can be reported with its line. A record larger than
 * `maxRecordBytes` is not kept: it is reported as too large and the scan goes on.
 */

export type Layout = 'jsonl' | 'stream' | 'array' | 'splits';

export interface RawRecord {
  /** 0-based ordinal of the record in the file. */
  index: number;
  /** 1-based line where the record starts. */
  line: number;
  /** Human-readable place: `line 12`, `line 40, element [3]`, `line 7, dev["123"]`. */
  location: string;
  /** For the `splits` layout: the split name and the record's key. */
  split?: string;
  key?: string;
  /** The record's bytes; null when it was larger than the limit. */
  bytes: Buffer | null;
  size: number;
}

export class FileStructureError extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(message);
    this.name = 'FileStructureError';
  }
}

export interface ReadOptions {
  maxRecordBytes: number;
  /** Split names that mark a `splits` file (e.g. `train`, `dev`); omit to disallow the layout. */
  splits?: readonly string[];
  signal?: AbortSignal;
  onBytes?: (bytesRead: number) => void;
  chunkBytes?: number;
}

export const DEFAULT_MAX_RECORD_BYTES = 16 * 1024 * 1024;

const LF = 10;
const CR = 13;
const SPACE = 32;
const TAB = 9;
const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const COLON = 58;
const LBRACE = 123;
const RBRACE = 125;
const LBRACKET = 91;
const RBRACKET = 93;

interface Sink {
  push(chunk: Buffer): void;
  end(): void;
  readonly records: RawRecord[];
}

function formatBytes(n: number): string {
  return n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(1)} MiB` : `${Math.ceil(n / 1024)} KiB`;
}

/** Splits JSON Lines. */
class LineSplitter implements Sink {
  readonly records: RawRecord[] = [];
  private parts: Buffer[] = [];
  private size = 0;
  private oversized = false;
  private line = 1;
  private index = 0;

  constructor(private readonly maxBytes: number) {}

  push(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(LF, start);
      const end = newline === -1 ? chunk.length : newline;
      this.append(chunk.subarray(start, end));
      if (newline === -1) break;
      this.finishLine();
      start = newline + 1;
    }
  }

  end(): void {
    this.finishLine();
  }

  private append(part: Buffer): void {
    this.size += part.length;
    if (this.oversized) return;
    if (this.size > this.maxBytes) {
      this.oversized = true;
      this.parts = [];
      return;
    }
    if (part.length > 0) this.parts.push(Buffer.from(part));
  }

  private finishLine(): void {
    const line = this.line++;
    let bytes: Buffer | null = this.oversized ? null : Buffer.concat(this.parts);
    const size = this.size;
    this.parts = [];
    this.size = 0;
    this.oversized = false;
    if (bytes !== null) {
      if (bytes.length > 0 && bytes[bytes.length - 1] === CR) bytes = bytes.subarray(0, bytes.length - 1);
      if (isBlank(bytes)) return;
    }
    this.records.push({ index: this.index++, line, location: `line ${line}`, bytes, size });
  }
}

function isBlank(bytes: Buffer): boolean {
  for (const b of bytes) if (b !== SPACE && b !== TAB && b !== CR && b !== LF) return false;
  return true;
}

interface OpenElement {
  kind: 'container' | 'string' | 'scalar';
  line: number;
  parts: Buffer[];
  size: number;
  oversized: boolean;
  split?: string;
  key?: string;
}

/**
 * Cuts the values found at `targetDepth` (1 for an array's elements, 2 for the records of a
 * splits object) out of a JSON byte stream. It tracks only what it must: the container stack,
 * whether an object expects a key, and whether it is inside a string.
 */
class StructureSplitter implements Sink {
  readonly records: RawRecord[] = [];
  private readonly stack: number[] = [];
  private readonly expectKey: boolean[] = [];
  private readonly keys: string[] = [];
  private inString = false;
  private escaped = false;
  private line = 1;
  private index = 0;
  private closed = false;
  private element: OpenElement | null = null;
  private keyParts: Buffer[] | null = null;

  constructor(
    private readonly targetDepth: number,
    private readonly maxBytes: number,
  ) {}

  push(chunk: Buffer): void {
    let elementStart = this.element ? 0 : -1;
    let keyStart = this.keyParts ? 0 : -1;
    const n = chunk.length;
    const target = this.targetDepth;
    for (let i = 0; i < n; i++) {
      const b = chunk[i]!;
      if (b === LF) this.line++;
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (b === BACKSLASH) this.escaped = true;
        else if (b === QUOTE) {
          this.inString = false;
          if (this.keyParts) {
            this.keyParts.push(chunk.subarray(keyStart, i + 1));
            this.finishKey();
            keyStart = -1;
          } else if (this.element?.kind === 'string' && this.stack.length === target) {
            this.finishElement(chunk, elementStart, i + 1);
            elementStart = -1;
          }
        }
        continue;
      }
      switch (b) {
        case SPACE:
        case TAB:
        case CR:
        case LF:
          if (this.element?.kind === 'scalar' && this.stack.length === target) {
            this.finishElement(chunk, elementStart, i);
            elementStart = -1;
          }
          break;
        case QUOTE: {
          this.inString = true;
          const depth = this.stack.length;
          if (depth === 0 && target === 0) throw new FileStructureError('unexpected string between records: each record must be a JSON object', this.line);
          if (depth <= target && depth > 0 && this.expectKey[depth - 1] && this.stack[depth - 1] === LBRACE) {
            this.keyParts = [];
            keyStart = i;
          } else if (depth === target && !this.element) {
            this.startElement('string');
            elementStart = i;
          } else if (depth < target) {
            this.unexpected('a string');
          }
          break;
        }
        case LBRACE:
        case LBRACKET: {
          const depth = this.stack.length;
          if (target === 0) {
            if (depth === 0) {
              if (b !== LBRACE) throw new FileStructureError('expected a JSON object (this file holds objects one after another)', this.line);
              this.startElement('container');
              elementStart = i;
            }
          } else if (depth === 0) {
            if (this.closed) this.trailing();
            if (b !== (target === 1 ? LBRACKET : LBRACE)) {
              throw new FileStructureError(
                target === 1
                  ? 'expected the file to start with [ (a JSON array of records)'
                  : 'expected the file to start with { (an object of splits)',
                this.line,
              );
            }
          } else if (depth === target && !this.element) {
            this.startElement('container');
            elementStart = i;
          } else if (depth < target && b !== LBRACE) {
            this.unexpected('an array');
          }
          this.stack.push(b);
          this.expectKey.push(b === LBRACE);
          break;
        }
        case RBRACE:
        case RBRACKET: {
          if (this.element?.kind === 'scalar' && this.stack.length === target) {
            this.finishElement(chunk, elementStart, i);
            elementStart = -1;
          }
          if (this.stack.length === 0) throw new FileStructureError(`unexpected ${String.fromCharCode(b)}`, this.line);
          this.stack.pop();
          this.expectKey.pop();
          if (this.stack.length === target && this.element?.kind === 'container') {
            this.finishElement(chunk, elementStart, i + 1);
            elementStart = -1;
          }
          if (this.stack.length === 0) this.closed = true;
          break;
        }
        case COMMA:
          if (this.stack.length === 0 && target === 0) throw new FileStructureError('unexpected , between records: records follow one another without commas', this.line);
          if (this.element?.kind === 'scalar' && this.stack.length === target) {
            this.finishElement(chunk, elementStart, i);
            elementStart = -1;
          }
          if (this.stack.length > 0) this.expectKey[this.stack.length - 1] = this.stack[this.stack.length - 1] === LBRACE;
          break;
        case COLON:
          if (this.stack.length > 0) this.expectKey[this.stack.length - 1] = false;
          break;
        default: {
          const depth = this.stack.length;
          if (depth === 0 && target === 0) throw new FileStructureError(`unexpected ${JSON.stringify(String.fromCharCode(b))} between records: each record must be a JSON object`, this.line);
          if (depth === 0) {
            if (this.closed) this.trailing();
            throw new FileStructureError(
              `unexpected ${JSON.stringify(String.fromCharCode(b))} where the file should start with ${target === 1 ? '[' : '{'}`,
              this.line,
            );
          }
          if (depth === target && !this.element) {
            this.startElement('scalar');
            elementStart = i;
          } else if (depth < target) {
            this.unexpected('a plain value');
          }
        }
      }
    }
    if (this.element && elementStart !== -1) this.appendPart(chunk.subarray(elementStart));
    if (this.keyParts && keyStart !== -1) this.keyParts.push(Buffer.from(chunk.subarray(keyStart)));
  }

  end(): void {
    if (this.element?.kind === 'scalar') this.finishElement(Buffer.alloc(0), 0, 0);
    if (this.inString || this.stack.length > 0 || this.element) {
      const where = this.element ? `inside record ${this.describe(this.element)} (which starts on line ${this.element.line})` : '';
      throw new FileStructureError(`the file ends ${where || 'before its closing bracket'}: it looks truncated`, this.line);
    }
    if (!this.closed && this.index === 0) throw new FileStructureError('the file holds no JSON value', this.line);
  }

  private describe(element: OpenElement): string {
    return element.split !== undefined ? `${element.split}[${JSON.stringify(element.key)}]` : `[${this.index}]`;
  }

  private unexpected(what: string): never {
    throw new FileStructureError(
      `found ${what} where a split object was expected (the layout is {"split": {"id": record}})`,
      this.line,
    );
  }

  private trailing(): never {
    throw new FileStructureError('unexpected content after the end of the top-level JSON value', this.line);
  }

  private finishKey(): void {
    const raw = Buffer.concat(this.keyParts ?? []).toString('utf8');
    this.keyParts = null;
    let key: string;
    try {
      key = JSON.parse(raw) as string;
    } catch {
      throw new FileStructureError(`cannot read the key ${raw}`, this.line);
    }
    this.keys[this.stack.length - 1] = key;
  }

  private startElement(kind: OpenElement['kind']): void {
    this.element = { kind, line: this.line, parts: [], size: 0, oversized: false };
    if (this.targetDepth === 2) {
      this.element.split = this.keys[0] ?? '';
      this.element.key = this.keys[1] ?? '';
    }
  }

  private appendPart(part: Buffer): void {
    const element = this.element!;
    element.size += part.length;
    if (element.oversized) return;
    if (element.size > this.maxBytes) {
      element.oversized = true;
      element.parts = [];
      return;
    }
    // Copy: the read stream may reuse its buffers.
    element.parts.push(Buffer.from(part));
  }

  private finishElement(chunk: Buffer, start: number, end: number): void {
    this.appendPart(chunk.subarray(start, end));
    const element = this.element!;
    this.element = null;
    const index = this.index++;
    const where =
      element.split !== undefined ? `${element.split}[${JSON.stringify(element.key)}]` : this.targetDepth === 0 ? `record [${index}]` : `element [${index}]`;
    this.records.push({
      index,
      line: element.line,
      location: `line ${element.line}, ${where}`,
      ...(element.split !== undefined ? { split: element.split, key: element.key } : {}),
      bytes: element.oversized ? null : Buffer.concat(element.parts),
      size: element.size,
    });
  }
}

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const HEAD_BYTES = 4096;

/** Decides the layout from the first bytes of the file. */
export function detectLayout(head: Buffer, splits: readonly string[] | undefined): Layout | null {
  const text = head.subarray(0, HEAD_BYTES).toString('utf8');
  const first = /\S/.exec(text);
  if (!first) return null;
  if (first[0] === '[') return 'array';
  if (first[0] === '{' && splits && splits.length > 0) {
    const names = splits.map((s) => s.replace(/[^A-Za-z0-9_-]/g, '')).join('|');
    if (new RegExp(`^\\s*\\{\\s*"(?:${names})"\\s*:\\s*\\{`).test(text)) return 'splits';
  }
  if (first[0] === '{' && /^\s*\{[ \t]*\r?\n/.test(text)) return 'stream';
  return 'jsonl';
}

/** Yields the records of `file` one by one. Throws FileStructureError for a broken layout. */
export async function* readRecords(file: string, options: ReadOptions): AsyncGenerator<RawRecord, Layout> {
  const stream = fs.createReadStream(file, { highWaterMark: options.chunkBytes ?? 1024 * 1024 });
  let sink: Sink | null = null;
  let layout: Layout = 'jsonl';
  let head: Buffer = Buffer.alloc(0);
  let bytesRead = 0;
  let first = true;
  const start = (): Sink | null => {
    const detected = detectLayout(head, options.splits);
    if (!detected) return null;
    layout = detected;
    return layout === 'jsonl' ? new LineSplitter(options.maxRecordBytes) : new StructureSplitter({ stream: 0, array: 1, splits: 2 }[layout], options.maxRecordBytes);
  };
  try {
    for await (const data of stream) {
      options.signal?.throwIfAborted();
      let chunk = data as Buffer;
      bytesRead += chunk.length;
      if (first) {
        first = false;
        if (chunk.subarray(0, 3).equals(BOM)) chunk = chunk.subarray(3);
      }
      if (!sink) {
        // Gather the first few KiB to tell the layout apart.
        head = Buffer.concat([head, chunk]);
        if (head.length < HEAD_BYTES) continue;
        sink = start();
        if (!sink) continue;
        chunk = head;
      }
      sink.push(chunk);
      options.onBytes?.(bytesRead);
      if (sink.records.length > 0) {
        yield* sink.records;
        sink.records.length = 0;
      }
    }
  } finally {
    stream.destroy();
  }
  if (!sink) {
    sink = start();
    if (!sink) throw new FileStructureError(bytesRead === 0 ? 'the file is empty' : 'the file holds only whitespace', 1);
    sink.push(head);
  }
  sink.end();
  yield* sink.records;
  return layout;
}

/**
 * Yields the lines of a JSON Lines file one by one (blank lines skipped, CRLF and a BOM
 * accepted), without holding the file in memory: a line over `maxLineBytes` is not kept (its
 * `bytes` is null and `size` says how long it was), so one huge line costs no more than a chunk.
 */
export async function* readLines(file: string, options: { maxLineBytes: number; signal?: AbortSignal }): AsyncGenerator<RawRecord> {
  const splitter = new LineSplitter(options.maxLineBytes);
  const stream = fs.createReadStream(file, { highWaterMark: 1024 * 1024 });
  let first = true;
  try {
    for await (const data of stream) {
      options.signal?.throwIfAborted();
      let chunk = data as Buffer;
      if (first) {
        first = false;
        if (chunk.subarray(0, 3).equals(BOM)) chunk = chunk.subarray(3);
      }
      splitter.push(chunk);
      yield* splitter.records;
      splitter.records.length = 0;
    }
  } finally {
    stream.destroy();
  }
  splitter.end();
  yield* splitter.records;
}

export interface ParsedRecord {
  ok: true;
  value: unknown;
}
export interface UnparsedRecord {
  ok: false;
  /** The line of the problem, as exact as can be known. */
  line: number;
  message: string;
}

/** Decodes (strict UTF-8) and parses one record, pinpointing the line of a problem. */
export function parseRecord(record: RawRecord, maxRecordBytes: number): ParsedRecord | UnparsedRecord {
  const bytes = record.bytes;
  if (bytes === null) {
    return {
      ok: false,
      line: record.line,
      message: `the record is ${formatBytes(record.size)}, over the limit of ${formatBytes(maxRecordBytes)} per record (raise it with --max-record-mb)`,
    };
  }
  if (!isUtf8(bytes)) {
    const offset = firstInvalidUtf8(bytes);
    return {
      ok: false,
      line: record.line + countNewlines(bytes, offset),
      message: `the bytes are not valid UTF-8 (at byte ${offset} of the record); save the file as UTF-8`,
    };
  }
  const text = bytes.toString('utf8');
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    const found = jsonSyntaxError(text);
    const offset = found?.offset ?? 0;
    const message = found?.message ?? (error as Error).message.split('\n')[0]!;
    return { ok: false, line: record.line + countNewlines(text, offset), message: `invalid JSON: ${message}` };
  }
}

/**
 * Where JSON text first goes wrong, and how. V8's own messages do not always give a position,
 * so on the (rare) error path this small checker walks the grammar to find it.
 */
export function jsonSyntaxError(text: string): { offset: number; message: string } | null {
  let i = 0;
  const fail = (message: string): never => {
    throw Object.assign(new Error(message), { offset: i });
  };
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const show = () => (i >= text.length ? 'the end of the record' : JSON.stringify(text[i]));
  const literal = (word: string) => {
    if (text.startsWith(word, i)) i += word.length;
    else fail(`unexpected ${show()}`);
  };
  const string = () => {
    i++;
    while (i < text.length) {
      const c = text[i]!;
      if (c === '"') {
        i++;
        return;
      }
      if (c === '\\') {
        const next = text[i + 1];
        if (next === 'u' ? !/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6)) : !'"\\/bfnrt'.includes(next ?? 'x')) fail('bad escape in a string');
        i += next === 'u' ? 6 : 2;
        continue;
      }
      if (c < ' ') fail('unescaped control character (such as a line break) in a string');
      i++;
    }
    fail('a string is not closed');
  };
  const value = (depth: number): void => {
    if (depth > 512) fail('nesting is too deep');
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      ws();
      if (text[i] === '}') {
        i++;
        return;
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail(`expected a property name in double quotes, found ${show()}`);
        string();
        ws();
        if (text[i] !== ':') fail(`expected ':' after a property name, found ${show()}`);
        i++;
        value(depth + 1);
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === '}') {
          i++;
          return;
        }
        fail(`expected ',' or '}' in an object, found ${show()}`);
      }
    }
    if (c === '[') {
      i++;
      ws();
      if (text[i] === ']') {
        i++;
        return;
      }
      for (;;) {
        value(depth + 1);
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === ']') {
          i++;
          return;
        }
        fail(`expected ',' or ']' in an array, found ${show()}`);
      }
    }
    if (c === '"') return string();
    if (c === 't') return literal('true');
    if (c === 'f') return literal('false');
    if (c === 'n') return literal('null');
    const number = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 64));
    if (number) {
      i += number[0].length;
      return;
    }
    fail(`unexpected ${show()}`);
  };
  try {
    value(0);
    ws();
    if (i < text.length) fail(`unexpected ${show()} after the value`);
    return null;
  } catch (error) {
    return { offset: (error as { offset?: number }).offset ?? 0, message: (error as Error).message };
  }
}

function countNewlines(data: Buffer | string, end: number): number {
  let count = 0;
  if (typeof data === 'string') {
    for (let i = 0; i < end && i < data.length; i++) if (data.charCodeAt(i) === LF) count++;
  } else {
    for (let i = 0; i < end && i < data.length; i++) if (data[i] === LF) count++;
  }
  return count;
}

/** Offset of the first byte that breaks UTF-8 (only called once isUtf8 said no). */
export function firstInvalidUtf8(bytes: Buffer): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    let need: number;
    let min: number;
    if (b < 0x80) {
      i++;
      continue;
    } else if (b >= 0xc2 && b <= 0xdf) {
      need = 1;
      min = 0x80;
    } else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      min = 0x800;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      min = 0x10000;
    } else return i;
    let code = b & (0x3f >> need);
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k];
      if (c === undefined || (c & 0xc0) !== 0x80) return i;
      code = (code << 6) | (c & 0x3f);
    }
    if (code < min || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return i;
    i += need + 1;
  }
  return bytes.length;
}
