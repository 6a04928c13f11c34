import fs from 'node:fs';
import path from 'node:path';
import { lastRunConfig } from '../../../db/queries/runs';
import type { ReadableDB } from '../../../db/sql';
import { AppError, isOperation, markedFields, operations, type FieldMark } from '../../../shared/api';
import { Endpoint } from '../../../shared/pipeline';
import { resourcesDir } from '../paths';

/**
 * What a network caller may not name, whatever their role: a file or folder on the server
 * (`serverPath()` fields), and anything that reaches out from the server (`serverReach()` fields:
 * an address it calls, an environment variable it reads, where API keys and passwords live).
 * Endpoints come only by name from the server's own configuration (`endpointsConfig()` fields):
 * a caller names them, the server fills in where they point and which key they use.
 */

/** Input fields that name a file or folder on the server. */
export const PATH_KEY = /^(path|configPath|rejectsFile|questions|predictions|out|dir|file|pack|folder|directory)$/;
/** Input fields that reach the network or the server's environment, by name (belt and braces beside the marks). */
const REACH_KEY = /^(baseURL|baseUrl|apiKeyEnv|postgres|url)$/;

/** Fields that may name a file a network caller sent through the upload endpoint (read, never written). */
const UPLOAD_INPUTS: Readonly<Record<string, readonly string[]>> = {
  'dataset:import': ['path'],
  'corpus:import': ['path'],
  'judgment:import': ['path'],
  'pack:import': ['path'],
  'retrieval:evaluate': ['questions'],
  'evaluation:score': ['predictions'],
};

/**
 * Where the owner (never a network caller) may also give an uploaded file: a config file (over the
 * network a config comes inline, where its endpoints are checked; a file's would not be), and a
 * pack opened in the browser, judged where it was uploaded.
 */
const OWNER_UPLOAD_INPUTS: Readonly<Record<string, readonly string[]>> = {
  'pipeline:start': ['configPath'],
  'evaluation:start': ['configPath'],
  'evaluation:resume': ['configPath'],
};

/** The top-level fields of an operation that may hold an uploaded file (an `upload:` reference). */
export function uploadFields(name: string): readonly string[] {
  return UPLOAD_INPUTS[name] ?? [];
}

/** The fields where the owner may give an uploaded file (see OWNER_UPLOAD_INPUTS). */
export function ownerUploadFields(name: string): readonly string[] {
  return [...uploadFields(name), ...(OWNER_UPLOAD_INPUTS[name] ?? []), ...(name.startsWith('judging:') ? ['session.pack'] : [])];
}

/** The last part of each field an operation marks, read from its schema once. */
const markedKeys = new Map<string, Set<string>>();
function keysMarked(name: string, mark: FieldMark): Set<string> {
  const id = `${mark}\u0000${name}`;
  let keys = markedKeys.get(id);
  if (!keys) {
    keys = new Set(isOperation(name) ? markedFields(operations[name].input, mark).map((field) => field.split('.').at(-1)!.replace(/\[\]$/, '')) : []);
    markedKeys.set(id, keys);
  }
  return keys;
}

/** Calls `visit` with each key of the input at any depth (the depth is bounded by the transport). */
function walkKeys(value: unknown, visit: (key: string, inner: unknown, at: string[]) => 'skip' | void, where: string[] = []): void {
  if (Array.isArray(value)) return value.forEach((v, i) => walkKeys(v, visit, [...where, String(i)]));
  if (typeof value !== 'object' || value === null) return;
  for (const [key, inner] of Object.entries(value)) {
    const at = [...where, key];
    if (visit(key, inner, at) === 'skip') continue;
    walkKeys(inner, visit, at);
  }
}

/**
 * Refuses, for a network caller, any input naming a server path other than a file it uploaded: a
 * field its operation declares with `serverPath()`, or (belt and braces) one named like a path.
 */
export function checkPaths(name: string, input: unknown, uploadDir: string): void {
  const declared = keysMarked(name, 'serverPath');
  const root = path.resolve(uploadDir);
  walkKeys(input, (key, inner, at) => {
    if (!(declared.has(key) || PATH_KEY.test(key)) || inner === undefined || inner === null) return;
    const target = typeof inner === 'string' ? path.resolve(inner) : '';
    if (at.length === 1 && uploadFields(name).includes(key) && target.startsWith(root + path.sep)) return 'skip';
    throw new AppError(
      'forbidden',
      `${name}: "${at.join('.')}" names a file on the server, which network callers may not do. Send files with the upload button (POST /api/upload) and run exports from the desktop app or the awb CLI on the server.`,
    );
  });
}

export type EndpointRegistry = Record<string, Endpoint>;

function endpointsIn(config: unknown): EndpointRegistry {
  const endpoints = (config as { endpoints?: unknown } | null)?.endpoints;
  if (typeof endpoints !== 'object' || endpoints === null) return {};
  const out: EndpointRegistry = {};
  for (const [name, value] of Object.entries(endpoints)) {
    const parsed = Endpoint.safeParse(value);
    if (parsed.success) out[name] = parsed.data;
  }
  return out;
}

function readConfig(file: string): unknown {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as unknown;
  } catch {
    return null;
  }
}

/**
 * The endpoints a network caller may use, by name: those of the configs the pipeline screen offers
 * (the bundled example, the offline demo, the last run's) and of the owner's `--endpoints` file,
 * which wins over the others for a name they share.
 */
export function serverEndpoints(db: ReadableDB, ownerConfig?: unknown): EndpointRegistry {
  return {
    ...endpointsIn(readConfig(path.join(resourcesDir(), 'pipeline.example.json'))),
    ...endpointsIn(readConfig(path.join(resourcesDir(), 'pipeline.offline.json'))),
    ...endpointsIn(lastRunConfig(db)),
    ...endpointsIn(ownerConfig),
  };
}

function refuseReach(name: string, field: string): never {
  throw new AppError(
    'forbidden',
    `${name}: "${field}" would have the server call an address or read an environment variable of its choosing, which network callers may not do: the server's own configuration decides (choose endpoints by name; sync uses the store the server was set up with).`,
  );
}

/** A config's endpoints, named by a network caller, filled in from the server's: anything else is refused. */
function serverSideEndpoints(name: string, field: string, config: Record<string, unknown>, registry: EndpointRegistry): Record<string, unknown> {
  const known = Object.keys(registry).sort().join(', ') || 'none';
  if (config.endpoints === undefined) return { ...config, endpoints: registry };
  if (typeof config.endpoints !== 'object' || config.endpoints === null || Array.isArray(config.endpoints)) return config;
  const endpoints: Record<string, unknown> = {};
  for (const [endpoint, given] of Object.entries(config.endpoints as Record<string, unknown>)) {
    const own = registry[endpoint];
    if (!own) throw new AppError('forbidden', `${name}: endpoint "${endpoint}" is not one of this server's (${known}); over the network, endpoints are chosen by name among the server's own.`);
    const entry = typeof given === 'object' && given !== null && !Array.isArray(given) ? (given as Record<string, unknown>) : {};
    for (const key of ['baseURL', 'apiKeyEnv'] as const) {
      if (entry[key] !== undefined && entry[key] !== own[key]) {
        throw new AppError('forbidden', `${name}: "${field}.endpoints.${endpoint}.${key}" differs from the server's endpoint "${endpoint}": over the network, where an endpoint points and which key it uses come from the server's configuration.`);
      }
    }
    endpoints[endpoint] = { ...entry, baseURL: own.baseURL, apiKeyEnv: own.apiKeyEnv };
  }
  return { ...config, endpoints };
}

/**
 * Checks a network caller's input for anything that reaches out from the server, and returns it
 * with each endpoints config's endpoints taken from the server's registry (see serverEndpoints).
 */
export function checkReach(name: string, input: unknown, registry: () => EndpointRegistry): unknown {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return input;
  const configs = keysMarked(name, 'serverEndpoints');
  const reaching = keysMarked(name, 'serverReach');
  const out: Record<string, unknown> = { ...(input as Record<string, unknown>) };
  for (const key of configs) {
    const config = out[key];
    if (typeof config === 'object' && config !== null && !Array.isArray(config)) out[key] = serverSideEndpoints(name, key, config as Record<string, unknown>, registry());
  }
  walkKeys(out, (key, inner, at) => {
    if (at.length === 1 && configs.has(key)) return 'skip';
    if ((reaching.has(key) || REACH_KEY.test(key)) && inner !== undefined) refuseReach(name, at.join('.'));
    return undefined;
  });
  return out;
}
