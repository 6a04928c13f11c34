import path from 'node:path';
import { listCorpora } from '../../db/queries/corpora';
import { listDatasets } from '../../db/queries/datasets';
import { getSetting, setSetting } from '../../db/queries/settings';
import type { ReadableDB, WritableDB } from '../../db/sql';
import type { Attribution, ImportReport } from '../../shared/api';
import type { ImportFormat } from '../../shared/domain';
import { resourcesDir } from './paths';
import { FORMATS } from './import/formats';
import { importFile } from './import/import-file';
import { embedCorpus } from './retrieval/models';

/** The bundled samples: real records, small, each with its licence (see resources/demo/SOURCES.md). */
export const DEMO_FILES: readonly { file: string; format: ImportFormat; dataset: string }[] = [
  { file: 'musique_ans_train_sample100.json', format: 'musique', dataset: 'MuSiQue train (sample)' },
  { file: 'asqa_dev_sample300.json', format: 'asqa', dataset: 'ASQA dev (sample)' },
  { file: 'ambignq_dev_sample300_full.json', format: 'ambignq', dataset: 'AmbigNQ dev (sample)' },
];

export function demoPath(file: string): string {
  return path.join(resourcesDir(), 'demo', file);
}

/** Whether `seedDemoOnce` would import anything: never seeded, and no dataset. */
export function demoSeedNeeded(db: ReadableDB): boolean {
  return !getSetting<boolean>(db, 'demo_seeded') && listDatasets(db).length === 0;
}

/**
 * Seeds a new, empty database with the demo data, once: a database that was seeded (or that
 * already holds data) is never seeded again, even if its datasets are later removed.
 */
export async function seedDemoOnce(db: WritableDB): Promise<ImportReport[]> {
  if (!demoSeedNeeded(db)) return [];
  const reports: ImportReport[] = [];
  for (const demo of DEMO_FILES) {
    reports.push(await importFile(db, { file: demoPath(demo.file), format: demo.format, dataset: demo.dataset }));
  }
  // Vectors for the demo corpora (offline embedder), so dense and hybrid search work at once.
  for (const corpus of listCorpora(db)) if (corpus.passages > 0) await embedCorpus(db, { corpus: corpus.name, provider: 'offline' });
  setSetting(db, 'demo_seeded', true);
  return reports;
}

export function bundledAttributions(): Attribution[] {
  return DEMO_FILES.map((demo) => {
    const defaults = FORMATS[demo.format].defaults;
    return { name: demo.dataset, licence: defaults.licence, attribution: defaults.attribution, url: defaults.url, bundled: true };
  });
}
