// Runs the desktop services worker (TypeScript) in a worker thread under plain Node, for tests:
// tsx compiles it on the fly (the desktop app runs dist/electron/worker.cjs).
import { register } from 'tsx/esm/api';

register();
await import('../../electron/transport/worker.ts');
