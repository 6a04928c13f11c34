import { codeBits, simhashTransform } from './simhash';

/**
 * The codes approximate dense search scans, made from a vector's randomised Hadamard transform z
 * (simhash.ts), over the code's first `codeBits(d)` coordinates:
 *
 * - the sign bits, the SimHash code sqlite-vec also stores;
 * - two bit planes of magnitude: coordinate j falls in interval m_j ∈ {0, 1, 2, 3} of |z_j| / σ
 *   (σ the root mean square of the coordinates), cut at 0.586, 1.172 and 1.758. With the sign,
 *   that is the uniform 8-level quantiser of least mean square error for a Gaussian source (step
 *   0.586σ; Max 1960, table I), and the coordinates of a randomly rotated vector are close to
 *   Gaussian. The coordinate's value is read back as ±(m_j + ½), up to the vector's scale;
 * - the vector's weight, 1 / √Σ (m_j + ½)², so that weight · Σ ±(m_j + ½) · y_j ranks candidates
 *   by the cosine of their quantised vector with the query (y its transform).
 *
 * The sign bits rank all the vectors; the magnitudes re-rank the best few thousand almost as well
 * as 8-bit copies would, for three bits per coordinate instead of eight.
 */

const STEP = 0.586;
export const MAGNITUDE_PLANES = 2;

export interface VectorCode {
  signs: Uint8Array;
  /** The low magnitude bits, then the high ones (bit j of a plane belongs to coordinate j). */
  planes: Uint8Array;
  weight: number;
}

/** Bytes per vector of each kind of code: the signs, and both planes together. */
export function codeBytes(dimensions: number): { signs: number; planes: number } {
  const signs = codeBits(dimensions) / 8;
  return { signs, planes: signs * MAGNITUDE_PLANES };
}

export function encodeVector(vector: Float32Array): VectorCode {
  const bits = codeBits(vector.length);
  const z = simhashTransform(vector);
  const bytes = bits / 8;
  const signs = new Uint8Array(bytes);
  const planes = new Uint8Array(bytes * MAGNITUDE_PLANES);
  let energy = 0;
  for (let j = 0; j < bits; j++) energy += z[j]! * z[j]!;
  const sigma = Math.sqrt(energy / bits);
  let squares = 0;
  for (let j = 0; j < bits; j++) {
    const bit = 1 << (j & 7);
    if (z[j]! > 0) signs[j >> 3]! |= bit;
    const m = sigma > 0 ? Math.min(3, Math.floor(Math.abs(z[j]!) / (STEP * sigma))) : 0;
    if (m & 1) planes[j >> 3]! |= bit;
    if (m & 2) planes[bytes + (j >> 3)]! |= bit;
    squares += (m + 0.5) * (m + 0.5);
  }
  return { signs, planes, weight: 1 / Math.sqrt(squares) };
}

/**
 * The words of a code stored word-major in a block: its first third (the stored layout dates from a
 * two-pass scan; the fast scan regroups every code sixteen to a group when it reads a block).
 */
export function headWords(dimensions: number): number {
  return Math.ceil(codeBits(dimensions) / 32 / 3);
}

/**
 * A block of codes as it is stored: the heads of its codes word by word (word w of code i at
 * w · size + i); the rest of each code, code by code; the magnitude planes, code by code; the
 * weights.
 */
export interface CodeBlock {
  size: number;
  ids: Float64Array;
  head: Uint32Array;
  tail: Uint32Array;
  planes: Uint8Array;
  weights: Float32Array;
}

export function layoutBlock(dimensions: number, ids: readonly number[], codes: readonly VectorCode[]): CodeBlock {
  const size = codes.length;
  const { signs: signBytes, planes: planeBytes } = codeBytes(dimensions);
  const words = signBytes / 4;
  const headCount = headWords(dimensions);
  const tailCount = words - headCount;
  const head = new Uint32Array(size * headCount);
  const tail = new Uint32Array(size * tailCount);
  const planes = new Uint8Array(size * planeBytes);
  const weights = new Float32Array(size);
  codes.forEach((code, i) => {
    const view = new DataView(code.signs.buffer, code.signs.byteOffset, signBytes);
    for (let w = 0; w < words; w++) {
      const word = view.getUint32(w * 4, true);
      if (w < headCount) head[w * size + i] = word;
      else tail[i * tailCount + (w - headCount)] = word;
    }
    planes.set(code.planes, i * planeBytes);
    weights[i] = code.weight;
  });
  return { size, ids: Float64Array.from(ids), head, tail, planes, weights };
}
