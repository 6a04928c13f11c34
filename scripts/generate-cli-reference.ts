// Writes docs/cli.md from the `awb` program's own definitions (built, never run). A unit test
// fails when the committed file is stale: run `npm run docs:cli` after changing a command.
import fs from 'node:fs';
import path from 'node:path';
import { buildProgram } from '../electron/cli/index';
import { renderCliReference } from './cli-reference';

const target = path.join(import.meta.dirname, '..', 'docs', 'cli.md');
fs.writeFileSync(target, renderCliReference(buildProgram()));
console.log(`Wrote ${path.relative(process.cwd(), target)}`);
