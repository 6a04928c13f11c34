import path from 'node:path';
import type { Handlers } from '../../../shared/api';
import { readConstructionConfig } from '../pipeline/construction-config';
import type { Workbench } from '../workbench';
import { buildQaIndex, qaIndexView } from './qa-index';

/** The QA layer beside a corpus (URASys ask-and-augment): build it, and read its counts. */
export function qaLayerHandlers(workbench: Workbench): Pick<Handlers, 'qa-index:build' | 'qa-index:get'> {
  return {
    'qa-index:build': (request) => {
      const config = readConstructionConfig(request.config, request.configPath === undefined ? undefined : path.resolve(request.configPath));
      return workbench.writerJob('qa-index', `QA layer · ${request.corpus}`, 'passages', (writer, control) =>
        buildQaIndex(writer, { ...request, config }, { signal: control.signal, keys: workbench.apiKeys, onProgress: (done, total, detail) => control.progress(done, total, detail) }),
      );
    },
    'qa-index:get': ({ corpus }) => qaIndexView(workbench.db, corpus),
  };
}
