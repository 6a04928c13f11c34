import { parentPort, workerData } from 'node:worker_threads';
import { dispatch } from '../../shared/api';
import { seedDemoOnce } from '../services/demo';
import { createHandlers, Workbench } from '../services';
import type { HostRequest, HostMessage, HostOptions } from './worker-protocol';

/**
 * The services' home in the desktop app: a worker thread, so that SQLite work (synchronous in
 * better-sqlite3) never blocks the window's main process. Messages in: invoke requests;
 * messages out: results and events.
 */
const options = workerData as HostOptions;
const port = parentPort;
if (!port) throw new Error('worker.ts must run in a worker thread');

const workbench = new Workbench({
  databasePath: options.databasePath,
  mode: 'desktop',
  version: options.version,
  ...(options.pack ? { pack: options.pack } : {}),
  log: (message) => port.postMessage({ type: 'log', message } satisfies HostMessage),
});
const handlers = createHandlers(workbench);
workbench.events.subscribe((message) => port.postMessage({ type: 'event', message } satisfies HostMessage));

const ready = options.seedDemo ? seedDemoOnce(workbench.db).then(() => undefined) : Promise.resolve();

port.on('message', (request: HostRequest) => {
  if (request.type === 'keys') {
    for (const key of Object.keys(workbench.apiKeys)) delete workbench.apiKeys[key];
    Object.assign(workbench.apiKeys, request.keys);
    return;
  }
  if (request.type === 'close') {
    workbench.close();
    port.close();
    return;
  }
  void ready
    .then(() => dispatch(handlers, request.name, request.input))
    .then((result) => port.postMessage({ type: 'result', id: request.id, result } satisfies HostMessage));
});
ready.then(
  () => port.postMessage({ type: 'ready' } satisfies HostMessage),
  (error: unknown) => port.postMessage({ type: 'log', message: `Seeding the demo data failed: ${(error as Error).message}` } satisfies HostMessage),
);
