// Runs the offline embedder's worker (TypeScript) in a worker thread under plain Node: from its
// bundle in dist/node when that is current (bin/bundles.mjs; the CLI makes it), else through tsx,
// which compiles the sources on the fly. The desktop app runs dist/electron/embed-worker.cjs
// instead.
import { currentBundle, loadModule } from '../../../bin/bundles.mjs';

await loadModule(currentBundle('embed-worker'), () => import('./embed-worker.ts'));
