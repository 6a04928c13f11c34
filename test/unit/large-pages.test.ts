import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { hugePageMode, withLargePages } from '../../scripts/large-pages.mjs';

const ROOT = path.resolve(__dirname, '..', '..');

describe('huge pages for the server process (scripts/large-pages.mjs)', () => {
  it('adds glibc huge-page tunable on Linux, beside any others, and leaves a chosen value alone', () => {
    expect(withLargePages({ PATH: '/bin' }, 'linux')).toEqual({ PATH: '/bin', GLIBC_TUNABLES: 'glibc.malloc.hugetlb=1' });
    expect(withLargePages({ GLIBC_TUNABLES: 'glibc.malloc.arena_max=2' }, 'linux').GLIBC_TUNABLES).toBe('glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1');
    // Someone who turned it off (or chose huge TLB pages, 2) keeps their choice.
    expect(withLargePages({ GLIBC_TUNABLES: 'glibc.malloc.hugetlb=0' }, 'linux').GLIBC_TUNABLES).toBe('glibc.malloc.hugetlb=0');
    expect(withLargePages({ GLIBC_TUNABLES: 'glibc.malloc.arena_max=2:glibc.malloc.hugetlb=2' }, 'linux').GLIBC_TUNABLES).toBe('glibc.malloc.arena_max=2:glibc.malloc.hugetlb=2');
    for (const platform of ['darwin', 'win32'] as const) expect(withLargePages({ PATH: '/bin' }, platform)).toEqual({ PATH: '/bin' });
  });

  it("reads the kernel's mode from its bracketed word, and says null where there is no file", () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'awb-thp-')), 'enabled');
    fs.writeFileSync(file, 'always [madvise] never\n');
    expect(hugePageMode(file)).toBe('madvise');
    fs.writeFileSync(file, '[always] madvise never\n');
    expect(hugePageMode(file)).toBe('always');
    expect(hugePageMode(`${file}-missing`)).toBeNull();
    fs.rmSync(path.dirname(file), { recursive: true });
  });

  it("gives a process started with it huge pages for a large buffer, where this kernel offers them on request", () => {
    // A child fills 64 MiB of new memory and reports how much of its memory is in huge pages.
    const child = (env: NodeJS.ProcessEnv) => {
      const script = `const b = Buffer.alloc(64 * 2 ** 20, 1); const m = /AnonHugePages:\\s+(\\d+) kB/.exec(require('fs').readFileSync('/proc/self/smaps_rollup', 'utf8')); console.log(b[12345] + Number(m ? m[1] : -1));`;
      const result = spawnSync(process.execPath, ['-e', script], { env, encoding: 'utf8' });
      expect(result.status, result.stderr).toBe(0);
      return Number(result.stdout.trim()) - 1;
    };
    const mode = hugePageMode();
    if (process.platform !== 'linux' || mode === null) {
      expect(withLargePages(process.env)).toBe(process.env);
      return;
    }
    const plain = { ...process.env, GLIBC_TUNABLES: '' };
    const withThem = child(withLargePages(plain));
    if (mode === 'never') expect(withThem).toBe(0);
    // Some of it in 2 MiB pages (the kernel falls back to small pages where it has no free 2 MiB).
    else expect(withThem).toBeGreaterThanOrEqual(2048);
    if (mode === 'madvise') expect(child(plain)).toBe(0);
  });

  it('is what `npm start` gives the server it starts, and what the bench gives the process standing for it', () => {
    const start = fs.readFileSync(path.join(ROOT, 'scripts', 'start.mjs'), 'utf8');
    expect(start).toMatch(/'serve', '--seed-demo'[\s\S]{0,120}env: withLargePages\(process\.env\)/);
    const bench = fs.readFileSync(path.join(ROOT, 'test', 'bench', 'retrieval.ts'), 'utf8');
    expect(bench).toMatch(/retrieval-cold[\s\S]*spawnSync\([^\n]*env: withLargePages\(process\.env\)/);
  });
});
