import fs from 'node:fs';
import path from 'node:path';
import { app, BrowserWindow, dialog, ipcMain, Menu, protocol, safeStorage, session, shell, type IpcMainInvokeEvent } from 'electron';
import type { EventMessage } from '../../shared/api';
import { APP_NAME, defaultDatabasePath } from '../services/paths';
import { CONTENT_SECURITY_POLICY } from '../../shared/security';
import { CHANNELS } from './preload-api';
import {
  APP_SCHEME,
  APP_URL,
  folderToShow,
  isTrustedSender,
  isValidKeyName,
  navigationDecision,
  permissionDecision,
  resolveAppRequest,
  webPreferences,
  windowOpenDecision,
} from './shell';
import { ServiceHost } from '../transport/worker-client';

/**
 * The desktop app: one window on the `app://` scheme, services in a worker thread, the API
 * over IPC. Only this file and preload.ts import 'electron'; everything else runs under Node.
 * Every security decision (web preferences, navigation, new windows, permissions, IPC callers,
 * which file a request gets) is made in shell.ts, which the tests check under plain Node.
 */

app.setName(APP_NAME);
// Services find resources/ and the built renderer from here, in development and when packaged.
process.env.AWB_APP_ROOT = app.getAppPath();

protocol.registerSchemesAsPrivileged([
  { scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } },
]);

const rendererRoot = path.join(app.getAppPath(), 'dist', 'renderer');
/** `npm start -- FILE` (or opening a pack with the app): the first argument naming a file. */
const packArgument = process.argv.slice(app.isPackaged ? 1 : 2).find((a) => !a.startsWith('-') && a !== '.' && fs.existsSync(a) && fs.statSync(a).isFile());
let host: ServiceHost | null = null;
let mainWindow: BrowserWindow | null = null;

function fromOurPage(event: IpcMainInvokeEvent): boolean {
  return isTrustedSender(event.senderFrame?.url);
}

function serveRenderer(request: Request): Response {
  const found = resolveAppRequest(rendererRoot, request.url);
  if (found.status !== 200) return new Response(found.body, { status: found.status });
  if (!fs.existsSync(found.file)) return new Response('The UI is not built: run `npm run build:renderer`.', { status: 503 });
  return new Response(fs.readFileSync(found.file), {
    headers: { 'content-type': found.contentType, 'content-security-policy': CONTENT_SECURITY_POLICY, 'x-content-type-options': 'nosniff' },
  });
}

/**
 * API keys for the pipeline's endpoints, encrypted with the OS keychain (safeStorage) in a file
 * of the user data directory: never in the database, logs or exports. The services get them
 * decrypted, in memory, by the name of the environment variable they stand in for.
 */
const keyFile = () => path.join(app.getPath('userData'), 'api-keys.json');

function readKeys(): Record<string, string> {
  if (!safeStorage.isEncryptionAvailable() || !fs.existsSync(keyFile())) return {};
  try {
    const stored = JSON.parse(fs.readFileSync(keyFile(), 'utf8')) as Record<string, string>;
    return Object.fromEntries(Object.entries(stored).map(([name, value]) => [name, safeStorage.decryptString(Buffer.from(value, 'base64'))]));
  } catch {
    return {};
  }
}

function writeKeys(keys: Record<string, string>): void {
  if (!safeStorage.isEncryptionAvailable()) throw new Error('The system keychain is not available; set the key as an environment variable instead.');
  const encrypted = Object.fromEntries(Object.entries(keys).map(([name, value]) => [name, safeStorage.encryptString(value).toString('base64')]));
  fs.writeFileSync(keyFile(), JSON.stringify(encrypted), { mode: 0o600 });
}

function createWindow(): BrowserWindow {
  const window = new BrowserWindow({
    width: 1440,
    height: 900,
    minWidth: 960,
    minHeight: 600,
    title: APP_NAME,
    // Windows and macOS take the icon from the executable; Linux window managers from here.
    icon: path.join(app.getAppPath(), 'resources', 'icons', 'icon.png'),
    show: false,
    webPreferences: webPreferences(path.join(__dirname, 'preload.cjs')),
  });
  window.once('ready-to-show', () => window.show());
  // New windows never open inside the app; web links go to the system browser.
  window.webContents.setWindowOpenHandler(({ url }) => {
    const decision = windowOpenDecision(url);
    if (decision.openExternally) void shell.openExternal(decision.openExternally);
    return { action: decision.action };
  });
  const guardNavigation = (event: { preventDefault(): void }, url: string) => {
    const decision = navigationDecision(url);
    if (decision.allow) return;
    event.preventDefault();
    if (decision.openExternally) void shell.openExternal(decision.openExternally);
  };
  window.webContents.on('will-navigate', guardNavigation);
  window.webContents.on('will-redirect', guardNavigation);
  void window.loadURL(APP_URL);
  return window;
}

function buildMenu(): void {
  const send = (route: string) => mainWindow?.webContents.send(CHANNELS.navigate, route);
  Menu.setApplicationMenu(
    Menu.buildFromTemplate([
      {
        label: 'File',
        submenu: [
          { label: 'Import…', accelerator: 'CmdOrCtrl+I', click: () => send('/import') },
          { label: 'Export…', accelerator: 'CmdOrCtrl+E', click: () => send('/export') },
          {
            label: 'Open pack…',
            accelerator: 'CmdOrCtrl+O',
            click: async () => {
              if (!mainWindow) return;
              const result = await dialog.showOpenDialog(mainWindow, { title: 'Open an annotation pack', properties: ['openFile'], filters: [{ name: 'Annotation packs', extensions: ['awbpack', 'json'] }] });
              const file = result.filePaths[0];
              if (!result.canceled && file) send(`/judge?pack=${encodeURIComponent(file)}`);
            },
          },
          { type: 'separator' },
          { role: 'quit' },
        ],
      },
      { role: 'editMenu' },
      { role: 'viewMenu' },
      { label: 'Help', submenu: [{ label: `About ${APP_NAME}`, click: () => send('/about') }] },
    ]),
  );
}

app.whenReady().then(async () => {
  protocol.handle(APP_SCHEME, serveRenderer);
  session.defaultSession.setPermissionRequestHandler((_contents, permission, callback) => callback(permissionDecision(permission)));
  session.defaultSession.setPermissionCheckHandler((_contents, permission) => permissionDecision(permission));
  host = new ServiceHost(
    path.join(__dirname, 'worker.cjs'),
    { databasePath: process.env.AWB_DB ?? defaultDatabasePath(), version: app.getVersion(), seedDemo: true, ...(packArgument ? { pack: path.resolve(packArgument) } : {}) },
    {},
    (message) => console.log(message),
  );
  await host.ready;
  host.setKeys(readKeys());

  ipcMain.handle(CHANNELS.invoke, (event, name: string, input: unknown) => {
    if (!fromOurPage(event)) return { ok: false, error: { code: 'invalid_input', message: 'Unknown caller' } };
    return host!.invoke(name, input);
  });
  ipcMain.handle(CHANNELS.pickFile, async (event, options: { save: boolean; title: string }) => {
    if (!fromOurPage(event) || !mainWindow) return null;
    if (options.save) {
      const result = await dialog.showSaveDialog(mainWindow, { title: options.title });
      return result.canceled ? null : (result.filePath ?? null);
    }
    const result = await dialog.showOpenDialog(mainWindow, { title: options.title, properties: ['openFile'] });
    return result.canceled ? null : (result.filePaths[0] ?? null);
  });
  ipcMain.handle(CHANNELS.showFolder, async (event, folder: unknown) => {
    const chosen = fromOurPage(event) ? folderToShow(folder) : null;
    if (!chosen) return false;
    return (await shell.openPath(chosen)) === '';
  });
  ipcMain.handle(CHANNELS.keyNames, (event) => (fromOurPage(event) ? Object.keys(readKeys()) : []));
  ipcMain.handle(CHANNELS.keySet, (event, name: unknown, value: string | null) => {
    if (!fromOurPage(event) || !isValidKeyName(name)) return Object.keys(readKeys());
    const keys = readKeys();
    if (value) keys[name] = value;
    else delete keys[name];
    writeKeys(keys);
    host!.setKeys(keys);
    return Object.keys(keys);
  });
  host.subscribe((message: EventMessage) => mainWindow?.webContents.send(CHANNELS.event, message));

  buildMenu();
  mainWindow = createWindow();
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) mainWindow = createWindow();
  });
});

app.on('window-all-closed', () => {
  if (process.platform !== 'darwin') app.quit();
});

app.on('will-quit', () => {
  void host?.close();
});
