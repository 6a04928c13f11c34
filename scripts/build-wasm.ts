// Writes electron/services/retrieval/fast-scan.wasm.ts from fast-scan.wat (see fast-scan-wasm.ts).
import fs from 'node:fs';
import path from 'node:path';
import { assembleFastScan, generatedFile, generatedSource } from './fast-scan-wasm';

fs.writeFileSync(generatedFile, generatedSource(await assembleFastScan()));
console.log(`Wrote ${path.relative(process.cwd(), generatedFile)}`);
