import type { CodeBlock } from '../../../shared/retrieval/vector-codes';
import { fastScanWasm } from './fast-scan.wasm';

/**
 * The sign bits of every code, held in WebAssembly memory sixteen codes to a group (byte j of the
 * group's codes side by side) and scored there by fast-scan.wat: each 4-bit nibble of a code looks
 * up its contribution in a 16-entry table of 7-bit integers, sixteen codes per instruction. The
 * sums are quantised estimates of the asymmetric sign-bit score; the best few thousand by them
 * are then scored exactly (code-index.ts).
 *
 * Memory, in order: the query's nibble tables, a histogram of the scores (one 32-bit bin per
 * possible sum), the codes, and past them the scores of the last query and the places it kept
 * (rewritten by every query, so codes appended later may take their place).
 */

interface FastScanExports {
  memory: WebAssembly.Memory;
  scan(codes: number, groups: number, bytes: number, tables: number, scores: number): void;
  histogram(scores: number, n: number, histogram: number): void;
  collect(scores: number, n: number, cut: number, ties: number, out: number): number;
}

let compiled: WebAssembly.Module | null = null;

const PAGE = 65536;
const BINS = 65536;
const roundUp = (n: number, to: number) => Math.ceil(n / to) * to;

/**
 * Each nibble's table: Σ ±y over its 4 coordinates for each of its 16 values, less the smallest
 * (so none is negative), times one scale shared by all tables, rounded. The scale gives the widest
 * table `top`: 127, so that a byte's two nibbles add up within a byte, or less for codes over 258
 * bytes (2,064 bits), so that the sum over a whole code still fits in 16 bits.
 */
export function nibbleTables(y: Float32Array, bytes: number): Uint8Array {
  const nibbles = bytes * 2;
  const exact = new Float64Array(nibbles * 16);
  let widest = 0;
  for (let p = 0; p < nibbles; p++) {
    let lowest = 0;
    for (let b = 0; b < 4; b++) lowest -= Math.abs(y[p * 4 + b] ?? 0);
    for (let v = 0; v < 16; v++) {
      let sum = 0;
      for (let b = 0; b < 4; b++) sum += (v >> b) & 1 ? (y[p * 4 + b] ?? 0) : -(y[p * 4 + b] ?? 0);
      exact[p * 16 + v] = sum - lowest;
    }
    widest = Math.max(widest, -2 * lowest);
  }
  const top = Math.min(127, Math.floor(65535 / nibbles));
  const scale = widest > 0 ? top / widest : 0;
  const tables = new Uint8Array(exact.length);
  for (let i = 0; i < exact.length; i++) tables[i] = Math.min(top, Math.max(0, Math.round(exact[i]! * scale)));
  return tables;
}

/**
 * Word w of four consecutive codes (a0..a3, each holding bytes 4w..4w + 3 of its code), written
 * as four words: byte 4w + b of the four codes, in code order, at word `at + 4b`.
 */
function transpose(words: Uint32Array, at: number, a0: number, a1: number, a2: number, a3: number): void {
  for (let b = 0, at2 = at; b < 32; b += 8, at2 += 4) {
    words[at2] = ((a0 >>> b) & 255) | (((a1 >>> b) & 255) << 8) | (((a2 >>> b) & 255) << 16) | ((a3 >>> b) << 24);
  }
}

export class SignCodes {
  /** How many codes are held. */
  count = 0;
  private readonly wasm: FastScanExports;
  private readonly histogramAt: number;
  private readonly codesAt: number;
  private bytesView: Uint8Array;

  constructor(readonly bytes: number) {
    compiled ??= new WebAssembly.Module(fastScanWasm);
    this.wasm = new WebAssembly.Instance(compiled).exports as unknown as FastScanExports;
    this.histogramAt = roundUp(bytes * 32, 16);
    this.codesAt = this.histogramAt + BINS * 4;
    this.bytesView = new Uint8Array(this.wasm.memory.buffer);
  }

  private groupsOf(count: number): number {
    return Math.ceil(count / 16);
  }

  /** Memory for `codes` codes and a query's scores and `kept` places: grown, never shrunk. */
  reserve(codes: number, kept = 0): void {
    const needed = this.codesAt + this.groupsOf(codes) * 16 * (this.bytes + 2) + kept * 4;
    const have = this.wasm.memory.buffer.byteLength;
    if (needed > have) this.wasm.memory.grow(Math.ceil((needed - have) / PAGE));
    if (this.bytesView.buffer !== this.wasm.memory.buffer) this.bytesView = new Uint8Array(this.wasm.memory.buffer);
  }

  /**
   * Appends a block's sign bits (its heads word by word, its tails code by code), after the codes
   * held. Four codes at a time where their places allow, as 4 × 4 byte transposes of whole words
   * (a quarter of the memory operations of the byte-wise copy, which handles the codes before and
   * after them); little-endian, as every platform the app ships for is.
   */
  append(block: CodeBlock): void {
    const { size, head, tail } = block;
    this.reserve(this.count + size);
    const headWords = head.length / Math.max(1, size);
    const tailWords = tail.length / Math.max(1, size);
    const first = Math.min(size, (4 - (this.count & 3)) & 3);
    const quadsEnd = first + ((size - first) & ~3);
    this.appendBytes(block, 0, first);
    const words = new Uint32Array(this.bytesView.buffer);
    for (let i = first; i < quadsEnd; i += 4) {
      const c = this.count + i;
      // Byte j of code c is at at(c) + 16j: for c a multiple of 4, byte 4w + b of codes c..c+3 is one word.
      const out = this.at(c) >> 2;
      for (let w = 0; w < headWords; w++) {
        const from = w * size + i;
        transpose(words, out + 16 * w, head[from]!, head[from + 1]!, head[from + 2]!, head[from + 3]!);
      }
      for (let w = 0, from = i * tailWords; w < tailWords; w++, from++) {
        transpose(words, out + 16 * (headWords + w), tail[from]!, tail[from + tailWords]!, tail[from + 2 * tailWords]!, tail[from + 3 * tailWords]!);
      }
    }
    this.appendBytes(block, quadsEnd, size);
    this.count += size;
  }

  /** Codes `from` to `to` of a block, byte by byte (the count not yet moved on). */
  private appendBytes(block: CodeBlock, from: number, to: number): void {
    const { size } = block;
    const memory = this.bytesView;
    const head = new Uint8Array(block.head.buffer, block.head.byteOffset, block.head.byteLength);
    const tail = new Uint8Array(block.tail.buffer, block.tail.byteOffset, block.tail.byteLength);
    const headBytes = (block.head.length / Math.max(1, size)) * 4;
    const tailBytes = this.bytes - headBytes;
    for (let i = from; i < to; i++) {
      const at = this.at(this.count + i);
      // Byte j of a code's head is byte j & 3 of word j >> 2, that word at (j >> 2) · size + i.
      for (let j = 0; j < headBytes; j++) memory[at + j * 16] = head[(((j >> 2) * size + i) << 2) | (j & 3)]!;
      for (let j = 0, start = i * tailBytes; j < tailBytes; j++) memory[at + (headBytes + j) * 16] = tail[start + j]!;
    }
  }

  /** The memory holding the codes (replaced when it grows): byte j of code c at at(c) + 16 · j. */
  get memory(): Uint8Array {
    return this.bytesView;
  }

  at(c: number): number {
    return this.codesAt + (c >> 4) * this.bytes * 16 + (c & 15);
  }

  /** Byte j of code c. */
  byte(c: number, j: number): number {
    return this.bytesView[this.at(c) + j * 16]!;
  }

  /**
   * The places of the `keep` codes with the highest sums through `tables` (nibbleTables), in the
   * order they are held: the cut is exact (from a histogram of every sum), and of the codes whose
   * sum equals the cut, the first ones held are kept.
   */
  best(tables: Uint8Array, keep: number): Int32Array {
    const n = this.count;
    keep = Math.min(keep, n);
    const groups = this.groupsOf(n);
    this.reserve(n, keep);
    const memory = this.bytesView;
    memory.set(tables, 0);
    const scoresAt = this.codesAt + groups * 16 * this.bytes;
    const keptAt = scoresAt + groups * 32;
    this.wasm.scan(this.codesAt, groups, this.bytes, 0, scoresAt);
    const histogram = new Uint32Array(memory.buffer, this.histogramAt, BINS);
    histogram.fill(0);
    this.wasm.histogram(scoresAt, n, this.histogramAt);
    let above = 0;
    let cut = BINS - 1;
    while (cut > 0 && above + histogram[cut]! < keep) above += histogram[cut--]!;
    const kept = this.wasm.collect(scoresAt, n, cut, keep - above, keptAt);
    return new Int32Array(memory.buffer, keptAt, kept).slice();
  }

  /** The sums of the first `n` codes through `tables`, as the scan computes them (for tests). */
  sums(tables: Uint8Array): Uint16Array {
    const groups = this.groupsOf(this.count);
    this.reserve(this.count);
    this.bytesView.set(tables, 0);
    const scoresAt = this.codesAt + groups * 16 * this.bytes;
    this.wasm.scan(this.codesAt, groups, this.bytes, 0, scoresAt);
    return new Uint16Array(this.bytesView.buffer, scoresAt, this.count).slice();
  }
}
