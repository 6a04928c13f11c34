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

  /** Appends a block's sign bits (its heads word by word, its tails code by code), after the codes held. */
  append(block: CodeBlock): void {
    const { size } = block;
    this.reserve(this.count + size);
    const memory = this.bytesView;
    const head = new Uint8Array(block.head.buffer, block.head.byteOffset, block.head.byteLength);
    const tail = new Uint8Array(block.tail.buffer, block.tail.byteOffset, block.tail.byteLength);
    const headBytes = (block.head.length / Math.max(1, size)) * 4;
    const tailBytes = this.bytes - headBytes;
    for (let i = 0; i < size; i++) {
      const c = this.count + i;
      const at = this.codesAt + (c >> 4) * this.bytes * 16 + (c & 15);
      // Byte j of a code's head is byte j & 3 of word j >> 2, that word at (j >> 2) · size + i.
      for (let j = 0; j < headBytes; j++) memory[at + j * 16] = head[(((j >> 2) * size + i) << 2) | (j & 3)]!;
      for (let j = 0, from = i * tailBytes; j < tailBytes; j++) memory[at + (headBytes + j) * 16] = tail[from + j]!;
    }
    this.count += size;
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
