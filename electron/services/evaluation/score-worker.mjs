// Runs the scoring worker (TypeScript) in a worker thread under plain Node: tsx compiles it on the
// fly, as bin/awb.mjs does for the CLI. The desktop app runs the bundled .cjs instead.
import { register } from 'tsx/esm/api';

register();
await import('./score-worker.ts');
