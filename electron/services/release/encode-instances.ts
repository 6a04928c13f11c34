import { insertReleaseChunk, insertReleaseInstances, type ReleaseInstanceRow } from '../../../db/queries/releases';
import { AppError } from '../../../shared/api';
import { AMBIGUITY_TYPES } from '../../../shared/domain';
import { dataFileName } from '../../../shared/release/card';
import { Shredder } from '../../../shared/release/shred';
import { RELEASE_COLUMNS } from '../../../shared/release/schema';
import { encodeTask, type EncodedPart, type EncodeTask } from './encode';
import type { EncoderPool } from './encoder-pool';
import { HashedFile, ParquetAssembler } from './files';
import { completeFunnel } from './plan';
import { RELEASE_FORMAT, type ReleaseWriting } from './writing';

/**
 * A release's instances encoded into its data files: tasks of a row group's worth of one split's
 * instances, in key order, encoded in parallel (by the pool's workers, or here) and written in
 * the order they were made, so every file's bytes are the same whatever the timing. Each task's
 * frozen records go into the database as it is written.
 */

export interface SplitOutput {
  jsonl: HashedFile;
  parquet: ParquetAssembler;
}

/** What the main thread keeps of a task while it is encoded: where its results go. */
interface TaskMeta {
  split: number;
  positions: Int32Array;
  ids: Float64Array;
  types: Uint8Array;
}

type Bucket = { positions: number[]; ids: number[]; types: number[] };
const emptyBucket = (): Bucket => ({ positions: [], ids: [], types: [] });

export async function encodeInstances(writing: ReleaseWriting, releaseId: number, pool: EncoderPool | null): Promise<SplitOutput[]> {
  const { db, plan, options } = writing;
  const outputs = openOutputs(writing);
  const shredder = new Shredder(RELEASE_COLUMNS);
  const encode = (task: EncodeTask): Promise<EncodedPart> => (pool ? pool.run(task) : Promise.resolve().then(() => encodeTask(db, task, shredder)));
  const queue: { meta: TaskMeta; part: Promise<EncodedPart> }[] = [];
  const maxQueued = pool ? pool.size * 2 : 1;
  const rowGroupRows = options.rowGroupRows ?? 10_000;
  const buckets = plan.splits.map(emptyBucket);
  let seq = 0;
  let done = 0;
  let funnelCounted = false;
  const dispatch = (split: number) => {
    const bucket = buckets[split]!;
    if (!bucket.ids.length) return;
    const meta: TaskMeta = { split, positions: Int32Array.from(bucket.positions), ids: Float64Array.from(bucket.ids), types: Uint8Array.from(bucket.types) };
    buckets[split] = emptyBucket();
    const part = encode({ seq: seq++, ids: meta.ids.slice(), types: meta.types.slice() });
    part.catch(() => undefined); // a failure surfaces when the part is taken, in order
    queue.push({ meta, part });
  };
  const take = async () => {
    const { meta, part } = queue.shift()!;
    writePart(writing, releaseId, outputs, meta, await part);
    done += meta.ids.length;
    options.onProgress?.(done, plan.count);
    await new Promise((resolve) => setImmediate(resolve));
    if (options.signal?.aborted) throw new AppError('cancelled', 'Release cancelled; nothing was written.');
  };
  for (let i = 0; i < plan.count; i++) {
    const split = plan.splitOf[i]!;
    const bucket = buckets[split]!;
    bucket.positions.push(i);
    bucket.ids.push(plan.ids[i]!);
    bucket.types.push(plan.types[i]!);
    if (bucket.ids.length >= rowGroupRows) dispatch(split);
    if (queue.length > maxQueued) {
      // The encoders have work: count the card's funnel meanwhile, once.
      if (!funnelCounted) {
        completeFunnel(db, plan);
        funnelCounted = true;
      }
      await take();
    }
  }
  for (let split = 0; split < plan.splits.length; split++) dispatch(split);
  while (queue.length) await take();
  if (!funnelCounted) completeFunnel(db, plan);
  return outputs;
}

/** One JSON Lines and one Parquet file per split, in the temporary folder. */
function openOutputs(writing: ReleaseWriting): SplitOutput[] {
  // Nothing release-specific (name, version, date) inside data files: same content, same bytes.
  const kv = [{ key: 'awb.format', value: RELEASE_FORMAT }];
  return writing.plan.splits.map((split) => {
    const jsonl = new HashedFile(dataFileName(split, 'jsonl'), writing.temporary, writing.open);
    const parquet = new ParquetAssembler(dataFileName(split, 'parquet'), writing.temporary, writing.open, kv);
    writing.opened.push(jsonl, parquet.file);
    return { jsonl, parquet };
  });
}

/** An encoded task into its split's files, and its frozen records and instance rows into the database. */
function writePart(writing: ReleaseWriting, releaseId: number, outputs: SplitOutput[], meta: TaskMeta, part: EncodedPart): void {
  const { db, plan } = writing;
  if (part.keys.length !== meta.ids.length) throw new AppError('internal', `A release task came back with ${part.keys.length} of ${meta.ids.length} records.`);
  const split = plan.splits[meta.split]!;
  const output = outputs[meta.split]!;
  output.jsonl.write(part.jsonl);
  output.jsonl.rows += meta.ids.length;
  output.parquet.append(part.group);
  let entries: ReleaseInstanceRow[] = [];
  let k = 0;
  for (const frozen of part.frozen) {
    const chunk = insertReleaseChunk(db, releaseId, frozen.records, frozen.content);
    for (let line = 0; line < frozen.records; line++, k++) {
      entries.push({
        releaseId,
        key: part.keys[k]!,
        split,
        position: meta.positions[k]!,
        ambiguityType: AMBIGUITY_TYPES[meta.types[k]!]!,
        instanceId: meta.ids[k]!,
        sha256: part.hashes[k]!,
        chunk,
        line,
      });
      if (entries.length >= 100) {
        insertReleaseInstances(db, entries);
        entries = [];
      }
    }
  }
  insertReleaseInstances(db, entries);
  if (k !== meta.ids.length || part.hashes.length !== k) throw new AppError('internal', `A release task froze ${k} of ${meta.ids.length} records.`);
}
