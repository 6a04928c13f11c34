import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ChildResult } from './suite-child';

const HERE = path.dirname(fileURLToPath(import.meta.url));

/** Where a suite lives: its module (beside this file, or any path) and the function it exports. */
export interface SuiteSpec {
  module: string;
  export: string;
}

export interface SuiteRun extends Omit<ChildResult, 'peakRssMb' | 'cpuSeconds'> {
  seconds: number;
  peakRssMb: number | null;
  cpuSeconds: number | null;
}

/**
 * Runs one suite in a child process (its output goes to this process's), in a directory of its
 * own under `dir` that is removed afterwards. A suite that throws, exits early or is killed comes
 * back as ok: false with the reason; it never throws here.
 */
export async function runSuiteInChild(spec: SuiteSpec, options: { dir: string; quick: boolean; stdio?: 'inherit' | 'ignore' }): Promise<SuiteRun> {
  const dir = fs.mkdtempSync(path.join(options.dir, 'suite-'));
  const resultFile = path.join(dir, 'result.json');
  const started = performance.now();
  const args = ['--import', 'tsx', path.join(HERE, 'suite-child.ts'), path.resolve(HERE, spec.module), spec.export, resultFile, dir, options.quick ? 'quick' : 'full'];
  const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: options.stdio ?? 'inherit' });
    child.once('error', reject);
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  const seconds = (performance.now() - started) / 1000;
  try {
    const result = readResult(resultFile);
    if (!result) return { ok: false, error: `the suite's process ended (${exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`}) without a result`, measurements: [], seconds, peakRssMb: null, cpuSeconds: null };
    if (result.ok && exit.code !== 0) return { ...result, ok: false, error: `the suite's process exited with code ${exit.code} after its result`, seconds };
    return { ...result, seconds };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function readResult(file: string): ChildResult | null {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as ChildResult;
  } catch {
    return null;
  }
}
