import type { Handlers } from '../../shared/api';
import { annotationHandlers } from './annotation/handlers';
import { appHandlers } from './app-handlers';
import { constructionHandlers } from './construction/handlers';
import { labelHandlers } from './labels/handlers';
import { qaLayerHandlers } from './qa-layer/handlers';
import { dataHandlers } from './data-handlers';
import { evaluationHandlers } from './evaluation/handlers';
import { scoringHandlers } from './evaluation/score-handlers';
import { failureHandlers } from './failures/handlers';
import { pipelineHandlers } from './pipeline/handlers';
import { releaseHandlers } from './release/handlers';
import { retrievalHandlers } from './retrieval/handlers';
import { auditWrites } from './team/audit';
import { teamHandlers } from './team/handlers';
import type { Workbench } from './workbench';

export { Workbench, type ServiceOptions } from './workbench';

/**
 * The handlers every client calls through `dispatch`: each domain's map, composed. The type
 * `Handlers` makes sure every operation of the API has its handler here. Writes are audited here,
 * whichever client made them (IPC, HTTP or the CLI): who (the signed-in account over the network,
 * else the owner), when, what, and whether it succeeded.
 */
export function createHandlers(workbench: Workbench): Handlers {
  const handlers: Handlers = {
    ...appHandlers(workbench),
    ...dataHandlers(workbench),
    ...retrievalHandlers(workbench),
    ...annotationHandlers(workbench),
    ...teamHandlers(workbench),
    ...pipelineHandlers(workbench),
    ...evaluationHandlers(workbench),
    ...scoringHandlers(workbench),
    ...releaseHandlers(workbench),
    ...failureHandlers(workbench),
    ...constructionHandlers(workbench),
    ...labelHandlers(workbench),
    ...qaLayerHandlers(workbench),
  };
  return auditWrites(workbench.db, handlers, workbench.events);
}
