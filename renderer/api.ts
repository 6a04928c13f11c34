import type { ApiError, ErrorHint, EventMessage, Input, OperationName, Output, Result, WindowApi } from '../shared/api';
import { saveFile } from './download';

/**
 * The renderer's only way to the services. In the desktop app the preload provides
 * `window.awb` (IPC); in browser mode the same operations go over HTTP to `awb serve`.
 */

declare global {
  interface Window {
    awb?: WindowApi;
  }
}

export class ApiCallError extends Error {
  constructor(
    readonly code: string,
    message: string,
    /** What can be done about it; ErrorNotice words it (renderer/hints.ts). */
    readonly hint?: ErrorHint,
  ) {
    super(message);
    this.name = 'ApiCallError';
  }

  static from(error: ApiError): ApiCallError {
    return new ApiCallError(error.code, error.message, error.hint);
  }
}

const bridge = typeof window !== 'undefined' ? window.awb : undefined;
export const isDesktop = bridge !== undefined;

async function invoke(name: string, input: unknown): Promise<Result<unknown>> {
  if (bridge) return bridge.invoke(name, input);
  const response = await fetch(`/api/${name}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(input ?? {}),
  });
  try {
    return (await response.json()) as Result<unknown>;
  } catch {
    return { ok: false, error: { code: 'internal', message: `The server answered ${response.status} without JSON` } };
  }
}

export async function call<K extends OperationName>(name: K, input: Input<K>): Promise<Output<K>> {
  const result = await invoke(name, input);
  if (!result.ok) throw ApiCallError.from(result.error);
  return result.value as Output<K>;
}

type Listener = (message: EventMessage) => void;
const listeners = new Set<Listener>();
let connected = false;

function connect(): void {
  connected = true;
  if (bridge) {
    bridge.subscribe((message) => listeners.forEach((l) => l(message)));
    return;
  }
  const source = new EventSource('/api/events');
  for (const name of ['job:progress', 'job:done', 'data:changed'] as const) {
    source.addEventListener(name, (event) => {
      const payload = JSON.parse((event as MessageEvent<string>).data) as EventMessage['payload'];
      listeners.forEach((l) => l({ name, payload } as EventMessage));
    });
  }
}

export function subscribe(listener: Listener): () => void {
  if (!connected) connect();
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/**
 * Browser mode: runs an export on the server and saves its file through the browser
 * (`POST /api/download/<operation>`); the server chooses where it writes, so no path is sent.
 */
export async function download(name: 'dataset:export' | 'judgment:export' | 'pack:export' | 'failure-tag:export', input: Record<string, unknown>): Promise<string> {
  const response = await fetch(`/api/download/${name}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(input) });
  if (!response.ok) {
    const result = (await response.json().catch(() => null)) as Result<unknown> | null;
    throw result && !result.ok ? ApiCallError.from(result.error) : new ApiCallError('internal', `The server answered ${response.status}`);
  }
  const fileName = /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1] ?? 'download';
  saveFile(fileName, await response.blob());
  return fileName;
}

/** Browser mode: sends a local file to the server, which keeps it for import; returns its reference (`upload:<id>/<name>`), which imports take as their file. */
export async function upload(file: File): Promise<string> {
  const response = await fetch(`/api/upload?name=${encodeURIComponent(file.name)}`, { method: 'POST', body: file });
  const result = (await response.json().catch(() => null)) as Result<{ upload: string }> | null;
  if (!result) throw new ApiCallError('internal', `The server answered ${response.status}`);
  if (!result.ok) throw ApiCallError.from(result.error);
  return result.value.upload;
}

export function pickFile(options: { save: boolean; title: string }): Promise<string | null> {
  return bridge ? bridge.pickFile(options) : Promise.resolve(null);
}
