// Bundles the Electron main process, the preload script and the worker threads into
// dist/electron as CommonJS (what Electron loads), leaving native modules external.
import { build } from 'esbuild';

const common = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  sourcemap: true,
  external: ['electron', 'better-sqlite3', 'sqlite-vec', '@node-rs/argon2'],
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
    'retrieval-worker': 'electron/services/pipeline/retrieval-worker.ts',
    'release-encoder': 'electron/services/release/encoder-worker.ts',
    'embed-worker': 'electron/services/retrieval/embed-worker.ts',
    'score-worker': 'electron/services/evaluation/score-worker.ts',
  },
  outdir: 'dist/electron',
  outExtension: { '.js': '.cjs' },
});
console.log('Built dist/electron/{main,preload,worker,retrieval-worker,release-encoder,embed-worker,score-worker}.cjs');
