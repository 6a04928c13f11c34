// Runs the pipeline's retrieval worker (TypeScript) in a worker thread under plain Node: from its
// bundle in dist/node when that is current (bin/bundles.mjs; the CLI makes it), else through tsx,
// which compiles the sources on the fly. The desktop app runs dist/electron/retrieval-worker.cjs
// instead.
import { currentBundle, loadModule } from '../../../bin/bundles.mjs';

await loadModule(currentBundle('retrieval-worker'), () => import('./retrieval-worker.ts'));
