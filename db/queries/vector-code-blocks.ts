import type { CodeBlock } from '../../shared/retrieval/vector-codes';
import { get, iterate, run, sql, type ReadableDB, type WritableDB } from '../sql';

/**
 * Blocks of vector codes (`vector_code_blocks`, migration vector-code-blocks): the codes of one batch of a
 * model's vectors in one corpus, laid out as the dense search scans them (shared/retrieval/
 * vector-codes.ts), so a search loads a million codes by reading a few hundred rows. A block is
 * written in the transaction that stores its vectors (storeEmbeddings), so the blocks of a model
 * and corpus always hold a code for every vector it has; a vector deleted since leaves its code
 * behind until the blocks are compacted (the exact scores that end a search skip it).
 */

interface BlockRow {
  id: number;
  size: number;
  ids: Buffer;
  head: Buffer;
  tail: Buffer;
  planes: Buffer;
  weights: Buffer;
}

const bytesOf = (array: Float64Array | Uint32Array | Uint8Array | Float32Array) => Buffer.from(array.buffer, array.byteOffset, array.byteLength);

export function insertCodeBlock(db: WritableDB, modelId: number, corpusId: number, block: CodeBlock): void {
  if (block.size === 0) return;
  run(
    db,
    sql`INSERT INTO vector_code_blocks (model_id, corpus_id, size, ids, head, tail, planes, weights)
        VALUES (${modelId}, ${corpusId}, ${block.size}, ${bytesOf(block.ids)}, ${bytesOf(block.head)}, ${bytesOf(block.tail)},
                ${bytesOf(block.planes)}, ${bytesOf(block.weights)})`,
  );
}

/** The typed array over a blob, copied only when the blob's bytes are not aligned for it. */
function view<T extends Float64Array | Uint32Array | Float32Array>(type: { new (buffer: ArrayBufferLike, offset: number, length: number): T; BYTES_PER_ELEMENT: number; new (length: number): T }, blob: Buffer): T {
  const length = blob.byteLength / type.BYTES_PER_ELEMENT;
  if (blob.byteOffset % type.BYTES_PER_ELEMENT === 0) return new type(blob.buffer, blob.byteOffset, length);
  const copy = new type(length);
  new Uint8Array(copy.buffer).set(blob);
  return copy;
}

function toBlock(row: BlockRow): CodeBlock & { id: number } {
  return {
    id: row.id,
    size: row.size,
    ids: view(Float64Array, row.ids),
    head: view(Uint32Array, row.head),
    tail: view(Uint32Array, row.tail),
    planes: new Uint8Array(row.planes.buffer, row.planes.byteOffset, row.planes.byteLength),
    weights: view(Float32Array, row.weights),
  };
}

const scope = (modelId: number, corpusId: number | null) =>
  corpusId === null ? sql`model_id = ${modelId}` : sql`model_id = ${modelId} AND corpus_id = ${corpusId}`;

/** How many blocks a model holds (in a corpus or in all), the last one's id, and the codes in them. */
export function codeBlockSummary(db: ReadableDB, modelId: number, corpusId: number | null): { blocks: number; lastId: number; codes: number } {
  return get<{ blocks: number; lastId: number; codes: number }>(
    db,
    sql`SELECT count(*) AS blocks, coalesce(max(id), 0) AS lastId, coalesce(sum(size), 0) AS codes FROM vector_code_blocks WHERE ${scope(modelId, corpusId)}`,
  )!;
}

/** The blocks of a model (in a corpus or in all) after block `afterId`, in the order they were written. */
export function* codeBlocksAfter(db: ReadableDB, modelId: number, corpusId: number | null, afterId: number): Generator<CodeBlock & { id: number }> {
  for (const row of iterate<BlockRow>(
    db,
    sql`SELECT id, size, ids, head, tail, planes, weights FROM vector_code_blocks WHERE ${scope(modelId, corpusId)} AND id > ${afterId} ORDER BY id`,
  )) {
    yield toBlock(row);
  }
}

export function deleteCodeBlocks(db: WritableDB, modelId: number, corpusId: number | null): void {
  run(db, sql`DELETE FROM vector_code_blocks WHERE ${scope(modelId, corpusId)}`);
}
