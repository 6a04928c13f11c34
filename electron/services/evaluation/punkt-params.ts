import fs from 'node:fs';
import path from 'node:path';
import { AppError } from '../../../shared/api';
import { PUNKT_BUILTIN, punktParamsFromTab, type PunktParams } from '../../../shared/eval/punkt';

/**
 * The Punkt parameters ROUGE-L's sentence split uses: NLTK's own English ones when `AWB_PUNKT_DIR`
 * names a `punkt_tab/english` folder (abbrev_types.txt, collocations.tab, ortho_context.tab,
 * sent_starters.txt), else the built-in ones. Read once per process.
 */

let cached: { dir: string | undefined; params: PunktParams } | null = null;

function readTab(dir: string): PunktParams {
  const read = (name: string, required: boolean) => {
    const file = path.join(dir, name);
    if (!fs.existsSync(file)) {
      if (required) throw new AppError('invalid_input', `AWB_PUNKT_DIR=${dir}: no ${name} there (expected NLTK's punkt_tab/english folder)`);
      return '';
    }
    return fs.readFileSync(file, 'utf8');
  };
  return punktParamsFromTab(
    { abbrevTypes: read('abbrev_types.txt', true), collocations: read('collocations.tab', false), orthoContext: read('ortho_context.tab', true), sentStarters: read('sent_starters.txt', false) },
    `nltk punkt_tab at ${dir}`,
  );
}

export function punktParams(): PunktParams {
  const dir = process.env.AWB_PUNKT_DIR || undefined;
  if (!cached || cached.dir !== dir) cached = { dir, params: dir ? readTab(path.resolve(dir)) : PUNKT_BUILTIN };
  return cached.params;
}
