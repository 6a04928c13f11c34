import { hash } from 'node:crypto';

/**
 * The one SHA-256 of the services, as lower-case hex: release checksums, session and token
 * digests, pack ids, the model-call cache key. (Streaming hashes of large files use
 * `createHash` where they read; db/ keys passages by its own digest, since db/ sits below.)
 */
export function sha256(data: string | Uint8Array): string {
  return hash('sha256', data, 'hex');
}
