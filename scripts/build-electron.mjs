// Bundles the Electron main process, the preload script and the worker threads into
// dist/electron as CommonJS (what Electron loads), leaving native modules external.
import { build } from 'esbuild';
import { EXTERNAL, WORKER_ENTRIES } from '../bin/bundles.mjs';

const common = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  sourcemap: true,
  external: ['electron', ...EXTERNAL],
  logLevel: 'warning',
  // paths.ts reads import.meta.url only when AWB_APP_ROOT is unset; main.ts always sets it.
  define: { 'import.meta.url': '""' },
};

await build({
  ...common,
  entryPoints: {
    main: 'electron/desktop/main.ts',
    preload: 'electron/desktop/preload.ts',
    worker: 'electron/transport/worker.ts',
    // The same workers the CLI bundles for plain Node.
    ...WORKER_ENTRIES,
  },
  outdir: 'dist/electron',
  outExtension: { '.js': '.cjs' },
});
console.log(`Built dist/electron/{main,preload,worker,${Object.keys(WORKER_ENTRIES).join(',')}}.cjs`);
