import fs from 'node:fs';
import { FileStructureError, LineSplitter, StructureSplitter, type RawRecord, type Sink } from './json-scanner';

/**
 * Streams the records of a JSON file without holding the file in memory. Four layouts:
 *
 * - `jsonl`: one JSON value per line (blank lines skipped, CRLF accepted);
 * - `stream`: JSON objects one after another, each over several lines, as `jq` or an indenting
 *   serialiser prints them (told from JSON Lines by a first line that is `{` alone);
 * - `array`: one top-level JSON array whose elements are the records;
 * - `splits`: one top-level object of objects, `{"train": {"id": record, ...}, "dev": {...}}`
 *   (the official ASQA file);
 * - `wrapped`: one top-level object whose records are the array under one key, other keys
 *   passed over: `{"version": "v2.0", "data": [record, ...]}` (the official SQuAD files).
 *
 * Records are cut out of the byte stream by a small structural scanner (brackets and strings
 * only) and parsed one at a time with JSON.parse, so memory stays at one record plus one read
 * chunk, and every problem can be reported with its line. A record larger than
 * `maxRecordBytes` is not kept: it is reported as too large and the scan goes on.
 */

export type Layout = 'jsonl' | 'stream' | 'array' | 'splits' | 'wrapped';

export interface ReadOptions {
  maxRecordBytes: number;
  /** Split names that mark a `splits` file (e.g. `train`, `dev`); omit to disallow the layout. */
  splits?: readonly string[];
  /** The key of the record array in a `wrapped` file; omit to disallow the layout. */
  wrapper?: string;
  signal?: AbortSignal;
  onBytes?: (bytesRead: number) => void;
  chunkBytes?: number;
}

export const DEFAULT_MAX_RECORD_BYTES = 16 * 1024 * 1024;

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const HEAD_BYTES = 4096;

/** Decides the layout from the first bytes of the file. */
export function detectLayout(head: Buffer, splits: readonly string[] | undefined, wrapper?: string): Layout | null {
  const text = head.subarray(0, HEAD_BYTES).toString('utf8');
  const first = /\S/.exec(text);
  if (!first) return null;
  if (first[0] === '[') return 'array';
  // A format that comes wrapped reads every file that opens with an object that way: the
  // scanner then says so plainly if the record array is missing.
  if (first[0] === '{' && wrapper) return 'wrapped';
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
    const detected = detectLayout(head, options.splits, options.wrapper);
    if (!detected) return null;
    layout = detected;
    if (layout === 'jsonl') return new LineSplitter(options.maxRecordBytes);
    if (layout === 'wrapped') return new StructureSplitter(2, options.maxRecordBytes, options.wrapper);
    return new StructureSplitter({ stream: 0, array: 1, splits: 2 }[layout], options.maxRecordBytes);
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

