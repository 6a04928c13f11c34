#!/usr/bin/env node
// The `awb` command. The CLI is TypeScript; tsx compiles it on the fly, so there is no build step
// between `npm ci` and `npx awb`.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../electron/cli/index.ts');
await main(process.argv);
