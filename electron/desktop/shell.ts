import fs from 'node:fs';
import path from 'node:path';
import { contentType, lookupStatic } from '../transport/static-files';

/**
 * The desktop shell's decisions, apart from Electron so that tests run them under plain Node:
 * what the window may do, where it may go, who may call the main process, and which file an
 * `app://` request gets. main.ts wires these into Electron and adds nothing of its own.
 */

export const APP_SCHEME = 'app';
export const APP_HOST = 'workbench';
export const APP_URL = `${APP_SCHEME}://${APP_HOST}/`;

/** The window's web preferences: the page gets no Node, runs sandboxed and isolated from the preload. */
export function webPreferences(preloadPath: string) {
  return {
    preload: preloadPath,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    webviewTag: false,
    navigateOnDragDrop: false,
    spellcheck: false,
  } as const;
}

function parse(url: string): URL | null {
  try {
    return new URL(url);
  } catch {
    return null;
  }
}

/** A URL of the app's own pages: app://workbench/..., with nothing smuggled in the authority. */
export function isAppUrl(url: string): boolean {
  const parsed = parse(url);
  return parsed !== null && parsed.protocol === `${APP_SCHEME}:` && parsed.host === APP_HOST && parsed.username === '' && parsed.password === '';
}

/** A link for the system browser: plain http or https. */
export function isWebLink(url: string): boolean {
  const parsed = parse(url);
  return parsed !== null && (parsed.protocol === 'http:' || parsed.protocol === 'https:');
}

/** The window stays on the app's pages; nothing else loads in it. */
export function isAllowedNavigation(url: string): boolean {
  return isAppUrl(url);
}

/** `will-navigate`: allowed inside the app; elsewhere refused, web links handed to the system browser. */
export function navigationDecision(url: string): { allow: boolean; openExternally: string | null } {
  if (isAllowedNavigation(url)) return { allow: true, openExternally: null };
  return { allow: false, openExternally: isWebLink(url) ? new URL(url).href : null };
}

/** `setWindowOpenHandler`: no new window ever opens in the app; web links go to the system browser. */
export function windowOpenDecision(url: string): { action: 'deny'; openExternally: string | null } {
  return { action: 'deny', openExternally: isWebLink(url) ? new URL(url).href : null };
}

/** The page asks for no permission (camera, notifications, geolocation, ...), and gets none. */
export function permissionDecision(_permission: string): boolean {
  return false;
}

/** IPC calls are answered only for the app's own page, never for a frame of another origin. */
export function isTrustedSender(frameUrl: string | null | undefined): boolean {
  return typeof frameUrl === 'string' && isAppUrl(frameUrl);
}

/** The name of an environment variable an API key stands in for. */
export function isValidKeyName(name: unknown): name is string {
  return typeof name === 'string' && /^[A-Za-z_][A-Za-z0-9_]*$/.test(name);
}

export type AppResponse = { status: 200; file: string; contentType: string } | { status: 400 | 403 | 404; body: string };

/** The `app://` protocol handler: which file of the built renderer answers a request. */
export function resolveAppRequest(rendererDir: string, requestUrl: string): AppResponse {
  const url = parse(requestUrl);
  if (!url || !isAppUrl(requestUrl)) return { status: 404, body: 'not found' };
  const found = lookupStatic(rendererDir, url.pathname);
  switch (found.kind) {
    case 'bad-request':
      return { status: 400, body: 'bad path' };
    case 'forbidden':
      return { status: 403, body: 'forbidden' };
    case 'not-found':
      return { status: 404, body: 'not found' };
    default:
      return { status: 200, file: found.file, contentType: contentType(found.file) };
  }
}

/**
 * The folder the desktop app may open in the file manager at the page's request: an absolute path
 * to a release folder (one holding release.json), nothing else, so the page cannot open or run
 * arbitrary files through the shell.
 */
export function folderToShow(folder: unknown): string | null {
  if (typeof folder !== 'string' || folder.includes('\0') || !path.isAbsolute(folder)) return null;
  const resolved = path.resolve(folder);
  try {
    if (!fs.statSync(resolved).isDirectory() || !fs.statSync(path.join(resolved, 'release.json')).isFile()) return null;
  } catch {
    return null;
  }
  return resolved;
}
