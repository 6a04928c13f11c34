import fs from 'node:fs';
import path from 'node:path';

/**
 * Which file of the built renderer a URL path names, for both static servers: the desktop app's
 * `app://` handler and `awb serve`. A request never leaves the renderer folder: the path is
 * decoded once, resolved, and must stay inside the folder by `path.relative` (a bare prefix
 * test lets `/../renderer-evil/x` through), and again after following symlinks.
 */

export type StaticLookup =
  /** An existing file inside the folder. */
  | { kind: 'file'; file: string }
  /** A client-side route (no extension): the app's page answers it. */
  | { kind: 'app-page'; file: string }
  | { kind: 'not-found' }
  /** The path points outside the folder. */
  | { kind: 'forbidden' }
  /** The path cannot be decoded, or holds a NUL. */
  | { kind: 'bad-request' };

export const MIME: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

export function contentType(file: string): string {
  return MIME[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
}

function inside(root: string, file: string): boolean {
  const relative = path.relative(root, file);
  return relative === '' || (!path.isAbsolute(relative) && relative !== '..' && !relative.startsWith(`..${path.sep}`));
}

/**
 * The absolute path a URL path (as in `new URL(...).pathname`, still percent-encoded) names
 * inside `root`, or why it names none. The file need not exist.
 */
export function resolveInside(root: string, urlPath: string): { ok: true; file: string } | { ok: false; reason: 'forbidden' | 'bad-request' } {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return { ok: false, reason: 'bad-request' };
  }
  if (decoded.includes('\0')) return { ok: false, reason: 'bad-request' };
  // A backslash is a separator on Windows and never part of a file the renderer build makes.
  if (decoded.includes('\\')) return { ok: false, reason: 'forbidden' };
  const base = path.resolve(root);
  const file = path.resolve(base, `.${path.posix.sep}${decoded}`);
  if (!inside(base, file)) return { ok: false, reason: 'forbidden' };
  // A symlink inside the folder must not lead out of it.
  if (fs.existsSync(file)) {
    try {
      if (!inside(fs.realpathSync(base), fs.realpathSync(file))) return { ok: false, reason: 'forbidden' };
    } catch {
      return { ok: false, reason: 'forbidden' };
    }
  }
  return { ok: true, file };
}

/** What to answer for a URL path: a file, the app's page (for client-side routes), or an error. */
export function lookupStatic(root: string, urlPath: string): StaticLookup {
  const resolved = resolveInside(root, urlPath);
  if (!resolved.ok) return { kind: resolved.reason };
  const { file } = resolved;
  if (fs.existsSync(file) && fs.statSync(file).isFile()) return { kind: 'file', file };
  if (!path.extname(file)) return { kind: 'app-page', file: path.join(path.resolve(root), 'index.html') };
  return { kind: 'not-found' };
}
