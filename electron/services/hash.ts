import { hash } from 'node:crypto';

/**
 * The one SHA-256 of the services, as lower-case hex: release checksums, session and token
 * digests, pack ids, the model-call cache key. (Streaming hashes of large files use
 * `createHash` where they read; db/ keys passages by its own digest, since db/ sits below.)
 */
export function sha256(data: string | Uint8Array): string {
  return hash('sha256', data, 'hex');
}

/** The same digest as its 32 bytes, for keys stored as blobs (the embedding cache's). */
export function sha256Bytes(data: string | Uint8Array): Buffer {
  return hash('sha256', data, 'buffer');
}
