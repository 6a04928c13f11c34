import fs from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import { AppError, dispatch, type ImportReport } from '../../shared/api';
import { appRoot, rendererDir, userDataDir } from '../services/paths';
import { rendererOnFirstUse } from './renderer-build';
import { readPack, resultsPath } from '../services/annotation/packs';
import { createHandlers, Workbench } from '../services';
import { createHttpServer, listen } from './http';

/**
 * Browser mode: the services, the UI and the API on one HTTP server (what `awb serve` starts). The
 * operations are the same map the desktop app and the CLI call; only the way in differs.
 */

export interface ServeOptions {
  databasePath: string;
  version: string;
  host: string;
  /** undefined: 4310, or any free port when it is taken. */
  port?: number;
  /** Sign-in even on loopback. */
  team: boolean;
  seedDemo: boolean;
  /** An offline pack to judge (pack mode). */
  pack?: string;
  /** More names people reach the server by (`--allowed-host`). */
  allowedHosts?: readonly string[];
  /** Proxies whose X-Forwarded-* headers are believed (`--trusted-proxy`). */
  trustedProxies?: readonly string[];
  /** Largest upload, in MB (default 512). */
  maxUploadMb?: number;
  /** A config file whose endpoints network callers may use by name (`--endpoints`). */
  endpoints?: string;
  log: (message: string) => void;
}

export interface Serving {
  url: string;
  database: string;
  pack: { file: string; results: string } | null;
  stop(): void;
}

/**
 * The last line of defence: an error no handler caught is logged and the server keeps serving
 * (every request's own failures are answered in http.ts; this catches what escapes them, such as
 * an event listener's). Returns the function that takes it away again.
 */
export function installSafetyNet(log: (message: string) => void, target: Pick<NodeJS.EventEmitter, 'on' | 'off'> = process): () => void {
  const onError = (error: unknown) => log(`awb serve: an unexpected error was caught; the server keeps serving: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  target.on('uncaughtException', onError);
  target.on('unhandledRejection', onError);
  return () => {
    target.off('uncaughtException', onError);
    target.off('unhandledRejection', onError);
  };
}

function readEndpointsFile(file: string | undefined): unknown {
  if (file === undefined) return undefined;
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as unknown;
  } catch (error) {
    throw new AppError('invalid_input', `--endpoints: cannot read ${file} as JSON (${(error as Error).message})`);
  }
}

export async function serve(options: ServeOptions): Promise<Serving> {
  const pack = options.pack ? path.resolve(options.pack) : undefined;
  if (pack) readPack(pack);
  const endpoints = readEndpointsFile(options.endpoints);
  if (options.maxUploadMb !== undefined && !(options.maxUploadMb > 0)) throw new AppError('invalid_input', `--max-upload-mb: expected a positive number, not ${options.maxUploadMb}`);
  const workbench = new Workbench({ databasePath: options.databasePath, mode: 'browser', version: options.version, log: options.log, ...(pack ? { pack } : {}) });
  const handlers = createHandlers(workbench);
  if (options.seedDemo) {
    const seeded = await dispatch(handlers, 'dataset:seed-demo', {});
    if (!seeded.ok) {
      workbench.close();
      throw new AppError(seeded.error.code, seeded.error.message);
    }
    for (const r of seeded.value as ImportReport[]) options.log(`Seeded ${r.dataset}: ${r.imported} records`);
  }
  const port = options.port ?? 4310;
  let server: http.Server;
  try {
    server = createHttpServer({
      handlers,
      events: workbench.events,
      staticDir: rendererDir(),
      // Right after `npm ci` the UI is not built yet: build it for the first page request.
      prepareStatic: rendererOnFirstUse({ outDir: rendererDir(), appRoot: appRoot(), log: options.log }),
      uploadDir: path.join(userDataDir(), 'uploads'),
      host: options.host,
      port,
      team: { db: workbench.db, forced: options.team, ...(endpoints !== undefined ? { endpoints } : {}) },
      ...(options.allowedHosts ? { allowedHosts: options.allowedHosts } : {}),
      ...(options.trustedProxies ? { trustedProxies: options.trustedProxies } : {}),
      ...(options.maxUploadMb !== undefined ? { maxUploadBytes: Math.round(options.maxUploadMb * 1024 * 1024) } : {}),
      log: options.log,
    });
  } catch (error) {
    // Refused before listening (another host without accounts, say): the message says why.
    workbench.close();
    throw error;
  }
  let url: string;
  try {
    try {
      url = await listen(server, options.host, port);
    } catch (error) {
      // The default port is taken (another workbench?): take any free one instead.
      const busy = (error as { code?: string }).code === 'EADDRINUSE';
      if (!busy || options.port !== undefined) throw error;
      url = await listen(server, options.host, 0);
    }
  } catch (error) {
    workbench.close();
    throw new AppError('conflict', `Cannot listen on ${options.host}:${port}: ${(error as Error).message}`);
  }
  const removeSafetyNet = installSafetyNet(options.log);
  return {
    url,
    database: workbench.options.databasePath,
    pack: pack ? { file: pack, results: resultsPath(pack) } : null,
    stop() {
      removeSafetyNet();
      server.close();
      server.closeAllConnections();
      workbench.close();
    },
  };
}
