import path from 'node:path';
import type { Handlers } from '../../../shared/api';
import { readConstructionConfig } from '../pipeline/construction-config';
import { EmbeddedRetriever } from '../retrieval/search';
import type { Workbench } from '../workbench';
import { askFirstRun, askFirstRuns, runAskFirst } from './ask-first';

/** The ask-before-answer setting (URASys Table 2): start a run, read one, list them. */
export function askFirstHandlers(workbench: Workbench): Pick<Handlers, 'ask-first:start' | 'ask-first:get' | 'ask-first:list'> {
  return {
    'ask-first:start': ({ config: inline, configPath, ...request }) => {
      const config = readConstructionConfig(inline, configPath === undefined ? undefined : path.resolve(configPath));
      return workbench.writerJob('ask-first', `Ask first · ${request.dataset}`, 'items', (writer, control) =>
        runAskFirst(writer, new EmbeddedRetriever(writer), { ...request, config }, { signal: control.signal, keys: workbench.apiKeys, onProgress: (done, total, detail) => control.progress(done, total, detail) }),
      );
    },
    'ask-first:get': ({ id }) => askFirstRun(workbench.db, id),
    'ask-first:list': () => askFirstRuns(workbench.db),
  };
}
