import { releaseChunk, type FrozenAt } from '../../../db/queries/releases';
import type { ReadableDB } from '../../../db/sql';
import { decodeFrozenChunk } from '../../../db/frozen-records';
import { AppError } from '../../../shared/api';

/**
 * Reads a release's frozen records by where they are stored (chunk and line). Records are
 * compressed a chunk at a time, so the last few chunks read stay decoded: reading in position
 * order (evaluation, gold) decodes each chunk once, and the scattered reads of a diff decode only
 * the chunks they touch.
 */
export class FrozenRecords {
  private readonly chunks = new Map<number, string[]>();

  constructor(
    private readonly db: ReadableDB,
    private readonly keep = 4,
  ) {}

  line(at: FrozenAt): string {
    let lines = this.chunks.get(at.chunk);
    if (!lines) {
      const chunk = releaseChunk(this.db, at.chunk);
      if (!chunk) throw new AppError('internal', `The frozen records of chunk ${at.chunk} are missing`);
      lines = decodeFrozenChunk(chunk.content, chunk.records);
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
