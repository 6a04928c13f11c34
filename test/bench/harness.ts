import os from 'node:os';
import { openDatabase } from '../../db/connection';
import { engineVersions } from '../../db/connection';

export interface Measurement {
  name: string;
  value: number;
  unit: string;
  /** A target from the issues; the bench prints whether it is met. */
  target?: { max?: number; min?: number } | undefined;
}

export interface BenchContext {
  dir: string;
  quick: boolean;
  log: (message: string) => void;
}

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (p / 100) * (sorted.length - 1);
  const low = Math.floor(rank);
  const high = Math.ceil(rank);
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (rank - low);
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
  };
}

export function verdict(m: Measurement): string {
  if (!m.target) return '';
  const ok = (m.target.max === undefined || m.value <= m.target.max) && (m.target.min === undefined || m.value >= m.target.min);
  const bound = m.target.max !== undefined ? `≤ ${m.target.max}` : `≥ ${m.target.min}`;
  return `${ok ? 'meets' : 'MISSES'} target ${bound} ${m.unit}`;
}

export function formatValue(m: Measurement): string {
  const digits = m.value >= 100 ? 0 : m.value >= 10 ? 1 : 2;
  return `${m.value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })} ${m.unit}`;
}
