// Type-checks electron/desktop/main.ts and preload.ts against Electron's own type definitions,
// which ship inside the `electron` package. That package is optional (its install downloads a
// binary, which fails offline); .ci/run installs it with ELECTRON_SKIP_BINARY_DOWNLOAD=1 so the
// types are there. Without the package there is nothing to check against, and this says so.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
if (!fs.existsSync(path.join(root, 'node_modules', 'electron', 'electron.d.ts'))) {
  console.warn(
    'typecheck: the optional `electron` package is not installed, so electron/desktop/main.ts and preload.ts were not type-checked.\n' +
      'Install it with `ELECTRON_SKIP_BINARY_DOWNLOAD=1 npm ci` (as .ci/run does) to check them.',
  );
  process.exit(0);
}
const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const result = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.electron.json'], { cwd: root, stdio: 'inherit' });
process.exit(result.status ?? 1);
