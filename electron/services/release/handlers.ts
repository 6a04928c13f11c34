import path from 'node:path';
import type { Handlers } from '../../../shared/api';
import { defaultReleaseFolder } from '../../../shared/release/folder';
import type { Workbench } from '../workbench';
import { createRelease, previewRelease } from './create';
import { diffReleases } from './diff';
import { releaseCard, releaseDetail, releaseList, releaseZip } from './read';
import { verifyRelease } from './verify';

type ReleaseOperation = 'release:preview' | 'release:create' | 'release:list' | 'release:get' | 'release:card' | 'release:verify' | 'release:diff' | 'release:zip';

/**
 * The release domain's handlers. Creating runs as a job on its own connection (`writerJob`), so its
 * long transaction stays out of sight of the reads the UI keeps making.
 */
export function releaseHandlers(workbench: Workbench): Pick<Handlers, ReleaseOperation> {
  const db = workbench.db;
  const appVersion = workbench.options.version;
  return {
    'release:preview': (draft) => previewRelease(db, draft, appVersion),
    'release:create': (request) => {
      const databasePath = workbench.options.databasePath === ':memory:' ? path.resolve('awb.db') : workbench.options.databasePath;
      const out = path.resolve(request.out ?? defaultReleaseFolder(databasePath, request.name, request.version));
      return workbench.writerJob('release', `Release ${request.name} ${request.version} to ${path.basename(out)}`, 'instances', async (writer, control) => {
        const summary = await createRelease(writer, { ...request, out }, {
          appVersion,
          signal: control.signal,
          onProgress: (done, total) => control.progress(done, total),
        });
        if (summary.id !== null) workbench.events.emit('data:changed', { reason: 'release' });
        return summary;
      });
    },
    'release:list': () => releaseList(db),
    'release:get': ({ id }) => releaseDetail(db, id),
    'release:card': ({ id }) => releaseCard(db, id),
    'release:verify': ({ dir }) => verifyRelease(dir),
    'release:diff': ({ a, b, limit, kinds }) => diffReleases(db, a, b, limit, kinds),
    'release:zip': ({ id }) => releaseZip(db, id),
  };
}
