// Right after `npm ci` on a clean checkout (no UI built, nothing else installed), the commands
// the README gives work as typed: `npx awb --help`, `npx awb serve`, `npm start` and
// `npm run bench -- --quick`. Each runs in its own process, as a user would start it, with its
// data in a throwaway home folder. Exits non-zero, naming the command, when one does not work.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const home = fs.mkdtempSync(path.join(os.tmpdir(), 'awb-fresh-'));
const env = { ...process.env, AWB_HOME: home };
const onWindows = process.platform === 'win32';

/** Runs a command to its end; resolves with its exit code and output. */
function runToEnd(command, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: root, env, shell: onWindows });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

/**
 * Starts a server command and resolves with its URL once it prints "running at URL", and a stop
 * function that ends it and its children (npm start runs awb serve under it).
 */
function startServer(command, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: root, env, shell: onWindows, detached: !onWindows });
    let output = '';
    const stop = () =>
      new Promise((done) => {
        if (child.exitCode !== null) return done();
        child.once('exit', () => done());
        if (onWindows) child.kill();
        else process.kill(-child.pid, 'SIGTERM');
      });
    const look = (chunk) => {
      output += chunk;
      const found = /running at (http:\/\/\S+)/.exec(output);
      if (found) resolve({ url: found[1].replace(/\/$/, ''), stop, output: () => output });
    };
    child.stdout.on('data', look);
    child.stderr.on('data', look);
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`exited (${code}) before serving:\n${output}`)));
  });
}

async function call(base, operation, input = {}) {
  const response = await fetch(`${base}/api/${operation}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(input) });
  const result = await response.json();
  if (!result.ok) throw new Error(`${operation}: ${result.error.message}`);
  return result.value;
}

async function pageOf(base) {
  const response = await fetch(`${base}/`);
  const html = await response.text();
  if (response.status !== 200 || !html.includes('<div id="root">')) throw new Error(`GET ${base}/ gave ${response.status}:\n${html.slice(0, 300)}`);
}

const steps = [
  [
    'npx awb --help',
    async () => {
      const { code, output } = await runToEnd('npx', ['awb', '--help']);
      if (code !== 0 || !/Usage: awb/.test(output) || !/\bserve\b/.test(output)) throw new Error(`exit ${code}:\n${output}`);
    },
  ],
  [
    'npx awb serve',
    async () => {
      const server = await startServer('npx', ['awb', 'serve', '--port', '0', '--db', path.join(home, 'serve.db')]);
      try {
        await pageOf(server.url);
        const datasets = await call(server.url, 'dataset:list');
        if (!Array.isArray(datasets)) throw new Error(`dataset:list gave ${JSON.stringify(datasets)}`);
      } finally {
        await server.stop();
      }
    },
  ],
  [
    'npm start',
    async () => {
      const server = await startServer('npm', ['start', '--', '--port', '0']);
      try {
        if (!/browser mode/.test(server.output())) throw new Error(`expected browser mode (no Electron binary here):\n${server.output()}`);
        await pageOf(server.url);
        const datasets = await call(server.url, 'dataset:list');
        if (datasets.length < 3) throw new Error(`the demo data was not seeded: ${JSON.stringify(datasets)}`);
      } finally {
        await server.stop();
      }
    },
  ],
  [
    'npm run bench -- --quick',
    async () => {
      const { code, output } = await runToEnd('npm', ['run', 'bench', '--', '--quick']);
      if (code !== 0) throw new Error(`exit ${code}:\n${output.slice(-3000)}`);
      const latest = JSON.parse(fs.readFileSync(path.join(root, 'bench-results', 'latest.json'), 'utf8'));
      // Every suite ran (each in its own process) and finished (test/bench/results.ts has the shape).
      const suites = latest.suites.map((s) => s.suite);
      const unfinished = latest.suites.filter((s) => !s.ok).map((s) => s.suite);
      if (!latest.quick || suites.length < 9 || unfinished.length) throw new Error(`bench-results/latest.json has ${suites.join(', ')} (quick: ${latest.quick}; unfinished: ${unfinished.join(', ') || 'none'})`);
    },
  ],
];

let failed = 0;
try {
  for (const [name, step] of steps) {
    const started = Date.now();
    try {
      await step();
      console.log(`ok   ${name} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
    } catch (error) {
      failed++;
      console.log(`FAIL ${name}: ${error.message}`);
    }
  }
} finally {
  fs.rmSync(home, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
