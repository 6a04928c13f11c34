// Which modules of db/ write which table: every INSERT, REPLACE, UPDATE and DELETE in the source
// (migrations aside: they build the schema), grouped by the table it names. The rule is one writer
// module per table; `npx tsx scripts/table-writers.ts` prints the table and marks each table written
// from more than one module, and test/unit/table-writers.test.ts fails on such a table.
//
// A scan of the text, not a parse: it reads the SQL inside `sql` templates (a write whose table is
// a `${sql.id(...)}` fragment is listed under `<dynamic>` so it cannot hide), and it skips the
// `DO UPDATE SET` of an upsert, which writes the table its INSERT already named.
import fs from 'node:fs';
import path from 'node:path';

export interface WriteSite {
  table: string;
  module: string;
  line: number;
  verb: string;
}

const WRITE = /\b(INSERT(?:\s+OR\s+\w+)?\s+INTO|REPLACE\s+INTO|(?<!DO\s)UPDATE(?:\s+OR\s+\w+)?|DELETE\s+FROM)\s+("?[A-Za-z_]\w*"?|\$\{)/g;

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'migrations' ? [] : sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** Every write in the modules under `dbDir`, with the module named relative to `root`. */
export function writeSites(root: string, dbDir = path.join(root, 'db')): WriteSite[] {
  const sites: WriteSite[] = [];
  for (const file of sourceFiles(dbDir)) {
    const text = fs.readFileSync(file, 'utf8');
    for (const match of text.matchAll(WRITE)) {
      const verb = match[1]!.split(/\s+/)[0]!.toUpperCase();
      const target = match[2]!;
      if (verb === 'UPDATE' && target.toUpperCase() === 'SET') continue;
      // A name built at run time: `vec_${id}` is listed as `vec_*`, a whole `${fragment}` as `<dynamic>`.
      const built = text.startsWith('${', match.index + match[0].length);
      const table = target === '${' ? '<dynamic>' : `${target.replaceAll('"', '')}${built ? '*' : ''}`;
      const line = text.slice(0, match.index).split('\n').length;
      sites.push({ table, module: path.relative(root, file), line, verb });
    }
  }
  return sites;
}

/** Table → the modules that write it. */
export function writersByTable(sites: readonly WriteSite[]): Map<string, string[]> {
  const byTable = new Map<string, Set<string>>();
  for (const site of sites) {
    const modules = byTable.get(site.table) ?? new Set<string>();
    modules.add(site.module);
    byTable.set(site.table, modules);
  }
  return new Map([...byTable].sort(([a], [b]) => a.localeCompare(b)).map(([table, modules]) => [table, [...modules].sort()]));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const root = path.join(import.meta.dirname, '..');
  const byTable = writersByTable(writeSites(root));
  let shared = 0;
  for (const [table, modules] of byTable) {
    const mark = modules.length > 1 ? '  <-- more than one writer' : '';
    if (modules.length > 1) shared += 1;
    console.log(`${table.padEnd(28)} ${modules.join(', ')}${mark}`);
  }
  console.log(`\n${byTable.size} tables written; ${shared} with more than one writer module.`);
}
