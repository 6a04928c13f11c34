// Runs the background checkpoint (TypeScript) in a worker thread under plain Node: from its bundle
// in dist/node when that is current (bin/bundles.mjs; the CLI makes it), else through tsx, which
// compiles the sources on the fly. The desktop app runs dist/electron/checkpoint-worker.cjs
// instead.
import { currentBundle, loadModule } from '../../bin/bundles.mjs';

await loadModule(currentBundle('checkpoint-worker'), () => import('./checkpoint-worker.ts'));
