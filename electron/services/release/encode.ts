import { encodeFrozenBytesSync, FROZEN_CHUNK_RECORDS } from '../../../db/frozen-records';
import type { ReadableDB } from '../../../db/sql';
import { AMBIGUITY_TYPES } from '../../../shared/domain';
import { keyOf, parquetRowOf } from '../../../shared/release/schema';
import type { Shredder } from '../../../shared/release/shred';
import { readInBatches, readInstanceRecords } from '../record-reader';
import { sha256 } from '../hash';
import { encodeShredded, type EncodedGroup } from './files';

/**
 * One unit of a release's work: up to a row group's worth of one split's instances, in key order.
 * Encoding it reads the records, and gives back everything the release writes for them: the
 * JSONL bytes, one Parquet row group, each record's key and hash, and the frozen records in
 * compressed chunks. Tasks are independent, so encoder workers run them in parallel, each on its
 * own connection to the database, while the main thread writes the results in order.
 */

export interface EncodeTask {
  seq: number;
  /** Instance ids (SQLite row ids: doubles hold every one a database reaches, Int32 would not). */
  ids: Float64Array;
  /** Index into AMBIGUITY_TYPES, per instance. */
  types: Uint8Array;
}

export interface EncodedPart {
  seq: number;
  jsonl: Uint8Array;
  keys: string[];
  hashes: string[];
  frozen: { records: number; content: Uint8Array }[];
  group: EncodedGroup;
}

/** Bytes appended to one buffer that grows by doubling (its own ArrayBuffer, so it can be transferred). */
class Bytes {
  buffer: Buffer;
  length = 0;

  constructor(capacity: number) {
    this.buffer = Buffer.allocUnsafeSlow(Math.max(capacity, 1 << 16));
  }

  /** Appends the text and a newline; returns the text's bytes (a view, valid until the next append). */
  append(text: string): Uint8Array {
    const most = text.length * 3 + 1;
    if (this.length + most > this.buffer.length) {
      const grown = Buffer.allocUnsafeSlow(Math.max(this.buffer.length * 2, this.length + most));
      this.buffer.copy(grown, 0, 0, this.length);
      this.buffer = grown;
    }
    const start = this.length;
    this.length += this.buffer.write(text, this.length, 'utf8');
    this.buffer[this.length++] = 10;
    return this.buffer.subarray(start, this.length - 1);
  }
}

export function encodeTask(db: ReadableDB, task: EncodeTask, shredder: Shredder): EncodedPart {
  const keys: string[] = [];
  const hashes: string[] = [];
  const frozen: EncodedPart['frozen'] = [];
  // Each record goes straight into bytes and leaf columns, so its objects and its JSON text die
  // young; what the task keeps until the end is bytes and leaf values.
  const jsonl = new Bytes(task.ids.length * 2560);
  let chunkStart = 0;
  let inChunk = 0;
  const freeze = () => {
    // A chunk is its lines' bytes without the last newline (db/frozen-records.ts).
    frozen.push({ records: inChunk, content: encodeFrozenBytesSync(jsonl.buffer.subarray(chunkStart, jsonl.length - 1)) });
    chunkStart = jsonl.length;
    inChunk = 0;
  };
  shredder.start();
  let index = 0;
  for (const batch of readInBatches(db, task.ids, (id) => id, readInstanceRecords)) {
    for (const { record } of batch) {
      // The hash is of the line's UTF-8 bytes, hashed from the buffer rather than encoded again.
      hashes.push(sha256(jsonl.append(JSON.stringify(record))));
      keys.push(keyOf(record.dataset.name, record.base_question.source_id, AMBIGUITY_TYPES[task.types[index++]!]!));
      shredder.add(parquetRowOf(record));
      if (++inChunk === FROZEN_CHUNK_RECORDS) freeze();
    }
  }
  if (inChunk) freeze();
  const group = encodeShredded(shredder.take(), shredder, keys.length);
  return { seq: task.seq, jsonl: jsonl.buffer.subarray(0, jsonl.length), keys, hashes, frozen, group };
}

/** The buffers of a part that can move to another thread without a copy. */
export function transferList(part: EncodedPart): ArrayBuffer[] {
  // A view from the start of a buffer of its own (not a slice of Node's shared pool) can move.
  const owned = (bytes: Uint8Array) => (bytes.byteOffset === 0 && bytes.buffer.byteLength > 8192 ? [bytes.buffer as ArrayBuffer] : []);
  return [...owned(part.jsonl), ...owned(part.group.bytes), ...part.frozen.flatMap((f) => owned(f.content))];
}
