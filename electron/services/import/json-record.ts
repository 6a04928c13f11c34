import { isUtf8 } from 'node:buffer';
import type { RawRecord } from './json-scanner';

/**
 * One record cut out by the scanner, decoded and parsed: strict UTF-8, then JSON.parse; on
 * failure, the line of the problem as exactly as can be known (V8's messages do not always say
 * where, so a small grammar walk finds it).
 */

const LF = 10;

export function formatBytes(n: number): string {
  return n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(1)} MiB` : `${Math.ceil(n / 1024)} KiB`;
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
      message: `the record is ${formatBytes(record.size)}, over the limit of ${formatBytes(maxRecordBytes)} per record (raise the per-record limit to read it)`,
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
