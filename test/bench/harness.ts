import os from 'node:os';
import { openDatabase } from '../../db/connection';
import { engineVersions } from '../../db/connection';
import { hugePageMode } from '../../scripts/large-pages.mjs';

/** What a sized figure counts: the data size it belongs to. */
export type SizeUnit = 'instances' | 'passages' | 'judgments' | 'questions' | 'records' | 'items';

export interface Measurement {
  name: string;
  value: number;
  unit: string;
  /** A target from the issues; the bench prints whether it is met. */
  target?: { max?: number; min?: number } | undefined;
  /**
   * A short kebab-case key, stable across runs (the docs and the history match rows by it). Left
   * out, it is `series-size` for a sized row, else the name made kebab-case.
   */
  id?: string | undefined;
  /** For a ratio: the id of the row (same suite, same run) it is measured against. */
  baseline?: string | undefined;
  /** The data size this figure belongs to. */
  size?: { count: number; of: SizeUnit } | undefined;
  /** The same cost measured at several sizes shares a series; the bench reports how it grows. */
  series?: string | undefined;
  /** A cost per query, which should stay constant or logarithmic as the data grows. */
  perQuery?: boolean | undefined;
  /** The memory of a streaming job (an import, an export), which should stay flat as the data grows. */
  streaming?: boolean | undefined;
  /** On a growth row: the pair of sizes it was computed from. */
  growth?: GrowthPair | undefined;
}

export interface GrowthPair {
  series: string;
  of: SizeUnit;
  from: { size: number; value: number };
  to: { size: number; value: number };
}

export interface BenchContext {
  dir: string;
  quick: boolean;
  log: (message: string) => void;
}

/** A per-query cost or a streaming job's memory that grows faster than this exponent is flagged. */
export const PER_QUERY_EXPONENT = 0.5;

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (p / 100) * (sorted.length - 1);
  const low = Math.floor(rank);
  const high = Math.ceil(rank);
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (rank - low);
}

/** 100k, 1M, 2.5k, 200: how sizes appear in names and ids. */
export function sizeLabel(count: number): string {
  if (count >= 1_000_000) return `${+(count / 1_000_000).toFixed(2)}M`;
  if (count >= 1000) return `${+(count / 1000).toFixed(2)}k`;
  return String(count);
}

/** The exponent b of cost ∝ size^b through two points. */
export function growthExponent(from: { size: number; value: number }, to: { size: number; value: number }): number {
  return Math.log(to.value / from.value) / Math.log(to.size / from.size);
}

export function kebab(text: string): string {
  return text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64)
    .replace(/-+$/, '');
}

/** The id of a sized row in a series: `page-p50-1m`. */
export function sizedId(series: string, count: number): string {
  return `${series}-${kebab(sizeLabel(count))}`;
}

/** Every row with an id, unique in its suite (a repeated one gets -2, -3, ...). */
export function withIds(measurements: readonly Measurement[]): (Measurement & { id: string })[] {
  const seen = new Map<string, number>();
  return measurements.map((m) => {
    const base = m.id ?? (m.series && m.size ? sizedId(m.series, m.size.count) : kebab(m.name) || 'row');
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    return { ...m, id: n === 1 ? base : `${base}-${n}` };
  });
}

/**
 * One growth row per series measured at two sizes or more: the exponent between its smallest and
 * its largest size. A per-query or streaming-memory series is flagged when it grows (see status).
 */
export function growthRows(measurements: readonly Measurement[]): Measurement[] {
  const bySeries = new Map<string, Measurement[]>();
  for (const m of measurements) if (m.series && m.size) bySeries.set(m.series, [...(bySeries.get(m.series) ?? []), m]);
  const rows: Measurement[] = [];
  for (const [series, members] of bySeries) {
    const sorted = [...members].sort((a, b) => a.size!.count - b.size!.count);
    const small = sorted[0]!;
    const large = sorted.at(-1)!;
    if (large.size!.count === small.size!.count) continue;
    const pair: GrowthPair = { series, of: large.size!.of, from: { size: small.size!.count, value: small.value }, to: { size: large.size!.count, value: large.value } };
    rows.push({
      id: `growth-${series}`,
      name: `growth ${sizeLabel(pair.from.size)} → ${sizeLabel(pair.to.size)} ${pair.of}: ${series}${large.perQuery ? ' (per query)' : large.streaming ? ' (streaming memory)' : ''}, b of cost ∝ size^b`,
      value: growthExponent(pair.from, pair.to),
      unit: '',
      perQuery: large.perQuery,
      streaming: large.streaming,
      growth: pair,
    });
  }
  return rows;
}

/**
 * What fresh memory costs this machine: 256 MiB allocated and one byte written per 4 KiB page, as
 * milliseconds per GiB (the best of three). On a virtual machine whose host backs guest memory
 * lazily, or takes freed pages back, each first touch is a fault on the host too: the reference
 * machine took 3.0-3.6 s per GiB on 2026-11-27, about 12 µs a page. Work that allocates a lot
 * (reading a million codes, a release's buffers) slows with it, so the bench prints it with the
 * machine, to read a run's figures against.
 */
export function freshMemoryMsPerGiB(): number {
  const bytes = 256 * 2 ** 20;
  let best = Infinity;
  for (let round = 0; round < 3; round++) {
    const started = performance.now();
    const block = new Uint8Array(bytes);
    for (let i = 0; i < bytes; i += 4096) block[i] = 1;
    best = Math.min(best, ((performance.now() - started) * 2 ** 30) / bytes);
  }
  return best;
}

export function machine(): Record<string, string> {
  const cpus = os.cpus();
  const db = openDatabase(':memory:');
  const versions = engineVersions(db);
  db.close();
  return {
    cpu: `${cpus[0]?.model ?? 'unknown'} × ${cpus.length}`,
    memory: `${(os.totalmem() / 2 ** 30).toFixed(1)} GiB`,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    sqlite: versions.sqlite,
    'sqlite-vec': versions.sqliteVec,
    'fresh memory': `${freshMemoryMsPerGiB().toFixed(0)} ms per GiB`,
    // The kernel's mode; the fresh retrieval process asks for them as `npm start`'s server does.
    'transparent huge pages': hugePageMode() ?? 'none',
  };
}

export type Status = 'meets' | 'misses' | 'none';

/** A growth row whose series should stay flat (per query, or a streaming job's memory). */
function shouldStayFlat(m: Measurement): boolean {
  return !!m.growth && !!(m.perQuery || m.streaming);
}

export function status(m: Measurement): Status {
  // An exponent that could not be computed (a cost of 0 or below at one size) has no verdict.
  if (shouldStayFlat(m)) return !Number.isFinite(m.value) ? 'none' : m.value > PER_QUERY_EXPONENT ? 'misses' : 'meets';
  if (!m.target) return 'none';
  const ok = (m.target.max === undefined || m.value <= m.target.max) && (m.target.min === undefined || m.value >= m.target.min);
  return ok ? 'meets' : 'misses';
}

export function verdict(m: Measurement): string {
  const s = status(m);
  const what = m.perQuery ? 'per query' : 'streaming memory';
  if (shouldStayFlat(m) && s !== 'none') return s === 'meets' ? `${what}: b ≤ ${PER_QUERY_EXPONENT}` : `GROWS: ${what} with b > ${PER_QUERY_EXPONENT}`;
  if (s === 'none') return '';
  const bound = m.target!.max !== undefined ? `≤ ${m.target!.max}` : `≥ ${m.target!.min}`;
  return `${s === 'meets' ? 'meets' : 'MISSES'} target ${bound} ${m.unit}`;
}

export function formatValue(m: { value: number; unit: string }): string {
  const digits = Math.abs(m.value) >= 100 ? 0 : Math.abs(m.value) >= 10 ? 1 : 2;
  return `${m.value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })} ${m.unit}`.trim();
}
