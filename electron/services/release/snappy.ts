/**
 * Snappy compression, byte for byte what hyparquet-writer's `snappyCompress` gives (the same
 * algorithm: snappyjs by Zhipeng Jia, MIT licence), written straight into one output array sized
 * for the worst case. hyparquet-writer's version appends through a growable writer one byte per
 * method call, which made it a tenth of a release's Parquet time; `test/unit/release-shred.test.ts`
 * compares the two on pages of every kind. The `snappyjs` package itself is not a substitute: it
 * cuts the input into 64 KiB blocks where hyparquet-writer compresses a page as one, so its bytes
 * differ, and the library's own compressor is not exported apart from its slow writer. Here the
 * output goes into one scratch array reused between pages (the result is copied out), four bytes
 * are compared at a time, and the cursor lives in local variables instead of an object.
 */

const MAX_HASH_TABLE_BITS = 14;
const MAX_OFFSET = 0xffff;
const INPUT_MARGIN = 15;
const hashTables: (Int32Array | undefined)[] = new Array(MAX_HASH_TABLE_BITS + 1);

// The skip loop reads one key ahead, which near the end can lie past the input; that key is never
// looked up (the loop stops first), and reading it as 0 keeps every read in bounds.
function load32(a: Uint8Array, p: number): number {
  return p + 3 < a.length ? a[p]! | (a[p + 1]! << 8) | (a[p + 2]! << 16) | (a[p + 3]! << 24) : 0;
}

let scratch = new Uint8Array(1 << 16);

export function snappyCompress(input: Uint8Array): Uint8Array {
  const size = input.length;
  // The format's bound on the output (32 + n + n/6), plus the length varint.
  const bound = 32 + size + Math.ceil(size / 6) + 5;
  if (scratch.length < bound) scratch = new Uint8Array(bound);
  const out = scratch;
  let op = 0;
  let length = size;
  while (length & ~0x7f) {
    out[op++] = (length & 0x7f) | 0x80;
    length >>>= 7;
  }
  out[op++] = length;

  let bits = 1;
  while (1 << bits <= size && bits <= MAX_HASH_TABLE_BITS) bits++;
  bits--;
  const shift = 32 - bits;
  const table = (hashTables[bits] ??= new Int32Array(1 << bits));
  table.fill(0);

  const literal = (from: number, len: number) => {
    if (len <= 60) {
      out[op++] = (len - 1) << 2;
    } else {
      const value = len - 1;
      const count = value < 0x100 ? 1 : value < 0x10000 ? 2 : value < 0x1000000 ? 3 : 4;
      out[op++] = (59 + count) << 2;
      for (let i = 0; i < count; i++) out[op++] = value >>> (i * 8);
    }
    if (len < 32) {
      for (let i = 0; i < len; i++) out[op + i] = input[from + i]!;
    } else {
      out.set(input.subarray(from, from + len), op);
    }
    op += len;
  };
  const copyUnder64 = (offset: number, len: number) => {
    if (len < 12 && offset < 2048) {
      out[op++] = 1 + ((len - 4) << 2) + ((offset >>> 8) << 5);
      out[op++] = offset & 0xff;
    } else {
      out[op++] = 2 + ((len - 1) << 2);
      out[op++] = offset & 0xff;
      out[op++] = offset >>> 8;
    }
  };

  let nextEmit = 0;
  if (size >= INPUT_MARGIN) {
    const ipLimit = size - INPUT_MARGIN;
    let ip = 1;
    let nextHash = Math.imul(load32(input, ip), 0x1e35a7bd) >>> shift;
    let candidate = 0;
    outer: for (;;) {
      let skip = 32;
      let nextIp = ip;
      do {
        ip = nextIp;
        const hash = nextHash;
        nextIp = ip + (skip++ >>> 5);
        if (ip > ipLimit) break outer;
        nextHash = Math.imul(load32(input, nextIp), 0x1e35a7bd) >>> shift;
        candidate = table[hash]!;
        table[hash] = ip;
      } while (ip - candidate > MAX_OFFSET || load32(input, ip) !== load32(input, candidate));

      literal(nextEmit, ip - nextEmit);
      do {
        const base = ip;
        let matched = 4;
        while (ip + matched + 4 <= size && load32(input, ip + matched) === load32(input, candidate + matched)) matched += 4;
        while (ip + matched < size && input[ip + matched] === input[candidate + matched]) matched++;
        ip += matched;
        const offset = base - candidate;
        let len = matched;
        while (len >= 68) {
          copyUnder64(offset, 64);
          len -= 64;
        }
        if (len > 64) {
          copyUnder64(offset, 60);
          len -= 60;
        }
        copyUnder64(offset, len);
        nextEmit = ip;
        if (ip >= ipLimit) break outer;
        table[Math.imul(load32(input, ip - 1), 0x1e35a7bd) >>> shift] = ip - 1;
        const current = Math.imul(load32(input, ip), 0x1e35a7bd) >>> shift;
        candidate = table[current]!;
        table[current] = ip;
      } while (ip - candidate <= MAX_OFFSET && load32(input, ip) === load32(input, candidate));
      ip++;
      nextHash = Math.imul(load32(input, ip), 0x1e35a7bd) >>> shift;
    }
  }
  if (nextEmit < size) literal(nextEmit, size - nextEmit);
  return out.slice(0, op);
}
