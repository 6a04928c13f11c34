#!/usr/bin/env node
// The `awb` command. The CLI is TypeScript: it runs from a bundle made on first use (bundles.mjs),
// or, when that cannot be made or AWB_FROM_SOURCE=1 asks for it, from the sources through tsx,
// which compiles them on the fly. Either way there is no build step between `npm ci` and `npx awb`.
import { cliBundle, loadModule } from './bundles.mjs';

const { main } = await loadModule(await cliBundle(), () => import('../electron/cli/index.ts'));
await main(process.argv);
