// Writes resources/schema/awb-instance-1.schema.json from the zod definitions in
// shared/awb-format.ts, so the published JSON Schema and the importer can never disagree.
// A unit test fails when the committed file is stale: run `npm run schema` after a change.
import fs from 'node:fs';
import path from 'node:path';
import { awbJsonSchema } from '../shared/awb-schema';

const target = path.join(import.meta.dirname, '..', 'resources', 'schema', 'awb-instance-1.schema.json');
fs.writeFileSync(target, `${JSON.stringify(awbJsonSchema(), null, 2)}\n`);
console.log(`Wrote ${path.relative(process.cwd(), target)}`);
