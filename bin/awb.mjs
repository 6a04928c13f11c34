#!/usr/bin/env node
// The `awb` command. The CLI is TypeScript: it runs from a bundle made on first use (bundles.mjs),
// or, when that cannot be made or AWB_FROM_SOURCE=1 asks for it, from the sources through tsx,
// which compiles them on the fly. Either way there is no build step between `npm ci` and `npx awb`.
import { cliBundle, loadModule } from './bundles.mjs';

const bundle = await cliBundle();
// AWB_DEBUG_BUNDLES=1 says which the run took, on stderr.
if (process.env.AWB_DEBUG_BUNDLES === '1') process.stderr.write(`awb: running ${bundle ?? 'the sources through tsx'}\n`);
const { main } = await loadModule(bundle, () => import('../electron/cli/index.ts'));
await main(process.argv);
