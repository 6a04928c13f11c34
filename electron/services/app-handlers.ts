import { engineVersions } from '../../db/connection';
import { schemaVersion } from '../../db/migrate';
import { getStats } from '../../db/queries/stats';
import type { Handlers } from '../../shared/api';
import type { Workbench } from './workbench';

/** The app itself: what it runs on, its counts, and the jobs that carry long work. */
export function appHandlers(workbench: Workbench): Pick<Handlers, 'app:info' | 'stats:get' | 'job:list' | 'job:get' | 'job:cancel'> {
  const db = workbench.db;
  return {
    'app:info': () => {
      const versions = engineVersions(db);
      return {
        name: 'Ambiguity Workbench',
        version: workbench.options.version,
        mode: workbench.options.mode,
        databasePath: workbench.options.databasePath,
        schemaVersion: schemaVersion(db),
        sqlite: versions.sqlite,
        sqliteVec: versions.sqliteVec,
        node: process.versions.node,
        pack: workbench.options.pack ?? null,
      };
    },
    'stats:get': () => getStats(workbench.reader),
    'job:list': () => workbench.jobs.list(),
    'job:get': ({ id }) => workbench.jobs.get(id),
    'job:cancel': ({ id }) => workbench.jobs.cancel(id),
  };
}
