import path from 'node:path';
import type { WritableDB } from '../../../db/sql';
import type { Handlers } from '../../../shared/api';
import type { EventBus } from '../events';
import type { JobRunner } from '../jobs';
import { createRelease, previewRelease } from './create';
import { diffReleases, releaseCard, releaseDetail, releaseList, releaseZip } from './read';
import { verifyRelease } from './verify';

type ReleaseOperation = 'release:preview' | 'release:create' | 'release:list' | 'release:get' | 'release:card' | 'release:verify' | 'release:diff' | 'release:zip';

/**
 * The release domain's handlers. Creating runs as a job on its own connection (`writer`), so its
 * long transaction stays out of sight of the reads the UI keeps making.
 */
export function releaseHandlers(
  db: WritableDB,
  jobs: JobRunner,
  events: EventBus,
  writer: () => { db: WritableDB; release(): void },
  appVersion: string,
): Pick<Handlers, ReleaseOperation> {
  return {
    'release:preview': (draft) => previewRelease(db, draft, appVersion),
    'release:create': (request) => {
      const out = path.resolve(request.out);
      const job = jobs.start('release', `Release ${request.name} ${request.version} to ${path.basename(out)}`, 'instances', async (control) => {
        const connection = writer();
        try {
          const summary = await createRelease(connection.db, { ...request, out }, {
            appVersion,
            signal: control.signal,
            onProgress: (done, total) => control.progress(done, total),
          });
          if (summary.id !== null) events.emit('data:changed', { reason: 'release' });
          return summary;
        } finally {
          connection.release();
        }
      });
      return { jobId: job.id };
    },
    'release:list': () => releaseList(db),
    'release:get': ({ id }) => releaseDetail(db, id),
    'release:card': ({ id }) => releaseCard(db, id),
    'release:verify': ({ dir }) => verifyRelease(dir),
    'release:diff': ({ a, b, limit }) => diffReleases(db, a, b, limit),
    'release:zip': ({ id }) => releaseZip(db, id),
  };
}
