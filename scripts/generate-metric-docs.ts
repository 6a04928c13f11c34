// Writes the conventions table of docs/evaluation-metrics.md (between its markers) from
// shared/eval/conventions.ts. A unit test fails when the committed table is stale: run
// `npm run docs:metrics` after changing a convention.
import fs from 'node:fs';
import path from 'node:path';
import { conventionsMarkdown } from '../shared/eval/conventions';

const target = path.join(import.meta.dirname, '..', 'docs', 'evaluation-metrics.md');
const text = fs.readFileSync(target, 'utf8');
const start = '<!-- conventions:start -->';
const end = '<!-- conventions:end -->';
const a = text.indexOf(start);
const b = text.indexOf(end);
if (a < 0 || b < a) throw new Error(`${target}: the markers ${start} and ${end} are missing`);
fs.writeFileSync(target, `${text.slice(0, a + start.length)}\n${conventionsMarkdown()}\n${text.slice(b)}`);
console.log(`Wrote ${path.relative(process.cwd(), target)}`);
