/**
 * Binary codes for the coarse vector search: the signs of a randomised Hadamard transform of the
 * vector (SimHash, Charikar 2002). The chance that two codes differ in a bit grows with the angle
 * between their vectors (θ/π for a random rotation), so Hamming distance ranks by angle. Taking
 * the raw signs instead would fail for sparse queries, whose zero coordinates all read as one
 * sign. The transform (random sign flips, then a fast Walsh-Hadamard transform, twice) costs
 * O(d log d) and is fixed by a seed, so passages and queries get the same one.
 */

/** The transform's size: the power of two at or above the dimension. */
function transformSize(dimensions: number): number {
  let size = 32;
  while (size < dimensions) size *= 2;
  return size;
}

/** Bits per code: the dimension rounded up to whole 32-bit words (every bit is as informative). */
export function codeBits(dimensions: number): number {
  return Math.ceil(dimensions / 32) * 32;
}

function signs(length: number, seed: number): Float32Array {
  const out = new Float32Array(length);
  let state = seed >>> 0 || 1;
  for (let i = 0; i < length; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    out[i] = state & 1 ? 1 : -1;
  }
  return out;
}

const signCache = new Map<string, [Float32Array, Float32Array]>();

function walshHadamard(v: Float32Array): void {
  for (let h = 1; h < v.length; h *= 2) {
    for (let i = 0; i < v.length; i += h * 2) {
      for (let j = i; j < i + h; j++) {
        const a = v[j]!;
        const b = v[j + h]!;
        v[j] = a + b;
        v[j + h] = a - b;
      }
    }
  }
}

/** The randomised Hadamard transform of a vector (the code's bits are its first signs). */
export function simhashTransform(vector: Float32Array, seed = 0x5eed): Float32Array {
  const size = transformSize(vector.length);
  const key = `${size}:${seed}`;
  let flips = signCache.get(key);
  if (!flips) {
    flips = [signs(size, seed), signs(size, seed * 31 + 7)];
    signCache.set(key, flips);
  }
  const v = new Float32Array(size);
  v.set(vector);
  for (const flip of flips) {
    for (let i = 0; i < size; i++) v[i]! *= flip[i]!;
    walshHadamard(v);
  }
  return v;
}

/** The packed sign bits (little-endian within each byte, as sqlite-vec reads bit vectors). */
export function simhash(vector: Float32Array, seed = 0x5eed): Uint8Array {
  const bits = codeBits(vector.length);
  const v = simhashTransform(vector, seed);
  const code = new Uint8Array(bits / 8);
  for (let i = 0; i < bits; i++) if (v[i]! > 0) code[i >> 3]! |= 1 << (i & 7);
  return code;
}
