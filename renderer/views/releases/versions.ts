import type { ReleaseListRow } from '../../../shared/api';
import { compareSemver } from '../../../shared/release/semver';

/** The version of the same release just before this one, for "compare with previous". */
export function previousVersion(rows: readonly ReleaseListRow[], release: { id: number; name: string; version: string }): ReleaseListRow | null {
  const earlier = rows.filter((r) => r.name === release.name && r.id !== release.id && compareSemver(r.version, release.version) < 0);
  return earlier.sort((a, b) => compareSemver(a.version, b.version)).at(-1) ?? null;
}

export const diffHref = (a: number, b: number, kinds: readonly string[] = []) => `/releases/diff?a=${a}&b=${b}${kinds.length ? `&kind=${kinds.join(',')}` : ''}`;
