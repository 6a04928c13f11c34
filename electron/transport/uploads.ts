import fs from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { HttpError } from './request';

/**
 * Files that come in over HTTP for an import (`POST /api/upload?name=FILE`). Each upload gets a
 * folder of its own named by a random id, so the file keeps its name (which error reports show).
 * The reply names it by reference, `upload:<id>/<name>`, never by its place on the server; an
 * operation's input may use that reference where it takes an uploaded file, and the server turns
 * it back into the path. Uploads are bounded in size (`--max-upload-mb`, 512 by default) and
 * removed once nothing in them changed for a day, used or not (but never judging results: a pack
 * the owner opened in the browser is judged where it was uploaded).
 */

export const DEFAULT_MAX_UPLOAD_BYTES = 512 * 1024 * 1024;
export const UPLOAD_MAX_AGE_MS = 24 * 3600_000;
const REFERENCE = /^upload:([0-9a-f-]{36})\/([\w.-]{1,200})$/;

export interface UploadReply {
  /** What to give an import: `upload:<id>/<name>`. */
  upload: string;
  name: string;
  bytes: number;
}

function safeName(requested: string | null): string {
  const name = path.basename(requested ?? 'upload.json').replace(/[^\w.-]+/g, '_').replace(/^\.+/, '').slice(0, 200);
  return name || 'upload.json';
}

/** Receives one upload into its own folder; over `maxBytes` it is refused with 413 and nothing is kept. */
export async function receiveUpload(req: http.IncomingMessage, uploadDir: string, maxBytes: number): Promise<UploadReply> {
  const declared = Number(req.headers['content-length'] ?? NaN);
  const tooBig = () => new HttpError(413, 'invalid_input', `The upload is over the limit of ${Math.round(maxBytes / 1024 / 1024)} MB (awb serve --max-upload-mb).`);
  if (declared > maxBytes) throw tooBig();
  const id = randomUUID();
  const name = safeName(new URL(req.url ?? '/', 'http://localhost').searchParams.get('name'));
  const folder = path.join(uploadDir, id);
  await fs.promises.mkdir(folder, { recursive: true });
  const file = await fs.promises.open(path.join(folder, name), 'w');
  let bytes = 0;
  let over = false;
  try {
    for await (const chunk of req.iterator({ destroyOnReturn: false })) {
      bytes += (chunk as Buffer).length;
      if (bytes > maxBytes) {
        over = true;
        break;
      }
      await file.write(chunk as Buffer);
    }
  } catch (error) {
    await file.close();
    await fs.promises.rm(folder, { recursive: true, force: true });
    throw new HttpError(400, 'invalid_input', `The upload did not arrive whole: ${(error as Error).message}`);
  }
  await file.close();
  if (over) {
    await fs.promises.rm(folder, { recursive: true, force: true });
    throw tooBig();
  }
  return { upload: `upload:${id}/${name}`, name, bytes };
}

/** The file an `upload:<id>/<name>` reference names, or null when the text is no such reference. */
export function uploadPath(reference: string, uploadDir: string): string | null {
  const match = REFERENCE.exec(reference);
  return match ? path.join(uploadDir, match[1]!, match[2]!) : null;
}

/** The input with each upload reference in `fields` (`path`, `session.pack`) turned into its file. */
export function resolveUploads(input: unknown, fields: readonly string[], uploadDir: string): unknown {
  const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
  if (!isObject(input)) return input;
  const out: Record<string, unknown> = { ...input };
  for (const field of fields) {
    const [head, key] = field.includes('.') ? field.split('.', 2) : [null, field];
    const holder = head === null ? out : isObject(out[head]) ? (out[head] = { ...(out[head] as Record<string, unknown>) }) : null;
    const value = holder?.[key!];
    const file = typeof value === 'string' ? uploadPath(value, uploadDir) : null;
    if (holder && file) holder[key!] = file;
  }
  return out;
}

/** A result with every mention of an uploaded file turned back into its `upload:` reference. */
export function hideServerPaths<T>(value: T, uploadDir: string): T {
  const root = path.resolve(uploadDir);
  const text = JSON.stringify(value);
  if (text === undefined) return value;
  const escaped = JSON.stringify(root + path.sep).slice(1, -1);
  if (!text.includes(escaped)) return value;
  return JSON.parse(text.split(escaped).join('upload:').replace(/upload:([0-9a-f-]{36})(\\\\|\/)/g, 'upload:$1/')) as T;
}

/** When a folder or a file in it last changed; null when it holds judging results (a pack judged where it was uploaded), which are kept. */
function lastTouched(folder: string): number | null {
  let newest = fs.statSync(folder).mtimeMs;
  for (const name of fs.readdirSync(folder)) {
    if (name.endsWith('.results.jsonl')) return null;
    newest = Math.max(newest, fs.statSync(path.join(folder, name)).mtimeMs);
  }
  return newest;
}

/** Removes upload folders nothing touched for `maxAgeMs` (judging results excepted); returns how many. */
export function sweepUploads(uploadDir: string, maxAgeMs = UPLOAD_MAX_AGE_MS, now = Date.now()): number {
  let removed = 0;
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(uploadDir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const entry of entries) {
    if (!entry.isDirectory()) continue;
    const folder = path.join(uploadDir, entry.name);
    try {
      const touched = lastTouched(folder);
      if (touched !== null && now - touched > maxAgeMs) {
        fs.rmSync(folder, { recursive: true, force: true });
        removed++;
      }
    } catch {
      // Gone meanwhile, or not ours to remove: the next sweep tries again.
    }
  }
  return removed;
}
