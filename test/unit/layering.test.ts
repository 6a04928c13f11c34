import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/db';

// The dependency direction of ARCHITECTURE.md is a lint rule; these cases show it bites.
const eslint = new ESLint({ cwd: ROOT });

async function problems(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: `${ROOT}/${file}` });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

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

  it('keep db/ from the electron layer and electron imports to main.ts and preload.ts', async () => {
    expect(await problems('db/x.ts', "import { Workbench } from '../electron/services';\nexport const a = Workbench;\n")).toHaveLength(1);
    expect(await problems('electron/services/x.ts', "import { app } from 'electron';\nexport const a = app;\n")).toHaveLength(1);
    expect(await problems('electron/main.ts', "import { app } from 'electron';\nexport const a = app;\n")).toEqual([]);
    expect(await problems('electron/services/x.ts', "import { openDatabase } from '../../db/connection';\nexport const a = openDatabase;\n")).toEqual([]);
  });
});
