import zlib from 'node:zlib';

/**
 * How a release's frozen records are stored: consecutive awb-instance/1 lines (key order), a
 * thousand to a chunk, joined by newlines and compressed with Brotli at quality 0, the fastest of
 * the codecs Node ships that still shrinks these records about sixfold (measured on the release
 * bench's records, chunks of 2 MB: Brotli q0 6.1× at ~700 MB/s, q1 6.6× at ~400 MB/s, deflate
 * level 1 6.1× at ~230 MB/s), so a million-instance release keeps ~0.33 GB in the database instead
 * of 2 GB. Until 2026-11-27 chunks were written at quality 1; both decode the same way.
 */

export const FROZEN_CHUNK_RECORDS = 1000;

const OPTIONS: zlib.BrotliOptions = {
  params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 0, [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT },
};

/** Compresses a chunk's lines on the main thread (migrations, small releases). */
export function encodeFrozenChunkSync(lines: readonly string[]): Buffer {
  return zlib.brotliCompressSync(Buffer.from(lines.join('\n'), 'utf8'), OPTIONS);
}

/** Compresses a chunk given as its UTF-8 bytes (the lines joined by newlines). */
export function encodeFrozenBytesSync(bytes: Uint8Array): Buffer {
  return zlib.brotliCompressSync(bytes, OPTIONS);
}

/** The lines of a stored chunk; throws when the count is not the one recorded beside it. */
export function decodeFrozenChunk(content: Uint8Array, records: number): string[] {
  const lines = zlib.brotliDecompressSync(content).toString('utf8').split('\n');
  if (lines.length !== records) throw new Error(`a frozen chunk holds ${lines.length} records where ${records} were recorded`);
  return lines;
}
