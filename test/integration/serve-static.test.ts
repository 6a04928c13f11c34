import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rendererBuildReason, rendererOnFirstUse } from '../../electron/transport/renderer-build';
import { EventBus } from '../../electron/services/events';
import { createHttpServer, listen } from '../../electron/transport/http';
import type { Handlers } from '../../shared/api';
import { startServer } from '../helpers/cli';
import { ROOT, tempDir } from '../helpers/db';

/**
 * The UI's files over real HTTP: requests that try to leave the renderer folder are refused,
 * and `awb serve` on a machine where the UI was never built builds it for the first request.
 */

const tmp = tempDir('awb-serve-static-');

function put(file: string, content: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
}

/** A GET with the request target sent exactly as written (fetch would normalise `..`). */
function rawGet(base: string, target: string): Promise<{ status: number; body: string; type: string }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, path: target, method: 'GET' }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, type: String(res.headers['content-type'] ?? '') }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('static files over HTTP', () => {
  const root = tmp.file('site');
  const staticDir = path.join(root, 'renderer');
  let server: http.Server;
  let base: string;

  beforeAll(async () => {
    put(path.join(staticDir, 'index.html'), '<!doctype html><title>app</title>');
    put(path.join(staticDir, 'assets', 'app.js'), 'console.log(1)');
    put(path.join(root, 'renderer-evil', 'secret.txt'), 'secret of the sibling');
    put(path.join(root, 'outside.txt'), 'outside the folder');
    fs.symlinkSync(path.join(root, 'outside.txt'), path.join(staticDir, 'leak.txt'));
    server = createHttpServer({ handlers: {} as Handlers, events: new EventBus(), staticDir, uploadDir: tmp.file('uploads'), host: '127.0.0.1', port: 0 });
    base = await listen(server, '127.0.0.1', 0);
  });

  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });

  it.each([
    '/..%2frenderer-evil/secret.txt',
    '/..%2f..%2foutside.txt',
    '/..%2f..%2f..%2f..%2f..%2f..%2f..%2fetc/passwd',
    '/assets/..%2f..%2frenderer-evil/secret.txt',
    '/..%5c..%5coutside.txt',
    '/leak.txt',
  ])('refuses %s with 403', async (target) => {
    const response = await rawGet(base, target);
    expect(response.status).toBe(403);
    expect(response.body).not.toMatch(/secret|outside|root:/);
  });

  it('refuses a NUL with 400, and answers a double-encoded path from inside the folder', async () => {
    expect((await rawGet(base, '/index.html%00.js')).status).toBe(400);
    const doubled = await rawGet(base, '/..%252f..%252foutside.txt');
    expect(doubled.status).toBe(404);
    expect(doubled.body).not.toContain('outside the folder');
    // The URL parser itself takes an encoded dot segment as one: no further than the folder.
    const dots = await rawGet(base, '/%2e%2e/renderer-evil/secret.txt');
    expect(dots.status).toBe(404);
    expect(dots.body).not.toContain('secret');
    const passwd = await rawGet(base, '/..%252f..%252fetc%252fpasswd');
    expect(passwd.status).toBe(404);
    expect(passwd.body).not.toContain('root:');
  });

  it('still serves the files inside and the app page for client routes', async () => {
    expect(await rawGet(base, '/assets/app.js')).toMatchObject({ status: 200, body: 'console.log(1)', type: 'text/javascript; charset=utf-8' });
    expect(await rawGet(base, '/instances/3')).toMatchObject({ status: 200, body: '<!doctype html><title>app</title>' });
    expect((await rawGet(base, '/assets/missing.js')).status).toBe(404);
  });
});

describe('when the UI needs a build', () => {
  const app = tmp.file('app');
  const index = path.join(app, 'dist', 'renderer', 'index.html');
  const at = (seconds: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, seconds));

  beforeAll(() => {
    put(path.join(app, 'renderer', 'vite.config.ts'), 'export default {};');
    put(path.join(app, 'renderer', 'views', 'View.tsx'), 'export {};');
    put(path.join(app, 'shared', 'domain.ts'), 'export {};');
    for (const file of ['renderer/vite.config.ts', 'renderer/views/View.tsx', 'shared/domain.ts']) fs.utimesSync(path.join(app, file), at(10), at(10));
  });

  it('builds when nothing is built, or the build is older than a source, and not otherwise', () => {
    const outDir = path.dirname(index);
    expect(rendererBuildReason(outDir, app)).toBe('not built yet');
    put(index, '<!doctype html>');
    fs.utimesSync(index, at(20), at(20));
    expect(rendererBuildReason(outDir, app)).toBeNull();
    fs.utimesSync(path.join(app, 'shared', 'domain.ts'), at(30), at(30));
    expect(rendererBuildReason(outDir, app)).toBe('older than its sources');
    fs.utimesSync(path.join(app, 'renderer', 'views', 'View.tsx'), at(40), at(40));
    fs.utimesSync(index, at(50), at(50));
    expect(rendererBuildReason(outDir, app)).toBeNull();
  });

  it('builds nothing where there are no sources (a packaged app)', () => {
    expect(rendererBuildReason(tmp.file('nothing-built'), tmp.file('no-sources'))).toBeNull();
  });

  it('says how to build the UI where Vite is not installed, and the server answers 503', async () => {
    const outDir = tmp.file('no-vite-ui');
    const logged: string[] = [];
    const server = createHttpServer({
      handlers: {} as Handlers,
      events: new EventBus(),
      staticDir: outDir,
      prepareStatic: rendererOnFirstUse({ outDir, appRoot: app, log: (m) => logged.push(m), loadVite: () => Promise.resolve(null) }),
      uploadDir: tmp.file('uploads'),
      host: '127.0.0.1',
      port: 0,
    });
    const base = await listen(server, '127.0.0.1', 0);
    try {
      const response = await rawGet(base, '/');
      expect(response.status).toBe(503);
      expect(response.body).toContain('npm run build:renderer');
      expect(logged.join('\n')).toMatch(/Vite .* is not installed/);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('keeps the previous build when a new one fails, leaving nothing half-built', async () => {
    const outDir = path.join(app, 'dist', 'renderer');
    put(index, '<!doctype html>');
    fs.utimesSync(index, at(5), at(5));
    const logged: string[] = [];
    const failing = {
      build: (config: Record<string, unknown>) => {
        // Vite would have started writing into the scratch folder it was given.
        put(path.join((config.build as { outDir: string }).outDir, 'index.html'), 'half');
        return Promise.reject(new Error('Transform failed: renderer/App.tsx'));
      },
    };
    await rendererOnFirstUse({ outDir, appRoot: app, log: (m) => logged.push(m), loadVite: () => Promise.resolve(failing) })();
    expect(fs.readFileSync(index, 'utf8')).toBe('<!doctype html>');
    expect(fs.readdirSync(path.dirname(outDir))).toEqual(['renderer']);
    expect(logged).toEqual([expect.stringContaining('older than its sources'), expect.stringContaining('Transform failed'), 'Serving the previous build of the UI.']);
  });
});

describe('awb serve on a fresh checkout', () => {
  it('builds the UI for the first request and serves it', async () => {
    const uiDir = tmp.file('ui-never-built');
    expect(fs.existsSync(uiDir)).toBe(false);
    const served = await startServer(['--db', tmp.file('fresh.db')], { AWB_HOME: tmp.file('home'), AWB_RENDERER_DIR: uiDir });
    let stderr = '';
    served.process.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    try {
      const page = await fetch(`${served.url}/`);
      expect(page.status, stderr).toBe(200);
      expect(page.headers.get('content-type')).toContain('text/html');
      const html = await page.text();
      expect(html).toContain('<div id="root"></div>');
      expect(stderr).toContain('Building the UI once');
      // The page's own script came out of the same build.
      const script = /<script[^>]+src="([^"]+\.js)"/.exec(html)?.[1];
      expect(script).toMatch(/^\/assets\//);
      const js = await fetch(`${served.url}${script}`);
      expect(js.status).toBe(200);
      expect(fs.existsSync(path.join(uiDir, 'index.html'))).toBe(true);
      // Nothing of the build is left beside it.
      expect(fs.readdirSync(path.dirname(uiDir)).filter((name) => name.startsWith('ui-never-built.'))).toEqual([]);
      // The repository's own build was not touched by this one.
      expect(path.relative(ROOT, uiDir).startsWith('..')).toBe(true);
    } finally {
      await served.stop();
    }
  }, 120_000);
});

afterAll(() => tmp.cleanup());
