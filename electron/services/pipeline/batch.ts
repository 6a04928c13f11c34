import { setMaxListeners } from 'node:events';
import OpenAI, { toFile } from 'openai';
import {
  batchLines, batchPolled, batchRefused, batchSubmitted, batchUploaded, getBatch, ingestBatch, latestBatchLine, OPEN_BATCH_STATES, planBatch, unfinishedBatches,
  type BatchLineRow, type BatchRow, type BatchState,
} from '../../../db/queries/llm-batches';
import type { WritableDB } from '../../../db/sql';
import { AppError } from '../../../shared/api';
import type { BatchMode, Endpoint } from '../../../shared/pipeline';
import { pause } from './pause';

/**
 * Batch mode: a stage's requests go to the endpoint's Batch API instead of one by one. Requests
 * wait in a queue per endpoint, model and stage (providers take one model per batch); a queue is
 * sent when it is full, or when nothing has joined it for `idleFlushMs` (every item in flight is
 * then waiting). Sending is three committed steps: the batch and its lines stored (`planned`), the
 * JSONL file uploaded (`uploaded`), the batch created with our batch id in its metadata
 * (`submitted`). Polling stores each status; a finished batch's output and error files are read
 * back into the stored lines in one transaction, and only then are the waiting calls answered.
 *
 * After a restart, batches not yet read back are found in the database and polled again (one only
 * uploaded is first looked for at the provider by its metadata, so it is never created twice); a
 * stage asking the same request again finds its line pending, answered or failed by its hash.
 * A line a batch did not answer is sent again in a new batch up to `resubmit` times; after that the
 * caller falls back (synchronously, or failing the item), as configured.
 */

export type BatchAnswer =
  | { kind: 'answered'; completion: OpenAI.Chat.Completions.ChatCompletion; batchId: number }
  | { kind: 'unanswered'; reason: string };

export interface BatchEndpoint {
  name: string;
  config: Endpoint;
  client: OpenAI;
}

export interface BatchRequest {
  hash: string;
  body: Record<string, unknown> & { model: string; messages: unknown };
  item: string;
  stage: string;
  type: string | null;
}

interface Queued extends BatchRequest {
  endpoint: string;
  attempt: number;
}

/** How the batcher checks spending before a batch goes out: the lines that fit, in order. */
export type BatchAllowance = (lines: readonly Queued[]) => number;

export class Batcher {
  private readonly queues = new Map<string, { lines: Queued[]; bytes: number; timer: NodeJS.Timeout | null }>();
  private readonly waiters = new Map<string, ((answer: BatchAnswer) => void)[]>();
  private readonly unsupported = new Map<string, string>();
  private readonly running = new Set<Promise<void>>();
  /** Batches this batcher sends, polls or reads back (a pending line of any other one is queued again). */
  private readonly known = new Set<number>();
  /** Stops polling when the run ends or is cancelled (open batches stay stored, for the next run). */
  private readonly halt = new AbortController();

  constructor(
    private readonly db: WritableDB,
    private readonly mode: BatchMode,
    private readonly runId: number,
    private readonly endpoints: ReadonlyMap<string, BatchEndpoint>,
    private readonly allowance: BatchAllowance,
    private readonly note: (line: string) => void,
    signal: AbortSignal | undefined,
  ) {
    // Every batch being polled waits on this signal: as many listeners as batches in flight is expected.
    setMaxListeners(100_000, this.halt.signal);
    signal?.addEventListener('abort', () => this.stop(), { once: true });
  }

  private get signal(): AbortSignal {
    return this.halt.signal;
  }

  /** Stops polling and answers every waiting call as cancelled; batches still open are resumed by the next run. */
  stop(): void {
    if (this.halt.signal.aborted) return;
    this.halt.abort();
    this.answerAll({ kind: 'unanswered', reason: 'cancelled' });
  }

  /** Whether this stage's calls to this endpoint go in batches. */
  takes(stage: string, endpoint: string): boolean {
    const config = this.endpoints.get(endpoint)?.config;
    return this.mode.enabled && this.mode.stages.includes(stage as never) && config !== undefined && config.batch !== 'none' && !this.unsupported.has(endpoint);
  }

  /** Why an endpoint's calls went synchronously after all (null: they did not). */
  unsupportedReason(endpoint: string): string | null {
    return this.unsupported.get(endpoint) ?? null;
  }

  /** Picks up every batch a run left unfinished: polled, read back, or sent on from where it stopped. */
  recover(): void {
    for (const row of unfinishedBatches(this.db)) {
      if (!this.endpoints.has(row.endpoint)) continue;
      this.track(this.resume(row));
    }
  }

  /** The answer to a request: from a line already read back, a batch in flight, or a new line queued. */
  ask(endpoint: string, request: BatchRequest): Promise<BatchAnswer> {
    if (this.signal.aborted) return Promise.resolve({ kind: 'unanswered', reason: 'cancelled' });
    // Looking up and registering happen in one synchronous step, so no read-back can fall between them.
    const earlier = latestBatchLine(this.db, request.hash);
    let attempt = 1;
    if (earlier?.state === 'done' && earlier.response) return Promise.resolve({ kind: 'answered', completion: JSON.parse(earlier.response), batchId: earlier.batch_id });
    if (earlier?.state === 'failed') {
      if (earlier.attempt > this.mode.resubmit) return Promise.resolve({ kind: 'unanswered', reason: earlier.error ?? 'the batch did not answer' });
      attempt = earlier.attempt + 1;
    }
    const answer = new Promise<BatchAnswer>((resolve) => this.waiters.set(request.hash, [...(this.waiters.get(request.hash) ?? []), resolve]));
    if (earlier?.state !== 'pending' || !this.known.has(earlier.batch_id)) this.enqueue({ ...request, endpoint, attempt });
    return answer;
  }

  /** Batches being sent, polled or read back now. */
  get inFlight(): number {
    return this.known.size;
  }

  private enqueue(line: Queued): void {
    const key = `${line.endpoint}\u0000${line.body.model}\u0000${line.stage}\u0000${line.attempt}`;
    const queue = this.queues.get(key) ?? { lines: [], bytes: 0, timer: null };
    this.queues.set(key, queue);
    queue.lines.push(line);
    queue.bytes += JSON.stringify(line.body).length + 200;
    if (queue.timer) clearTimeout(queue.timer);
    queue.timer = null;
    if (queue.lines.length >= this.mode.maxRequests || queue.bytes >= this.mode.maxBytes) this.flush(key);
    else queue.timer = setTimeout(() => this.flush(key), this.mode.idleFlushMs);
  }

  private flush(key: string): void {
    const queue = this.queues.get(key);
    if (!queue) return;
    if (queue.timer) clearTimeout(queue.timer);
    this.queues.delete(key);
    if (queue.lines.length) this.track(this.send(queue.lines));
  }

  private track(work: Promise<void>): void {
    const tracked = work
      .catch((error: unknown) => {
        if (!(error instanceof AppError && error.code === 'cancelled')) this.note(`batch mode: ${(error as Error).message}`);
      })
      .finally(() => this.running.delete(tracked));
    this.running.add(tracked);
  }

  /** Stores, uploads and creates one batch, then polls it; lines over the spending ceiling are answered at once as not sent. */
  private async send(lines: Queued[]): Promise<void> {
    const fit = this.allowance(lines);
    for (const line of lines.slice(fit)) this.answer(line.hash, { kind: 'unanswered', reason: 'budget' });
    if (fit === 0) return;
    const first = lines[0]!;
    const endpoint = this.endpoints.get(first.endpoint)!;
    const id = planBatch(
      this.db,
      { runId: this.runId, stage: first.stage, endpoint: endpoint.name, baseUrl: endpoint.config.baseURL, model: first.body.model, attempt: first.attempt },
      lines.slice(0, fit).map((l) => ({ request_hash: l.hash, item: l.item, stage: l.stage, ambiguity_type: l.type, body: JSON.stringify(l.body) })),
    );
    await this.resume(getBatch(this.db, id)!);
  }

  /** Takes a batch on from its stored state to read back. */
  private async resume(row: BatchRow): Promise<void> {
    const endpoint = this.endpoints.get(row.endpoint)!;
    if (this.known.has(row.id)) return;
    this.known.add(row.id);
    try {
      await this.carry(endpoint, row);
    } finally {
      this.known.delete(row.id);
    }
  }

  private async carry(endpoint: BatchEndpoint, row: BatchRow): Promise<void> {
    try {
      if (row.state === 'planned') row = await this.upload(endpoint, row);
      if (row.state === 'uploaded') row = await this.create(endpoint, row);
    } catch (error) {
      this.refuse(endpoint, row, error);
      return;
    }
    if ((OPEN_BATCH_STATES as readonly string[]).includes(row.state)) row = await this.poll(endpoint, row);
    if (row.ingested_at === null) await this.readBack(endpoint, row);
  }

  private async upload(endpoint: BatchEndpoint, row: BatchRow): Promise<BatchRow> {
    const shape = endpoint.config.batch;
    const jsonl = batchLines(this.db, row.id)
      .map((l) => JSON.stringify(shape === 'custom-id-body' ? { custom_id: l.request_hash, body: JSON.parse(l.body) } : { custom_id: l.request_hash, method: 'POST', url: '/v1/chat/completions', body: JSON.parse(l.body) }))
      .join('\n');
    const file = await endpoint.client.files.create({ file: await toFile(Buffer.from(`${jsonl}\n`), `awb-run${row.run_id}-batch${row.id}.jsonl`), purpose: 'batch' });
    batchUploaded(this.db, row.id, file.id);
    return getBatch(this.db, row.id)!;
  }

  private async create(endpoint: BatchEndpoint, row: BatchRow): Promise<BatchRow> {
    // A crash between creating the batch and storing its id: the provider has it, under our metadata.
    let created: OpenAI.Batch | undefined;
    for await (const batch of endpoint.client.batches.list({ limit: 100 })) {
      if (batch.metadata?.awb_batch === String(row.id) && batch.input_file_id === row.input_file_id) {
        created = batch;
        break;
      }
    }
    created ??= await endpoint.client.batches.create({
      input_file_id: row.input_file_id!,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
      metadata: { awb_run: String(row.run_id), awb_batch: String(row.id), awb_stage: row.stage },
    });
    batchSubmitted(this.db, row.id, created.id);
    return getBatch(this.db, row.id)!;
  }

  /** A batch the endpoint would not take: its lines go back unanswered; no Batch API at all means none of this run's batches go there. */
  private refuse(endpoint: BatchEndpoint, row: BatchRow, error: unknown): void {
    const status = error instanceof OpenAI.APIError ? error.status : undefined;
    const missing = status === 404 || status === 405 || status === 501;
    const reason = missing
      ? `endpoint ${endpoint.name} (${endpoint.config.baseURL}) has no Batch API (${status} on ${row.state === 'planned' ? '/files' : '/batches'})`
      : `endpoint ${endpoint.name} refused batch ${row.id}: ${(error as Error).message}`;
    if (missing && !this.unsupported.has(endpoint.name)) {
      this.unsupported.set(endpoint.name, reason);
      this.note(`${reason}: its calls go ${this.mode.fallback === 'sync' ? 'synchronously' : 'nowhere (fallback: fail)'}.`);
    }
    batchRefused(this.db, row.id, reason);
    for (const line of batchLines(this.db, row.id)) this.answer(line.request_hash, { kind: 'unanswered', reason });
  }

  /** Polls until the batch finishes; one open past `maxWaitHours` is cancelled (what it finished is still read back). */
  private async poll(endpoint: BatchEndpoint, row: BatchRow): Promise<BatchRow> {
    let cancelAsked = row.state === 'cancelling';
    for (;;) {
      if (this.signal.aborted) throw new AppError('cancelled', 'Cancelled');
      const batch = await endpoint.client.batches.retrieve(row.provider_batch_id!);
      const state = batch.status as BatchState;
      batchPolled(this.db, row.id, {
        state,
        completed: batch.request_counts?.completed ?? 0,
        failed: batch.request_counts?.failed ?? 0,
        outputFileId: batch.output_file_id ?? null,
        errorFileId: batch.error_file_id ?? null,
        errors: batch.errors?.data ?? [],
      });
      row = getBatch(this.db, row.id)!;
      if (!(OPEN_BATCH_STATES as readonly string[]).includes(state)) return row;
      const waited = (Date.now() - Date.parse(row.submitted_at ?? row.created_at)) / 3_600_000;
      if (!cancelAsked && waited > this.mode.maxWaitHours) {
        cancelAsked = true;
        this.note(`batch ${row.id} (${row.provider_batch_id}) was still ${state} after ${this.mode.maxWaitHours} h: cancelled; what it finished is kept, the rest is sent again.`);
        await endpoint.client.batches.cancel(row.provider_batch_id!);
      }
      await pause(this.mode.pollSeconds * 1000, this.signal);
    }
  }

  /** Reads a finished batch's files into its lines (one transaction), then answers the waiting calls and re-queues what failed. */
  private async readBack(endpoint: BatchEndpoint, row: BatchRow): Promise<void> {
    const answered = new Map<string, string>();
    const failed = new Map<string, string>();
    const read = async (fileId: string | null) => (fileId ? (await (await endpoint.client.files.content(fileId)).text()).split('\n').filter((l) => l.trim()) : []);
    for (const text of [...(await read(row.output_file_id)), ...(await read(row.error_file_id))]) {
      const line = JSON.parse(text) as { custom_id: string; response?: { status_code: number; body: unknown } | null; error?: { code?: string; message?: string } | null };
      if (line.response?.status_code === 200 && !line.error) answered.set(line.custom_id, JSON.stringify(line.response.body));
      else failed.set(line.custom_id, lineError(line));
    }
    const errors = JSON.parse(row.errors) as { code?: string; message?: string; line?: number }[];
    const whole = errors.length ? errors.map((e) => `${e.code ?? 'error'}${e.line ? ` (line ${e.line})` : ''}: ${e.message ?? ''}`).join('; ') : `the batch ended ${row.state}`;
    const lines = batchLines(this.db, row.id);
    for (const l of lines) if (!answered.has(l.request_hash) && !failed.has(l.request_hash)) failed.set(l.request_hash, `not answered: ${whole}`);
    ingestBatch(this.db, row.id, answered, failed);
    const limited = errors.some((e) => e.code === 'token_limit_exceeded');
    if (limited) this.note(`batch ${row.id}: the provider's queue for ${row.model} was full (token_limit_exceeded); its lines are sent again.`);
    for (const l of lines) {
      const response = answered.get(l.request_hash);
      if (response) this.answer(l.request_hash, { kind: 'answered', completion: JSON.parse(response), batchId: row.id });
      else this.retry(endpoint, row, l, failed.get(l.request_hash)!, limited);
    }
  }

  private retry(endpoint: BatchEndpoint, row: BatchRow, line: BatchLineRow, reason: string, queueFull: boolean): void {
    if (!this.waiters.has(line.request_hash)) return; // nobody waits now; a later ask finds it failed and decides
    const attempt = queueFull ? row.attempt : row.attempt + 1;
    if (attempt > this.mode.resubmit + 1) return this.answer(line.request_hash, { kind: 'unanswered', reason: `batch ${row.id}: ${reason}` });
    this.enqueue({ hash: line.request_hash, body: JSON.parse(line.body), item: line.item, stage: line.stage, type: line.ambiguity_type, endpoint: endpoint.name, attempt });
  }

  private answer(hash: string, answer: BatchAnswer): void {
    const waiting = this.waiters.get(hash);
    this.waiters.delete(hash);
    for (const resolve of waiting ?? []) resolve(answer);
  }

  private answerAll(answer: BatchAnswer): void {
    for (const hash of [...this.waiters.keys()]) this.answer(hash, answer);
    for (const queue of this.queues.values()) if (queue.timer) clearTimeout(queue.timer);
    this.queues.clear();
  }
}

function lineError(line: { response?: { status_code: number; body: unknown } | null; error?: { code?: string; message?: string } | null }): string {
  if (line.error) return `${line.error.code ?? 'error'}: ${line.error.message ?? ''}`.trim();
  const body = line.response?.body as { error?: { message?: string } } | undefined;
  return `status ${line.response?.status_code ?? 'none'}: ${body?.error?.message ?? 'no message'}`;
}
