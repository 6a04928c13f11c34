// Bundles the Electron main process, the preload script and the services worker into
// dist/electron as CommonJS (what Electron loads), leaving native modules external.
import { build } from 'esbuild';

const common = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  sourcemap: true,
  external: ['electron', 'better-sqlite3', 'sqlite-vec'],
  logLevel: 'warning',
  // paths.ts reads import.meta.url only when AWB_APP_ROOT is unset; main.ts always sets it.
  define: { 'import.meta.url': '""' },
};

await build({
  ...common,
  entryPoints: {
    main: 'electron/main.ts',
    preload: 'electron/preload.ts',
    worker: 'electron/transport/worker.ts',
    'retrieval-worker': 'electron/services/pipeline/retrieval-worker.ts',
  },
  outdir: 'dist/electron',
  outExtension: { '.js': '.cjs' },
});
console.log('Built dist/electron/{main,preload,worker,retrieval-worker}.cjs');
