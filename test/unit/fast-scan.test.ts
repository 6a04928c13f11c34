import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { nibbleTables, SignCodes } from '../../electron/services/retrieval/fast-scan';
import { fastScanWasm } from '../../electron/services/retrieval/fast-scan.wasm';
import { layoutBlock, type VectorCode } from '../../shared/retrieval/vector-codes';
import { assembleFastScan, generatedFile, generatedSource } from '../../scripts/fast-scan-wasm';
import { rng } from '../helpers/synthetic';

/**
 * The WebAssembly scan of the sign codes (fast-scan.wat) against a plain JavaScript reading of
 * the same quantised sums, on random codes laid out as the database stores them.
 */

const DIMENSIONS = 384;
const BYTES = 48;

function randomCodes(random: () => number, count: number, bytes = BYTES): VectorCode[] {
  return Array.from({ length: count }, () => ({
    signs: Uint8Array.from({ length: bytes }, () => Math.floor(random() * 256)),
    planes: new Uint8Array(bytes * 2),
    weight: 1,
  }));
}

const blockOf = (codes: VectorCode[], dimensions = DIMENSIONS) => layoutBlock(dimensions, codes.map((_, i) => i + 1), codes);

/** The sum the scan should give a code: each byte's low nibble through table 2j, its high nibble through 2j + 1. */
function referenceSum(tables: Uint8Array, signs: Uint8Array): number {
  let sum = 0;
  for (let j = 0; j < signs.length; j++) sum += tables[32 * j + (signs[j]! & 15)]! + tables[32 * j + 16 + (signs[j]! >> 4)]!;
  return sum;
}

const randomQuery = (random: () => number, length: number) => Float32Array.from({ length }, () => random() * 2 - 1);

describe('the fast-scan module', () => {
  it('is the assembled fast-scan.wat, byte for byte (npm run build:wasm regenerates it)', async () => {
    const assembled = await assembleFastScan();
    expect(Buffer.from(assembled).equals(fastScanWasm)).toBe(true);
    expect(fs.readFileSync(generatedFile, 'utf8')).toBe(generatedSource(assembled));
  });
});

describe('nibble tables', () => {
  it('quantise Σ ±y of each nibble, shifted to start at 0, to at most 127 with one scale (two add up in a byte)', () => {
    const random = rng(5);
    const y = randomQuery(random, BYTES * 8);
    const tables = nibbleTables(y, BYTES);
    let widest = 0;
    for (let p = 0; p < BYTES * 2; p++) widest = Math.max(widest, 2 * [0, 1, 2, 3].reduce((s, b) => s + Math.abs(y[4 * p + b]!), 0));
    const scale = 127 / widest;
    expect(Math.max(...tables)).toBe(127);
    for (let p = 0; p < BYTES * 2; p++) {
      for (let v = 0; v < 16; v++) {
        let exact = 0;
        for (let b = 0; b < 4; b++) exact += ((v >> b) & 1 ? 1 : -1) * y[4 * p + b]! + Math.abs(y[4 * p + b]!);
        expect(Math.abs(tables[p * 16 + v]! - exact * scale)).toBeLessThanOrEqual(0.5 + 1e-9);
      }
    }
  });

  it('keep the sum of a long code within 16 bits', () => {
    const tables = nibbleTables(randomQuery(rng(6), 1536), 192);
    expect(Math.max(...tables) * 384).toBeLessThanOrEqual(65535);
  });
});

describe('the scan of sign codes', () => {
  it('gives every code the sum of its nibbles’ table entries, for any count and over appended blocks', () => {
    const random = rng(11);
    const signs = new SignCodes(BYTES);
    const all: VectorCode[] = [];
    for (const size of [0, 1, 15, 16, 17, 1000, 3]) {
      const codes = randomCodes(random, size);
      if (size > 0) signs.append(blockOf(codes));
      all.push(...codes);
      expect(signs.count).toBe(all.length);
      const tables = nibbleTables(randomQuery(random, BYTES * 8), BYTES);
      expect(Array.from(signs.sums(tables))).toEqual(all.map((code) => referenceSum(tables, code.signs)));
      // And the bytes read back are the codes' bytes.
      all.forEach((code, c) => expect(Array.from({ length: BYTES }, (_, j) => signs.byte(c, j))).toEqual(Array.from(code.signs)));
    }
  });

  it('scores codes of other lengths (a 24-d model: 4 bytes)', () => {
    const random = rng(12);
    const codes = randomCodes(random, 37, 4);
    const signs = new SignCodes(4);
    signs.append(blockOf(codes, 24));
    const tables = nibbleTables(randomQuery(random, 32), 4);
    expect(Array.from(signs.sums(tables))).toEqual(codes.map((code) => referenceSum(tables, code.signs)));
  });
});

describe('the cut of the best codes', () => {
  /** The places of the best `keep` by sum, equal sums in the order held, then in the order held. */
  function referenceBest(sums: number[], keep: number): number[] {
    const order = sums.map((_, i) => i).sort((a, b) => sums[b]! - sums[a]! || a - b);
    return order.slice(0, keep).sort((a, b) => a - b);
  }

  it('keeps exactly the number asked, taking the first held of the codes tied at the cut', () => {
    const random = rng(21);
    // Few distinct codes, so that many sums tie at any cut.
    const distinct = randomCodes(random, 5);
    const codes = Array.from({ length: 403 }, () => distinct[Math.floor(random() * distinct.length)]!);
    const signs = new SignCodes(BYTES);
    signs.append(blockOf(codes.slice(0, 200)));
    signs.append(blockOf(codes.slice(200)));
    const tables = nibbleTables(randomQuery(random, BYTES * 8), BYTES);
    const sums = codes.map((code) => referenceSum(tables, code.signs));
    for (const keep of [0, 1, 50, 81, 200, 402, 403, 500]) {
      const best = Array.from(signs.best(tables, keep));
      expect(best.length).toBe(Math.min(keep, codes.length));
      expect(best).toEqual(referenceBest(sums, keep));
    }
  });

  it('keeps the best of random codes, and nothing when there are none', () => {
    const random = rng(22);
    const codes = randomCodes(random, 777);
    const signs = new SignCodes(BYTES);
    expect(Array.from(signs.best(nibbleTables(randomQuery(random, BYTES * 8), BYTES), 10))).toEqual([]);
    signs.append(blockOf(codes));
    const tables = nibbleTables(randomQuery(random, BYTES * 8), BYTES);
    const sums = codes.map((code) => referenceSum(tables, code.signs));
    expect(Array.from(signs.best(tables, 100))).toEqual(referenceBest(sums, 100));
  });
});
