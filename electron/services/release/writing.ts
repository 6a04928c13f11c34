import type { WritableDB } from '../../../db/sql';
import type { ReleaseCreateRequest, ReleaseSummary } from '../../../shared/api';
import type { OpenSink } from './files';
import type { ReleasePlan } from './plan';

/** What the steps of writing a release (create.ts, encode-instances.ts) share. */

export const RELEASE_FORMAT = 'awb-release/1';

export interface CreateOptions {
  appVersion: string;
  signal?: AbortSignal;
  onProgress?: (done: number, total: number) => void;
  /** Tests: where bytes go (a sink that fails plays a full disk). */
  openSink?: OpenSink;
  /** Instances per Parquet row group (default 10,000); also the size of one encoding task. */
  rowGroupRows?: number;
  /** Fixed date for the card (tests); default today. */
  date?: string;
  /**
   * Encoder workers (encode.ts). By default one per core, at most two, for releases of 5,000
   * instances or more (below that, starting them costs more than they save); 0 encodes on the
   * main thread, as it does when the database is in memory.
   */
  encoders?: number;
}

/** The files of a release being written, and how to remove them if it fails. */
export interface ReleaseWriting {
  db: WritableDB;
  plan: ReleasePlan;
  request: ReleaseCreateRequest;
  options: CreateOptions;
  /** The folder the release is written into, renamed to `out` once complete. */
  temporary: string;
  out: string;
  open: OpenSink;
  /** Every file opened, aborted if the release fails. */
  opened: { abort(): void }[];
  /** The gate's result, with the reason it was forced (if it was). */
  gate: ReleaseSummary['gate'];
  /** The reason the licence check was overridden, or null. */
  licenceForced: string | null;
}

