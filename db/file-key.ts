import fs from 'node:fs';
import path from 'node:path';

/**
 * One name for one database file however it was named (relative, through a symlink, in another
 * letter case where the file system ignores case): its real path, or the absolute path when the
 * file cannot be resolved (removed since it was opened).
 */
export function databaseFileKey(name: string): string {
  // SQLite opens the name trimmed.
  const file = name.trim();
  try {
    return fs.realpathSync.native(file);
  } catch {
    return path.resolve(file);
  }
}
