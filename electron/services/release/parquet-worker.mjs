// Runs the release's Parquet worker (TypeScript) in a worker thread under plain Node: tsx compiles
// it on the fly, as bin/awb.mjs does for the CLI.
import { register } from 'tsx/esm/api';

register();
await import('./parquet-worker.ts');
