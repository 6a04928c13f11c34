import { releaseChunk, type FrozenAt } from '../../../db/queries/releases';
import type { ReadableDB } from '../../../db/sql';
import { decodeFrozenChunk } from '../../../db/frozen-records';
import { AppError } from '../../../shared/api';

/**
 * Reads a release's frozen records by where they are stored (chunk and line). Records are
 * compressed a chunk at a time, one split per chunk, so the chunks read last stay decoded (least
 * recently used goes first): reading in position order keeps one chunk open per split, a diff one
 * per split of each release. `keep` must cover that; `chunksFor` sizes it.
 */
export class FrozenRecords {
  private readonly chunks = new Map<number, string[]>();
  /** Chunks decompressed so far (tests check that reading in order decodes each once). */
  decoded = 0;

  constructor(
    private readonly db: ReadableDB,
    private readonly keep = 8,
  ) {}

  /** A cache size for reading in order across these many splits (of one or two releases). */
  static chunksFor(splits: number): number {
    return Math.max(8, 2 * splits + 2);
  }

  line(at: FrozenAt): string {
    let lines = this.chunks.get(at.chunk);
    if (lines) {
      // Most recently used last.
      this.chunks.delete(at.chunk);
      this.chunks.set(at.chunk, lines);
    } else {
      const chunk = releaseChunk(this.db, at.chunk);
      if (!chunk) throw new AppError('internal', `The frozen records of chunk ${at.chunk} are missing`);
      lines = decodeFrozenChunk(chunk.content, chunk.records);
      this.decoded++;
      this.chunks.set(at.chunk, lines);
      if (this.chunks.size > this.keep) this.chunks.delete(this.chunks.keys().next().value!);
    }
    const line = lines[at.line];
    if (line === undefined) throw new AppError('internal', `Chunk ${at.chunk} has no frozen record ${at.line}`);
    return line;
  }

  record<T>(at: FrozenAt): T {
    return JSON.parse(this.line(at)) as T;
  }
}
