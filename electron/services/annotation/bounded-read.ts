import fs from 'node:fs';
import path from 'node:path';
import { AppError } from '../../../shared/api';

/**
 * The largest files the annotation side reads whole: a judgments file (CSV or JSON Lines), an
 * offline pack and its results. Past these a file is refused by its size before it is read, with
 * the limit in the message, so a runaway file costs neither the memory nor the time.
 */
export const MAX_JUDGMENT_FILE_BYTES = 64 * 1024 * 1024;
export const MAX_PACK_BYTES = 256 * 1024 * 1024;
export const MAX_RESULTS_BYTES = 64 * 1024 * 1024;

const mb = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MB`;

/** A file's text, refused (invalid_input) past `maxBytes`; not_found when it cannot be read. */
export function readTextBounded(file: string, maxBytes: number, what: string): string {
  let size: number;
  try {
    size = fs.statSync(file).size;
  } catch {
    throw new AppError('not_found', `No ${what} at ${file}`);
  }
  if (size > maxBytes) throw new AppError('invalid_input', `${path.basename(file)} is ${mb(size)}, over the limit of ${mb(maxBytes)} for ${what}s; nothing was imported. Split it into smaller files.`);
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    throw new AppError('not_found', `No ${what} at ${file}`);
  }
}
