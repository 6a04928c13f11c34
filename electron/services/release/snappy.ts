/**
 * Snappy compression, byte for byte what hyparquet-writer's `snappyCompress` gives (the same
 * algorithm: snappyjs by Zhipeng Jia, MIT licence), written straight into one output array sized
 * for the worst case. hyparquet-writer's version appends through a growable writer one byte per
 * method call, which made it a tenth of a release's Parquet time; `test/unit/release-shred.test.ts`
 * compares the two on pages of every kind. The `snappyjs` package itself is not a substitute: it
 * cuts the input into 64 KiB blocks where hyparquet-writer compresses a page as one, so its bytes
 * differ, and the library's own compressor is not exported apart from its slow writer.
 */

const MAX_HASH_TABLE_BITS = 14;
const MAX_OFFSET = 0xffff;
const INPUT_MARGIN = 15;
const hashTables: (Uint32Array | undefined)[] = new Array(MAX_HASH_TABLE_BITS + 1);

/** Cursor over the output array. */
interface Out {
  bytes: Uint8Array;
  at: number;
}

const hashOf = (key: number, shift: number) => Math.imul(key, 0x1e35a7bd) >>> shift;

// Reads past the end give undefined, as in the original, which the hash turns into 0: kept so
// that the bytes stay the same.
const load32 = (a: Uint8Array, p: number) => a[p]! + (a[p + 1]! << 8) + (a[p + 2]! << 16) + (a[p + 3]! << 24);

const equals32 = (a: Uint8Array, p: number, q: number) => a[p] === a[q] && a[p + 1] === a[q + 1] && a[p + 2] === a[q + 2] && a[p + 3] === a[q + 3];

function emitLiteral(out: Out, input: Uint8Array, ip: number, len: number): void {
  if (len <= 60) {
    out.bytes[out.at++] = (len - 1) << 2;
  } else {
    const value = len - 1;
    const count = value < 0x100 ? 1 : value < 0x10000 ? 2 : value < 0x1000000 ? 3 : 4;
    out.bytes[out.at++] = (59 + count) << 2;
    for (let i = 0; i < count; i++) out.bytes[out.at++] = value >>> (i * 8);
  }
  out.bytes.set(input.subarray(ip, ip + len), out.at);
  out.at += len;
}

function emitCopyLessThan64(out: Out, offset: number, len: number): void {
  const b = out.bytes;
  if (len < 12 && offset < 2048) {
    b[out.at++] = 1 + ((len - 4) << 2) + ((offset >>> 8) << 5);
    b[out.at++] = offset & 0xff;
  } else {
    b[out.at++] = 2 + ((len - 1) << 2);
    b[out.at++] = offset & 0xff;
    b[out.at++] = offset >>> 8;
  }
}

function emitCopy(out: Out, offset: number, len: number): void {
  while (len >= 68) {
    emitCopyLessThan64(out, offset, 64);
    len -= 64;
  }
  if (len > 64) {
    emitCopyLessThan64(out, offset, 60);
    len -= 60;
  }
  emitCopyLessThan64(out, offset, len);
}

export function snappyCompress(input: Uint8Array): Uint8Array {
  const size = input.length;
  // The format's bound on the output (32 + n + n/6), plus the length varint.
  const out: Out = { bytes: new Uint8Array(32 + size + Math.ceil(size / 6) + 5), at: 0 };
  let length = size;
  while (length & ~0x7f) {
    out.bytes[out.at++] = (length & 0x7f) | 0x80;
    length >>>= 7;
  }
  out.bytes[out.at++] = length;

  let bits = 1;
  while (1 << bits <= size && bits <= MAX_HASH_TABLE_BITS) bits++;
  bits--;
  const shift = 32 - bits;
  const table = (hashTables[bits] ??= new Uint32Array(1 << bits));
  table.fill(0);

  let nextEmit = 0;
  if (size >= INPUT_MARGIN) {
    const ipLimit = size - INPUT_MARGIN;
    let ip = 1;
    let nextHash = hashOf(load32(input, ip), shift);
    let candidate = 0;
    outer: for (;;) {
      let skip = 32;
      let nextIp = ip;
      do {
        ip = nextIp;
        const hash = nextHash;
        nextIp = ip + (skip++ >>> 5);
        if (ip > ipLimit) break outer;
        nextHash = hashOf(load32(input, nextIp), shift);
        candidate = table[hash]!;
        table[hash] = ip;
      } while (ip - candidate > MAX_OFFSET || !equals32(input, ip, candidate));

      emitLiteral(out, input, nextEmit, ip - nextEmit);
      do {
        const base = ip;
        let matched = 4;
        while (ip + matched < size && input[ip + matched] === input[candidate + matched]) matched++;
        ip += matched;
        emitCopy(out, base - candidate, matched);
        nextEmit = ip;
        if (ip >= ipLimit) break outer;
        table[hashOf(load32(input, ip - 1), shift)] = ip - 1;
        const current = hashOf(load32(input, ip), shift);
        candidate = table[current]!;
        table[current] = ip;
      } while (ip - candidate <= MAX_OFFSET && equals32(input, ip, candidate));
      ip++;
      nextHash = hashOf(load32(input, ip), shift);
    }
  }
  if (nextEmit < size) emitLiteral(out, input, nextEmit, size - nextEmit);
  return out.bytes.subarray(0, out.at);
}
