import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createWindowApi, type PreloadIpc } from '../../electron/desktop/preload-api';
import {
  folderToShow,
  isAllowedNavigation,
  isTrustedSender,
  isValidKeyName,
  navigationDecision,
  permissionDecision,
  resolveAppRequest,
  webPreferences,
  windowOpenDecision,
} from '../../electron/desktop/shell';
import { lookupStatic, resolveInside } from '../../electron/transport/static-files';
import type { WindowApi } from '../../shared/api';
import { ROOT, tempDir, writeFile } from '../helpers/db';

function put(file: string, content: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  writeFile(file, content);
}

/**
 * The desktop shell without an Electron binary: its decisions (shell.ts, static-files.ts,
 * preload-api.ts) under plain Node, then main.ts and preload.ts themselves, bundled as
 * scripts/build-electron.mjs bundles them and run against a fake `electron` module that records
 * what they ask of it.
 */

const tmp = tempDir('awb-shell-');
const appDir = tmp.file('app');
const rendererDir = path.join(appDir, 'dist', 'renderer');

beforeAll(() => {
  put(path.join(rendererDir, 'index.html'), '<!doctype html><title>app</title>');
  put(path.join(rendererDir, 'assets', 'app.js'), 'console.log(1)');
  // A sibling whose name starts with the renderer folder's: a bare prefix test lets it through.
  put(path.join(appDir, 'dist', 'renderer-evil', 'secret.txt'), 'secret');
  put(path.join(appDir, 'outside.txt'), 'outside');
  fs.symlinkSync(path.join(appDir, 'dist', 'renderer-evil'), path.join(rendererDir, 'link-dir'));
  fs.symlinkSync(path.join(appDir, 'outside.txt'), path.join(rendererDir, 'link-file.txt'));
  fs.symlinkSync(path.join(rendererDir, 'assets', 'app.js'), path.join(rendererDir, 'alias.js'));
});

afterAll(() => tmp.cleanup());

describe('static file paths', () => {
  const escapes = [
    '/..%2frenderer-evil/secret.txt',
    '/..%2f..%2foutside.txt',
    '/..%2f..%2f..%2f..%2f..%2f..%2fetc/passwd',
    '/%2e%2e%2frenderer-evil/secret.txt',
    '/assets/..%2f..%2frenderer-evil/secret.txt',
    '/link-dir/secret.txt',
    '/link-file.txt',
    '/..%5crenderer-evil%5csecret.txt',
    '/assets%5c..%5c..%5coutside.txt',
  ];

  it.each(escapes)('refuses %s, which would leave the renderer folder', (urlPath) => {
    expect(resolveInside(rendererDir, urlPath)).toEqual({ ok: false, reason: 'forbidden' });
    expect(lookupStatic(rendererDir, urlPath)).toEqual({ kind: 'forbidden' });
  });

  it('decodes once: a double-encoded slash stays a character of a name inside the folder', () => {
    const resolved = resolveInside(rendererDir, '/..%252f..%252foutside.txt');
    expect(resolved).toEqual({ ok: true, file: path.join(rendererDir, '..%2f..%2foutside.txt') });
    expect(lookupStatic(rendererDir, '/..%252f..%252foutside.txt')).toEqual({ kind: 'not-found' });
  });

  it('refuses a NUL and an encoding that does not decode', () => {
    expect(resolveInside(rendererDir, '/index.html%00.js')).toEqual({ ok: false, reason: 'bad-request' });
    expect(resolveInside(rendererDir, '/%E0%A4%A')).toEqual({ ok: false, reason: 'bad-request' });
  });

  it('serves files inside, symlinks that stay inside, and the app page for client routes', () => {
    expect(lookupStatic(rendererDir, '/assets/app.js')).toEqual({ kind: 'file', file: path.join(rendererDir, 'assets', 'app.js') });
    expect(lookupStatic(rendererDir, '/alias.js')).toEqual({ kind: 'file', file: path.join(rendererDir, 'alias.js') });
    expect(lookupStatic(rendererDir, '/assets/../index.html')).toEqual({ kind: 'file', file: path.join(rendererDir, 'index.html') });
    expect(lookupStatic(rendererDir, '/')).toEqual({ kind: 'app-page', file: path.join(rendererDir, 'index.html') });
    expect(lookupStatic(rendererDir, '/instances/12')).toEqual({ kind: 'app-page', file: path.join(rendererDir, 'index.html') });
    expect(lookupStatic(rendererDir, '//etc/passwd')).toEqual({ kind: 'app-page', file: path.join(rendererDir, 'index.html') });
    expect(lookupStatic(rendererDir, '/assets/missing.js')).toEqual({ kind: 'not-found' });
  });
});

describe('shell decisions', () => {
  it('gives the window no Node, a sandbox, context isolation and web security', () => {
    const prefs = webPreferences('/app/preload.cjs');
    expect(prefs).toMatchObject({ preload: '/app/preload.cjs', contextIsolation: true, sandbox: true, nodeIntegration: false, webSecurity: true });
    expect(prefs).toMatchObject({ nodeIntegrationInWorker: false, nodeIntegrationInSubFrames: false, allowRunningInsecureContent: false, webviewTag: false });
  });

  it('keeps the window on the app pages and hands web links to the system browser', () => {
    expect(navigationDecision('app://workbench/instances?page=2')).toEqual({ allow: true, openExternally: null });
    expect(navigationDecision('https://example.org/a b')).toEqual({ allow: false, openExternally: 'https://example.org/a%20b' });
    expect(navigationDecision('http://127.0.0.1:4310/')).toEqual({ allow: false, openExternally: 'http://127.0.0.1:4310/' });
    for (const url of ['file:///etc/passwd', 'javascript:alert(1)', 'app://workbench.evil/', 'app://evil@workbench/', 'app://other/', 'data:text/html,hi', 'not a url']) {
      expect(isAllowedNavigation(url)).toBe(false);
      expect(navigationDecision(url)).toEqual({ allow: false, openExternally: null });
    }
  });

  it('never opens a window, and opens only http(s) links outside', () => {
    expect(windowOpenDecision('https://en.wikipedia.org/wiki/Darth_Vader')).toEqual({ action: 'deny', openExternally: 'https://en.wikipedia.org/wiki/Darth_Vader' });
    expect(windowOpenDecision('app://workbench/instances')).toEqual({ action: 'deny', openExternally: null });
    for (const url of ['file:///etc/passwd', 'javascript:alert(1)', 'smb://host/share', 'ms-msdt:/id', '']) expect(windowOpenDecision(url)).toEqual({ action: 'deny', openExternally: null });
  });

  it('refuses every permission', () => {
    for (const permission of ['media', 'geolocation', 'notifications', 'clipboard-read', 'openExternal', 'fullscreen']) expect(permissionDecision(permission)).toBe(false);
  });

  it('answers IPC only for the app page, and only for key names that are variable names', () => {
    expect(isTrustedSender('app://workbench/judge')).toBe(true);
    for (const url of ['https://workbench/', 'app://workbench.evil/', 'app://x@workbench/', '', null, undefined]) expect(isTrustedSender(url)).toBe(false);
    expect(isValidKeyName('OPENAI_API_KEY')).toBe(true);
    for (const name of ['', '1KEY', 'KEY-NAME', '__proto__.x', 'A B', 42]) expect(isValidKeyName(name)).toBe(false);
  });

  it('answers app:// requests from the renderer folder only', () => {
    expect(resolveAppRequest(rendererDir, 'app://workbench/assets/app.js')).toEqual({ status: 200, file: path.join(rendererDir, 'assets', 'app.js'), contentType: 'text/javascript; charset=utf-8' });
    expect(resolveAppRequest(rendererDir, 'app://workbench/judge')).toMatchObject({ status: 200, file: path.join(rendererDir, 'index.html'), contentType: 'text/html; charset=utf-8' });
    expect(resolveAppRequest(rendererDir, 'app://workbench/..%2frenderer-evil/secret.txt')).toMatchObject({ status: 403 });
    expect(resolveAppRequest(rendererDir, 'app://workbench/..%2f..%2f..%2f..%2fetc/passwd')).toMatchObject({ status: 403 });
    expect(resolveAppRequest(rendererDir, 'app://workbench/x%00.js')).toMatchObject({ status: 400 });
    expect(resolveAppRequest(rendererDir, 'app://elsewhere/index.html')).toMatchObject({ status: 404 });
    expect(resolveAppRequest(rendererDir, 'app://workbench/missing.css')).toMatchObject({ status: 404 });
  });
});

/** Exactly the keys of WindowApi: the compiler refuses a missing or an extra one. */
const WINDOW_API_KEYS: Record<keyof WindowApi, true> = { invoke: true, subscribe: true, pickFile: true, showFolder: true, apiKeys: true };

function fakeIpc() {
  const listeners = new Map<string, Set<(event: unknown, ...args: unknown[]) => void>>();
  const ipc = {
    invoke: vi.fn(async (..._args: unknown[]): Promise<unknown> => ({ ok: true, value: 'answer' })),
    on: vi.fn((channel: string, listener: (event: unknown, ...args: unknown[]) => void) => {
      if (!listeners.has(channel)) listeners.set(channel, new Set());
      listeners.get(channel)!.add(listener);
    }),
    off: vi.fn((channel: string, listener: (event: unknown, ...args: unknown[]) => void) => {
      listeners.get(channel)?.delete(listener);
    }),
    emit: (channel: string, ...args: unknown[]) => {
      for (const listener of listeners.get(channel) ?? []) listener({ sender: 'ipc-event-with-internals' }, ...args);
    },
    count: (channel: string) => listeners.get(channel)?.size ?? 0,
  };
  return ipc satisfies PreloadIpc;
}

function checkSurface(api: Record<string, unknown>): void {
  expect(Object.keys(api).sort()).toEqual(Object.keys(WINDOW_API_KEYS).sort());
  for (const key of ['invoke', 'subscribe', 'pickFile', 'showFolder']) expect(typeof api[key]).toBe('function');
  expect(Object.keys(api.apiKeys as object).sort()).toEqual(['names', 'set']);
  for (const forbidden of ['require', 'fs', 'process', 'ipcRenderer', 'send', 'on']) expect(api).not.toHaveProperty(forbidden);
}

describe('the preload surface', () => {
  it('is exactly the WindowApi, and each method goes to its own channel', async () => {
    const ipc = fakeIpc();
    const api = createWindowApi(ipc);
    checkSurface(api as unknown as Record<string, unknown>);
    await expect(api.invoke('instance:list', { limit: 5 })).resolves.toEqual({ ok: true, value: 'answer' });
    expect(ipc.invoke).toHaveBeenLastCalledWith('awb:invoke', 'instance:list', { limit: 5 });
    await api.pickFile({ save: true, title: 'Export', extra: 'dropped' } as never);
    expect(ipc.invoke).toHaveBeenLastCalledWith('awb:pick-file', { save: true, title: 'Export' });
    await api.apiKeys!.names();
    expect(ipc.invoke).toHaveBeenLastCalledWith('awb:key-names');
    await api.apiKeys!.set('OPENAI_API_KEY', null);
    expect(ipc.invoke).toHaveBeenLastCalledWith('awb:key-set', 'OPENAI_API_KEY', null);
  });

  it('passes events on without the IPC event object, and unsubscribes', () => {
    const ipc = fakeIpc();
    const api = createWindowApi(ipc);
    const received: unknown[][] = [];
    const off = api.subscribe((...args: unknown[]) => received.push(args));
    ipc.emit('awb:event', { name: 'job:progress', payload: { id: 1 } });
    expect(received).toEqual([[{ name: 'job:progress', payload: { id: 1 } }]]);
    off();
    expect(ipc.count('awb:event')).toBe(0);
    ipc.emit('awb:event', { name: 'job:progress', payload: { id: 2 } });
    expect(received).toHaveLength(1);
  });
});

/** main.ts or preload.ts bundled the way scripts/build-electron.mjs does, with `electron` left to the caller. */
async function bundle(entry: string): Promise<string> {
  const result = await build({
    entryPoints: [path.join(ROOT, entry)],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    write: false,
    logLevel: 'silent',
    external: ['electron', 'better-sqlite3', 'sqlite-vec'],
    define: { 'import.meta.url': '""' },
    plugins: [
      {
        name: 'fake-service-host',
        setup(b) {
          b.onResolve({ filter: /transport\/worker-client$/ }, () => ({ path: 'fake-worker-client', external: true }));
        },
      },
    ],
  });
  return result.outputFiles[0]!.text;
}

const nodeRequire = createRequire(import.meta.url);

function run(code: string, modules: Record<string, unknown>, globals: Record<string, unknown> = {}): void {
  const require = (name: string) => (name in modules ? modules[name] : nodeRequire(name));
  const module = { exports: {} };
  const names = Object.keys(globals);
  new Function('require', 'module', 'exports', '__dirname', '__filename', ...names, code)(require, module, module.exports, tmp.file('bundle'), tmp.file('bundle/main.cjs'), ...names.map((n) => globals[n]));
}

type Listener = (...args: never[]) => unknown;

function fakeMainElectron() {
  const seen = {
    windows: [] as FakeWindow[],
    schemes: [] as { scheme: string }[],
    protocols: new Map<string, (request: Request) => Response>(),
    ipc: new Map<string, Listener>(),
    permissionRequest: null as null | ((contents: unknown, permission: string, callback: (granted: boolean) => void) => void),
    permissionCheck: null as null | ((contents: unknown, permission: string) => boolean),
    openedExternally: [] as string[],
    openedFolders: [] as string[],
    invoked: [] as unknown[][],
  };
  class FakeWebContents {
    readonly events = new Map<string, Listener>();
    windowOpenHandler: ((details: { url: string }) => { action: string }) | null = null;
    setWindowOpenHandler(handler: (details: { url: string }) => { action: string }) {
      this.windowOpenHandler = handler;
    }
    on(event: string, listener: Listener) {
      this.events.set(event, listener);
      return this;
    }
    send() {}
  }
  class FakeWindow {
    readonly webContents = new FakeWebContents();
    loaded: string | null = null;
    constructor(readonly options: { webPreferences: Record<string, unknown> }) {
      seen.windows.push(this);
    }
    once() {}
    show() {}
    loadURL(url: string) {
      this.loaded = url;
      return Promise.resolve();
    }
    static getAllWindows() {
      return seen.windows;
    }
  }
  class FakeServiceHost {
    readonly ready = Promise.resolve();
    setKeys() {}
    subscribe() {
      return () => undefined;
    }
    invoke(name: string, input: unknown) {
      seen.invoked.push([name, input]);
      return Promise.resolve({ ok: true, value: 'from the services' });
    }
    close() {
      return Promise.resolve();
    }
  }
  const electron = {
    app: {
      setName() {},
      getAppPath: () => appDir,
      getPath: () => tmp.file('user-data'),
      getVersion: () => '0.0.0-test',
      isPackaged: false,
      whenReady: () => Promise.resolve(),
      on() {},
      quit() {},
    },
    BrowserWindow: FakeWindow,
    dialog: { showOpenDialog: () => Promise.resolve({ canceled: true, filePaths: [] }), showSaveDialog: () => Promise.resolve({ canceled: true }) },
    ipcMain: { handle: (channel: string, listener: Listener) => seen.ipc.set(channel, listener) },
    Menu: { setApplicationMenu() {}, buildFromTemplate: (template: unknown) => template },
    protocol: {
      registerSchemesAsPrivileged: (schemes: { scheme: string }[]) => seen.schemes.push(...schemes),
      handle: (scheme: string, handler: (request: Request) => Response) => seen.protocols.set(scheme, handler),
    },
    safeStorage: { isEncryptionAvailable: () => false },
    session: {
      defaultSession: {
        setPermissionRequestHandler: (handler: typeof seen.permissionRequest) => (seen.permissionRequest = handler),
        setPermissionCheckHandler: (handler: typeof seen.permissionCheck) => (seen.permissionCheck = handler),
      },
    },
    shell: { openExternal: (url: string) => (seen.openedExternally.push(url), Promise.resolve()), openPath: (folder: string) => (seen.openedFolders.push(folder), Promise.resolve('')) },
  };
  return { electron, seen, ServiceHost: FakeServiceHost };
}

describe('main.ts, run against a fake electron', () => {
  const fake = fakeMainElectron();
  const { seen } = fake;
  let window: InstanceType<typeof fake.electron.BrowserWindow>;

  beforeAll(async () => {
    const saved = { root: process.env.AWB_APP_ROOT, db: process.env.AWB_DB };
    process.env.AWB_DB = tmp.file('main.db');
    try {
      run(await bundle('electron/desktop/main.ts'), { electron: fake.electron, 'fake-worker-client': { ServiceHost: fake.ServiceHost } });
      await vi.waitFor(() => expect(seen.windows).toHaveLength(1));
    } finally {
      for (const [name, value] of [['AWB_APP_ROOT', saved.root], ['AWB_DB', saved.db]] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
    window = seen.windows[0]!;
  }, 60_000);

  it('opens one window on app://workbench/ with the locked-down web preferences', () => {
    expect(window.loaded).toBe('app://workbench/');
    expect(window.options.webPreferences).toEqual(webPreferences(path.join(tmp.file('bundle'), 'preload.cjs')));
    expect(seen.schemes).toEqual([expect.objectContaining({ scheme: 'app', privileges: expect.objectContaining({ standard: true, secure: true }) })]);
  });

  it('denies new windows and sends only web links to the system browser', () => {
    const handler = window.webContents.windowOpenHandler!;
    expect(handler({ url: 'https://example.org/' })).toEqual({ action: 'deny' });
    expect(handler({ url: 'file:///etc/passwd' })).toEqual({ action: 'deny' });
    expect(seen.openedExternally).toEqual(['https://example.org/']);
  });

  it('stops navigation away from the app', () => {
    const navigate = window.webContents.events.get('will-navigate') as unknown as (event: { preventDefault: () => void }, url: string) => void;
    for (const [url, blocked] of [['app://workbench/instances', false], ['https://example.org/x', true], ['file:///etc/passwd', true], ['app://evil/', true]] as const) {
      const event = { preventDefault: vi.fn() };
      navigate(event, url);
      expect(event.preventDefault).toHaveBeenCalledTimes(blocked ? 1 : 0);
    }
    expect(seen.openedExternally).toContain('https://example.org/x');
    expect(seen.openedExternally).not.toContain('file:///etc/passwd');
    expect(window.webContents.events.has('will-redirect')).toBe(true);
  });

  it('refuses every permission request and check', () => {
    const granted: boolean[] = [];
    for (const permission of ['media', 'geolocation', 'notifications']) seen.permissionRequest!({}, permission, (g) => granted.push(g));
    expect(granted).toEqual([false, false, false]);
    expect(seen.permissionCheck!({}, 'clipboard-read')).toBe(false);
  });

  it('serves app:// from the renderer folder and nothing outside it', async () => {
    const handle = seen.protocols.get('app')!;
    const page = handle(new Request('app://workbench/instances'));
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(await page.text()).toContain('<title>app</title>');
    for (const url of ['app://workbench/..%2frenderer-evil/secret.txt', 'app://workbench/..%2f..%2foutside.txt', 'app://workbench/link-file.txt', 'app://workbench/..%5coutside.txt']) {
      const response = handle(new Request(url));
      expect(response.status, url).toBe(403);
      expect(await response.text()).not.toMatch(/secret|outside/);
    }
  });

  it('opens a release folder in the file manager for its own page, and nothing else', async () => {
    const release = tmp.file('a-release');
    fs.mkdirSync(release, { recursive: true });
    writeFile(path.join(release, 'release.json'), '{}');
    const plain = tmp.file('not-a-release');
    fs.mkdirSync(plain, { recursive: true });
    const handler = seen.ipc.get('awb:show-folder') as unknown as (event: { senderFrame: { url: string } | null }, folder: unknown) => Promise<boolean>;
    const ours = { senderFrame: { url: 'app://workbench/releases/1' } };
    expect(await handler({ senderFrame: { url: 'https://evil.example/' } }, release)).toBe(false);
    for (const folder of [plain, path.join(release, 'release.json'), 'a-release', `${release}\0`, 42]) expect(await handler(ours, folder)).toBe(false);
    expect(seen.openedFolders).toEqual([]);
    expect(await handler(ours, `${release}/`)).toBe(true);
    expect(seen.openedFolders).toEqual([release]);
    expect(folderToShow(release)).toBe(release);
  });

  it('answers IPC only for its own page', async () => {
    const handler = seen.ipc.get('awb:invoke') as unknown as (event: { senderFrame: { url: string } | null }, name: string, input: unknown) => unknown;
    const invoke = (...args: Parameters<typeof handler>) => Promise.resolve(handler(...args));
    await expect(invoke({ senderFrame: { url: 'https://evil.example/' } }, 'instance:list', {})).resolves.toMatchObject({ ok: false });
    await expect(invoke({ senderFrame: null }, 'instance:list', {})).resolves.toMatchObject({ ok: false });
    expect(seen.invoked).toEqual([]);
    await expect(invoke({ senderFrame: { url: 'app://workbench/instances' } }, 'instance:list', { limit: 1 })).resolves.toEqual({ ok: true, value: 'from the services' });
    expect(seen.invoked).toEqual([['instance:list', { limit: 1 }]]);
  });
});

describe('preload.ts, run against a fake electron', () => {
  it('exposes exactly the WindowApi as window.awb, and forwards menu navigation as a DOM event', async () => {
    const exposed = new Map<string, unknown>();
    const ipc = fakeIpc();
    const page = new EventTarget();
    const routes: unknown[] = [];
    page.addEventListener('awb:navigate', (event) => routes.push((event as CustomEvent).detail));
    run(
      await bundle('electron/desktop/preload.ts'),
      { electron: { contextBridge: { exposeInMainWorld: (name: string, api: unknown) => exposed.set(name, api) }, ipcRenderer: ipc } },
      { window: page },
    );
    expect([...exposed.keys()]).toEqual(['awb']);
    checkSurface(exposed.get('awb') as Record<string, unknown>);
    ipc.emit('awb:navigate', '/import');
    ipc.emit('awb:navigate', { not: 'a route' });
    expect(routes).toEqual(['/import']);
  });
});
