// Large memory pages for the app's own server process (issue 24). A plain ES module, so that the
// launcher (start.mjs) can use it before anything is compiled; the bench's fresh retrieval process
// uses it too, as it stands for that process.
//
// On Linux, memory the process touches for the first time costs a page fault per 4 KiB page; on
// a virtual machine whose host backs guest memory lazily each fault is slow (about 3-4 s per GiB
// on the bench machine). The first dense query at 1M reads 156 MB of codes into new buffers, and
// paid most of its time there. glibc's `glibc.malloc.hugetlb=1` tunable makes malloc ask the
// kernel for transparent huge pages (madvise MADV_HUGEPAGE) on the memory it maps, so such a
// buffer faults in 2 MiB at a time. It is read once at process start, from the environment, so
// the launcher sets it for the process it starts. Where it does nothing: other C libraries and
// systems (the variable is ignored), and Linux with huge pages set to `never` (glibc checks).

import fs from 'node:fs';

const TUNABLE = 'glibc.malloc.hugetlb';

/** `env` with glibc's huge-page tunable added, on Linux, unless the variable already sets it. */
export function withLargePages(env = process.env, platform = process.platform) {
  if (platform !== 'linux') return env;
  const tunables = env.GLIBC_TUNABLES ?? '';
  if (tunables.split(':').some((t) => t.startsWith(`${TUNABLE}=`))) return env;
  return { ...env, GLIBC_TUNABLES: tunables ? `${tunables}:${TUNABLE}=1` : `${TUNABLE}=1` };
}

/** The kernel's transparent huge page mode (`always`, `madvise` or `never`), or null where there is none to read. */
export function hugePageMode(file = '/sys/kernel/mm/transparent_hugepage/enabled') {
  try {
    return /\[(\w+)\]/.exec(fs.readFileSync(file, 'utf8'))?.[1] ?? null;
  } catch {
    return null;
  }
}
