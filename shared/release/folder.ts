/**
 * Where a release is written when no folder is given: `releases/<name>-<version>` beside the
 * database. The folder's name is also the zip's top folder in browser mode's download, so both
 * come from here.
 */

/** `MARCH mini` 1.1.0 → `MARCH-mini-1.1.0`. */
export function releaseFolderName(name: string, version: string): string {
  return `${(name.trim() || 'dataset').replace(/[^A-Za-z0-9._-]+/g, '-')}-${version.trim()}`;
}

/** The default folder for a release, given the database's path (either separator). */
export function defaultReleaseFolder(databasePath: string, name: string, version: string): string {
  const separator = databasePath.includes('\\') && !databasePath.includes('/') ? '\\' : '/';
  const at = Math.max(databasePath.lastIndexOf('/'), databasePath.lastIndexOf('\\'));
  const dir = at >= 0 ? databasePath.slice(0, at) : '.';
  return [dir, 'releases', releaseFolderName(name, version)].join(separator);
}
