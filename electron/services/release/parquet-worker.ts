import { parentPort } from 'node:worker_threads';
import type { AwbRecord } from '../../../shared/awb-format';
import { recordToRow } from '../../../shared/release/schema';
import { openFileSink, ParquetFile } from './files';
import type { ParquetReply, ParquetRequest } from './parquet-pool';

/**
 * Encodes a release's Parquet files off the main thread: it receives each split's JSONL lines in
 * batches, turns them into rows and writes the row groups, so that encoding overlaps with reading
 * the records and writing the JSONL and the database on the main thread.
 */

const port = parentPort!;
const files = new Map<number, ParquetFile>();

port.on('message', (request: ParquetRequest) => {
  try {
    if (request.op === 'open') {
      files.set(request.id, new ParquetFile(request.relativePath, request.dir, openFileSink, request.rowGroupRows, request.keyValues));
    } else if (request.op === 'rows') {
      const file = files.get(request.id)!;
      for (const line of request.lines) file.add(recordToRow(JSON.parse(line) as AwbRecord));
      port.postMessage({ op: 'ack', seq: request.seq } satisfies ParquetReply);
    } else if (request.op === 'abort') {
      for (const file of files.values()) file.file.abort();
      files.clear();
      port.postMessage({ op: 'aborted' } satisfies ParquetReply);
    } else if (request.op === 'finish') {
      const file = files.get(request.id)!;
      const sha256 = file.finish();
      files.delete(request.id);
      port.postMessage({ op: 'finished', id: request.id, sha256, rows: file.file.rows, bytes: file.file.bytes } satisfies ParquetReply);
    }
  } catch (error) {
    for (const file of files.values()) file.file.abort();
    files.clear();
    port.postMessage({ op: 'error', message: (error as Error).message, code: (error as NodeJS.ErrnoException).code ?? null } satisfies ParquetReply);
  }
});
port.postMessage({ op: 'ready' } satisfies ParquetReply);
