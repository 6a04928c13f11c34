import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/db';

// The dependency direction of ARCHITECTURE.md and "all SQL in db/" are lint rules; these cases
// show they bite, on every way of reaching a module, and let through what the layers allow.
const eslint = new ESLint({ cwd: ROOT });

async function problems(file: string, code: string, rule = 'layers/imports'): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: `${ROOT}/${file}` });
  return (result?.messages ?? []).filter((m) => m.ruleId === rule).map((m) => m.message);
}

const sqlProblems = (file: string, code: string) => problems(file, code, 'layers/sql');

describe('layering lint rules', () => {
  it('keep shared/ free of Node, Electron and the other layers', async () => {
    expect(await problems('shared/x.ts', "import fs from 'node:fs';\nexport const a = fs;\n")).toHaveLength(1);
    expect(await problems('shared/x.ts', "import { openDatabase } from '../db/connection';\nexport const a = openDatabase;\n")).toHaveLength(1);
    expect(await problems('shared/x.ts', "import { z } from 'zod';\nexport const a = z;\n")).toEqual([]);
  });

  it('let the renderer reach only shared/', async () => {
    expect(await problems('renderer/x.ts', "import { openDatabase } from '../db/connection';\nexport const a = openDatabase;\n")).toHaveLength(1);
    expect(await problems('renderer/views/x.ts', "import { Workbench } from '../../electron/services';\nexport const a = Workbench;\n")).toHaveLength(1);
    expect(await problems('renderer/x.ts', "import Database from 'better-sqlite3';\nexport const a = Database;\n")).toHaveLength(1);
    expect(await problems('renderer/x.ts', "import { AMBIGUITY_TYPES } from '../shared/domain';\nexport const a = AMBIGUITY_TYPES;\n")).toEqual([]);
  });

  it('keep db/ from the electron layer and electron imports to electron/desktop/', async () => {
    expect(await problems('db/x.ts', "import { Workbench } from '../electron/services';\nexport const a = Workbench;\n")).toHaveLength(1);
    expect(await problems('electron/services/x.ts', "import { app } from 'electron';\nexport const a = app;\n")).toHaveLength(1);
    expect(await problems('electron/desktop/main.ts', "import { app } from 'electron';\nexport const a = app;\n")).toEqual([]);
    expect(await problems('electron/services/x.ts', "import { openDatabase } from '../../db/connection';\nexport const a = openDatabase;\n")).toEqual([]);
  });

  it('catch dynamic import(), require(), import types and re-exports as well as static imports', async () => {
    expect(await problems('shared/x.ts', "export const load = () => import('../db/connection');\n")).toEqual([
      "shared/ imports nothing from the other layers. ('../db/connection')",
    ]);
    expect(await problems('renderer/x.ts', "export const load = () => import(`node:fs`);\n")).toHaveLength(1);
    expect(await problems('electron/services/retrieval/x.ts', "export const load = () => import('electron');\n")).toHaveLength(1);
    expect(await problems('shared/x.ts', "const fs = require('node:fs');\nexport const a = fs;\n")).toHaveLength(1);
    expect(await problems('shared/x.ts', "export type W = typeof import('../electron/services').Workbench;\n")).toHaveLength(1);
    expect(await problems('db/x.ts', "export * from '../electron/services';\n")).toHaveLength(1);
    expect(await problems('db/x.ts', "export { Workbench } from '../electron/services';\n")).toHaveLength(1);
    // A computed path cannot be checked, so it is refused.
    expect(await problems('electron/services/x.ts', "export const load = (name: string) => import(name);\n")).toEqual([
      'import() of a computed path escapes the layer rules: import a literal path.',
    ]);
    expect(await problems('renderer/x.ts', "export const load = () => import('./views/Other');\n")).toEqual([]);
  });

  it('hold for electron/desktop/main.ts too', async () => {
    expect(await problems('electron/desktop/main.ts', "import { App } from '../../renderer/App';\nexport const a = App;\n")).toHaveLength(1);
    expect(await problems('electron/desktop/main.ts', "export const load = () => import('../../renderer/App');\n")).toHaveLength(1);
    expect(await problems('electron/desktop/main.ts', "import { ServiceHost } from '../transport/worker-client';\nexport const a = ServiceHost;\n")).toEqual([]);
  });

  it('keep the direction inside electron/: CLI and transports above services, services above none of them', async () => {
    const cases: [file: string, specifier: string][] = [
      ['electron/services/x.ts', '../cli'],
      ['electron/services/x.ts', '../cli/common'],
      ['electron/services/annotation/x.ts', '../../cli/client.ts'],
      ['electron/services/x.ts', '../transport/http'],
      ['electron/services/retrieval/x.ts', '../../transport/worker'],
      ['electron/services/x.ts', '../desktop/main'],
      ['electron/services/x.ts', '../desktop/preload'],
      ['electron/transport/x.ts', '../cli/common'],
      ['electron/transport/x.ts', '../desktop/main'],
      ['electron/cli/index.ts', '../desktop/main'],
      ['electron/services/pipeline/x.ts', '../../dev/fake-model'],
      ['electron/transport/x.ts', '../dev/fake-model'],
      ['electron/dev/x.ts', '../services/record-reader'],
      ['electron/dev/x.ts', '../../db/connection'],
      // Service domains meet only along the declared seams, and never through another's handlers.
      ['electron/services/annotation/x.ts', '../failures/flags'],
      ['electron/services/retrieval/x.ts', '../pipeline/llm'],
      ['electron/services/failures/x.ts', '../evaluation/handlers'],
    ];
    for (const [file, specifier] of cases) {
      expect(await problems(file, `import * as m from '${specifier}';\nexport const a = m;\n`), `${file} -> ${specifier}`).toHaveLength(1);
      expect(await problems(file, `export const load = () => import('${specifier}');\n`), `${file} -> import(${specifier})`).toHaveLength(1);
    }
    const allowed: [file: string, specifier: string][] = [
      ['electron/cli/index.ts', '../services'],
      ['electron/cli/index.ts', '../transport/http'],
      ['electron/cli/index.ts', '../dev/fake-model'],
      ['electron/cli/client.ts', './common'],
      ['electron/transport/worker.ts', '../services'],
      ['electron/services/x.ts', './retrieval/search'],
      ['electron/services/x.ts', './paths'],
      ['electron/services/index.ts', './evaluation/handlers'],
      ['electron/services/failures/x.ts', '../evaluation/items'],
      ['electron/services/pipeline/x.ts', '../retrieval/search'],
      ['electron/services/pipeline/x.ts', '../jobs'],
      ['electron/dev/x.ts', '../../shared/api'],
    ];
    for (const [file, specifier] of allowed) {
      expect(await problems(file, `import * as m from '${specifier}';\nexport const a = m;\n`), `${file} -> ${specifier}`).toEqual([]);
    }
  });
});

describe('the SQL lint rule', () => {
  it('refuses sql templates, prepared statements and query runners in electron/', async () => {
    expect(await sqlProblems('electron/services/x.ts', "declare const sql: (s: TemplateStringsArray) => string;\nexport const q = sql`SELECT 1`;\n")).toHaveLength(1);
    expect(await sqlProblems('electron/cli/index.ts', "declare const sql: { id: (s: TemplateStringsArray) => string };\nexport const q = sql.id`x`;\n")).toHaveLength(1);
    expect(await sqlProblems('electron/services/x.ts', "declare const db: { prepare(s: string): unknown };\nexport const q = db.prepare('SELECT 1');\n")).toHaveLength(1);
    expect(await sqlProblems('electron/services/x.ts', "declare const db: { exec(s: string): void };\ndb.exec('BEGIN IMMEDIATE');\n")).toHaveLength(1);
    expect(await sqlProblems('electron/services/x.ts', "declare const db: { exec(s: string): void };\ndb.exec(`DELETE FROM t`);\n")).toHaveLength(1);
    expect(await sqlProblems('electron/services/x.ts', "declare const db: { pragma(s: string): void };\ndb.pragma('optimize');\n")).toHaveLength(1);
    // A regular expression's exec is not SQL.
    expect(await sqlProblems('electron/services/x.ts', "export const m = (text: string) => [/a(b)/.exec(text), /c/.exec('c'), new RegExp('d').exec(text)];\n")).toEqual([]);
    expect(
      await sqlProblems('electron/services/retrieval/x.ts', "import { all, transaction, type WritableDB } from '../../../db/sql';\nexport const a = [all, transaction] as const;\nexport type W = WritableDB;\n"),
    ).toEqual(['All SQL lives in db/: write a function in db/queries/ and call it. (only transactions and types come from db/sql)']);
    expect(await sqlProblems('electron/services/x.ts', "export const load = () => import('../../db/sql');\n")).toHaveLength(1);
  });

  it('lets db/ write SQL, and electron/ take transactions and handle types', async () => {
    expect(await sqlProblems('db/queries/x.ts', "import { all, sql, type ReadableDB } from '../sql';\nexport const f = (db: ReadableDB) => all(db, sql`SELECT 1`);\n")).toEqual([]);
    expect(await sqlProblems('electron/services/x.ts', "import { transaction, type WritableDB } from '../../db/sql';\nexport const f = (db: WritableDB) => transaction(db, () => 1);\n")).toEqual([]);
    expect(await sqlProblems('electron/services/x.ts', "import { beginWrite, commit, rollback } from '../../db/sql';\nexport const f = [beginWrite, commit, rollback];\n")).toEqual([]);
    expect(await sqlProblems('electron/services/x.ts', "import type { ReadableDB } from '../../db/sql';\nexport type R = ReadableDB;\n")).toEqual([]);
  });
});

describe('the size lint rules', () => {
  /** A file of `n` lines (a comment and blank lines count too). */
  const fileOf = (n: number) => `${'// a line\n'.repeat(Math.max(0, n - 1))}export const a = 1;\n`;
  /** A function of `n` lines, braces included. */
  const functionOf = (n: number) => `export function f(): number {\n${'  // a step\n'.repeat(n - 3)}  return 1;\n}\n`;
  const sizeProblems = (file: string, code: string, rule: string) => problems(file, code, rule);

  it('refuse a source file over 450 lines, comments and blank lines counted', async () => {
    for (const file of ['electron/services/x.ts', 'db/queries/x.ts', 'shared/x.ts', 'renderer/views/X.tsx', 'scripts/x.mjs']) {
      expect(await sizeProblems(file, fileOf(451), 'max-lines'), file).toHaveLength(1);
      expect(await sizeProblems(file, fileOf(450), 'max-lines'), file).toEqual([]);
    }
    expect(await sizeProblems('shared/x.ts', `${'\n'.repeat(449)}export const a = 1;\n// one more\n`, 'max-lines')).toHaveLength(1);
  });

  it('hold the renderer files once let over it, now split, to it like every other', async () => {
    for (const file of ['renderer/views/CampaignsView.tsx', 'renderer/views/InstanceView.tsx', 'renderer/views/releases/ReleasesView.tsx', 'renderer/views/failures/FailureItem.tsx'])
      expect(await sizeProblems(file, fileOf(451), 'max-lines'), file).toHaveLength(1);
  });

  it('refuse a function over 150 lines in electron/, db/ and shared/, but not a migration', async () => {
    for (const file of ['electron/services/x.ts', 'electron/cli/x.ts', 'db/queries/x.ts', 'shared/x.ts']) {
      expect(await sizeProblems(file, functionOf(151), 'max-lines-per-function'), file).toHaveLength(1);
      expect(await sizeProblems(file, functionOf(150), 'max-lines-per-function'), file).toEqual([]);
    }
    expect(await sizeProblems('db/migrations/0099-x.ts', functionOf(300), 'max-lines-per-function')).toEqual([]);
  });
});
