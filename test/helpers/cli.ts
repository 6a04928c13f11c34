import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import { ROOT } from './db';

export const AWB = path.join(ROOT, 'bin', 'awb.mjs');

/**
 * The user data directory the commands see unless a test names its own: a fresh folder per test
 * process, so no test reads or changes the machine's own workbench.db (which a developer's other
 * checkouts may have migrated differently).
 */
const TEST_HOME = fs.mkdtempSync(path.join(os.tmpdir(), 'awb-cli-home-'));
// Removed after the test file that made it (vitest ends its worker processes without their
// 'exit' event, which left one folder per test file behind), and on exit where there is one.
// The bench's suites import this helper outside vitest, where afterAll throws: there the
// process's exit removes it. Import it at the top of a test file: imported inside a test, its
// hook comes too late to run, and the folder stays.
const removeHome = () => fs.rmSync(TEST_HOME, { recursive: true, force: true });
if (process.env.VITEST) afterAll(removeHome);
process.on('exit', removeHome);
const commandEnv = (env: Record<string, string>) => ({ ...process.env, AWB_HOME: TEST_HOME, ...env });

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `awb ...args` as a user would, in its own process. */
export function awb(args: string[], env: Record<string, string> = {}): CliResult {
  const result = spawnSync(process.execPath, [AWB, ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: commandEnv(env),
    maxBuffer: 64 * 1024 * 1024,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

export function awbJson<T>(args: string[], env: Record<string, string> = {}): { status: number | null; json: T; stderr: string } {
  const result = awb([...args, '--json'], env);
  let json: T;
  try {
    json = JSON.parse(result.stdout) as T;
  } catch {
    throw new Error(`awb ${args.join(' ')} did not print JSON (exit ${result.status}):\n${result.stdout}\n${result.stderr}`);
  }
  return { status: result.status, json, stderr: result.stderr };
}

/**
 * `awb ...` without blocking this process: for tests that also run a server in it. A synchronous
 * spawn stalls that server, and one stalled past its keep-alive timeout closes the connection
 * the next request is already sending on (ECONNRESET).
 */
export function awbAsync(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [AWB, ...args], { cwd: ROOT, env: commandEnv(env) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** `awb ... --json` without blocking this process (see `awbAsync`). */
export async function awbJsonAsync<T>(args: string[], env: Record<string, string> = {}): Promise<{ status: number | null; json: T; stderr: string }> {
  const { status, stdout, stderr } = await awbAsync([...args, '--json'], env);
  try {
    return { status, json: JSON.parse(stdout) as T, stderr };
  } catch {
    throw new Error(`awb ${args.join(' ')} did not print JSON (exit ${status}):\n${stdout}\n${stderr}`);
  }
}

/** Starts `awb serve --port 0` and resolves with its URL once it listens. */
export function startServer(args: string[], env: Record<string, string> = {}): Promise<{ url: string; process: ChildProcess; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, [AWB, 'serve', '--port', '0', '--json', ...args], {
    cwd: ROOT,
    env: commandEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`awb serve did not start:\n${stderr}`)), 30_000);
    child.stdout!.on('data', (d: Buffer) => {
      stdout += d.toString();
      const match = /"url":\s*"([^"]+)"/.exec(stdout);
      if (match) {
        clearTimeout(timer);
        resolve({
          url: match[1]!.replace(/\/$/, ''),
          process: child,
          stop: () =>
            new Promise<void>((done) => {
              if (child.exitCode !== null) return done();
              child.once('exit', () => done());
              child.kill('SIGTERM');
            }),
        });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`awb serve exited with ${code}:\n${stderr}`));
    });
  });
}
