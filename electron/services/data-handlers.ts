import path from 'node:path';
import { AppError, type Attribution, type Handlers } from '../../shared/api';
import { IMPORT_FORMAT_NAMES } from '../../shared/domain';
import { baseQuestionDetail, baseQuestionFacetsView, baseQuestionPage, instanceDetail, instanceFacets, instancePage, listDatasetSummaries } from './browse';
import { bundledAttributions, demoSeedNeeded, seedDemoOnce } from './demo';
import { exportJsonl } from './export';
import { importFile } from './import/import-file';
import type { Workbench } from './workbench';

type DataOperation =
  | 'dataset:list'
  | 'dataset:seed-demo'
  | 'dataset:attributions'
  | 'dataset:import'
  | 'dataset:export'
  | 'instance:list'
  | 'instance:facets'
  | 'instance:get'
  | 'base-question:list'
  | 'base-question:facets'
  | 'base-question:get';

/** The data itself: datasets in and out (as jobs), and browsing instances and base questions. */
export function dataHandlers(workbench: Workbench): Pick<Handlers, DataOperation> {
  const db = workbench.db;
  const reader = workbench.reader;
  return {
    'dataset:list': () => listDatasetSummaries(reader),
    'dataset:seed-demo': async () => {
      if (!demoSeedNeeded(db)) return [];
      // An import, on the services' own connection: it takes the write gate's turn alone, or says who writes now.
      const leave = workbench.writeGate.tryEnter('exclusive', 'Load the demo data');
      if (!leave) throw new AppError('conflict', `Other jobs are writing (${workbench.writeGate.busyWith().map((t) => `"${t}"`).join(', ')}): load the demo data when they finish.`);
      try {
        const reports = await seedDemoOnce(db);
        if (reports.length) workbench.events.emit('data:changed', { reason: 'seed-demo' });
        return reports;
      } finally {
        leave();
      }
    },
    'dataset:attributions': () => {
      const bundled = bundledAttributions();
      const imported: Attribution[] = listDatasetSummaries(reader)
        .filter((d) => !bundled.some((b) => b.name === d.name))
        .map((d) => ({ name: d.name, licence: d.licence, attribution: d.attribution, url: d.url, bundled: false }));
      return [...bundled, ...imported];
    },
    'instance:list': (query) => instancePage(reader, query),
    'instance:facets': (filter) => instanceFacets(reader, filter),
    'instance:get': ({ id }) => instanceDetail(reader, id),
    'base-question:list': (query) => baseQuestionPage(reader, query),
    'base-question:facets': (filter) => baseQuestionFacetsView(reader, filter),
    'base-question:get': ({ id }) => baseQuestionDetail(reader, id),
    'dataset:import': (request) => {
      const file = path.resolve(request.path);
      return workbench.writerJob('import', `Import ${path.basename(file)} as ${IMPORT_FORMAT_NAMES[request.format]}`, 'bytes', (writer, control) =>
        importFile(writer, {
          file,
          format: request.format,
          ...(request.dataset ? { dataset: request.dataset } : {}),
          skipInvalid: request.skipInvalid,
          ...(request.rejectsFile ? { rejectsFile: path.resolve(request.rejectsFile) } : {}),
          maxRecordBytes: Math.round(request.maxRecordMb * 1024 * 1024),
          signal: control.signal,
          onProgress: ({ bytes, totalBytes }) => control.progress(bytes, totalBytes),
        }),
      );
    },
    'dataset:export': (request) => {
      const file = path.resolve(request.path);
      const job = workbench.jobs.start('export', `Export to ${path.basename(file)}`, 'records', (control) =>
        exportJsonl(reader, {
          file,
          datasets: request.datasets,
          signal: control.signal,
          onProgress: (done, total) => control.progress(done, total),
        }),
      );
      return { jobId: job.id };
    },
  };
}
