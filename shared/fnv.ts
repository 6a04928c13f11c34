/**
 * FNV-1a, 32 bits: a small, well-known hash over a string's UTF-16 units that gives the same value
 * on every machine. Stable subsets, passage fingerprints and ROUGE's token table use it; the
 * constants are exported for loops that hash characters as they scan them.
 */

export const FNV_OFFSET = 0x811c9dc5;
export const FNV_PRIME = 0x01000193;

/** The FNV-1a hash of a string, as an unsigned 32-bit integer. */
export function fnv1a(text: string): number {
  let hash = FNV_OFFSET;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), FNV_PRIME);
  return hash >>> 0;
}
