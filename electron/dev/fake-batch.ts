/**
 * A stand-in for OpenAI's Batch API, beside a fake chat endpoint: `POST /files` (multipart, purpose
 * `batch`), `GET /files/{id}/content`, `DELETE /files/{id}`, `POST /batches`, `GET /batches/{id}`,
 * `POST /batches/{id}/cancel` and `GET /batches`. Each line is answered by the same function as a
 * synchronous call, so a batched run and a synchronous one see the same answers. Time is virtual:
 * a batch moves on one step per poll (validating, in progress, completed), so tests never sleep.
 * Faults are scripted: no Batch API at all, a batch that expires part done, lines that fail, a
 * file that fails validation, a full queue once (token_limit_exceeded), a batch that never ends.
 */

export interface FakeBatchOptions {
  /** false: 404 on /files and /batches, as a server without a Batch API answers. */
  supported?: boolean;
  /** Polls before a batch completes (default 2). */
  pollsToComplete?: number;
  /** Expires at this poll, with the first `expireDone` share of its lines answered (default 0.5). */
  expireAfterPolls?: number;
  expireDone?: number;
  /** Every n-th line (by line number) fails with status 500 in the error file. */
  failEvery?: number;
  /** The input file fails validation: the batch ends `failed` with line errors and no output. */
  invalid?: boolean;
  /** The first batch created fails with token_limit_exceeded (the provider's queue was full). */
  tokenLimitOnce?: boolean;
  /** Stays in progress until cancelled; cancelling answers the first half of its lines. */
  neverComplete?: boolean;
}

export interface ChatAnswer {
  status?: number;
  content: string | null;
  promptTokens?: number;
  completionTokens?: number;
}

interface Batch {
  id: string;
  object: 'batch';
  endpoint: string;
  input_file_id: string;
  completion_window: string;
  status: string;
  created_at: number;
  metadata: Record<string, string> | null;
  request_counts: { total: number; completed: number; failed: number };
  output_file_id?: string | null;
  error_file_id?: string | null;
  errors?: { object: 'list'; data: { code: string; message: string; line?: number }[] } | null;
  polls: number;
  cancelRequested: boolean;
  tokenLimited: boolean;
}

export interface FakeBatchApi {
  options: FakeBatchOptions;
  /** Batches created, and every line answered (custom_id), in order: what a test checks for double spending. */
  readonly created: string[];
  readonly answered: string[];
  /** Answers a request to /files or /batches (null: not one of these routes). */
  handle(method: string, path: string, contentType: string, body: Buffer): Promise<{ status: number; body: string; type: string } | null>;
}

type Line = { custom_id: string; method?: string; url?: string; body: Record<string, unknown> };

export function fakeBatchApi(answer: (body: Record<string, unknown>) => ChatAnswer | Promise<ChatAnswer>, options: FakeBatchOptions = {}): FakeBatchApi {
  const files = new Map<string, { purpose: string; filename: string; content: string }>();
  const batches = new Map<string, Batch>();
  const api: FakeBatchApi = { options, created: [], answered: [], handle };
  let counter = 0;
  let tokenLimitUsed = false;
  const json = (status: number, value: unknown) => ({ status, body: JSON.stringify(value), type: 'application/json' });
  const notFound = (what: string) => json(404, { error: { message: `No such ${what}`, type: 'invalid_request_error' } });
  const view = (b: Batch) => {
    const { polls: _p, cancelRequested: _c, tokenLimited: _t, ...shown } = b;
    return shown;
  };

  function addFile(purpose: string, filename: string, content: string): string {
    const id = `file-${++counter}`;
    files.set(id, { purpose, filename, content });
    return id;
  }

  /** Answers the lines [0, upTo) into an output file and an error file; the rest get `rest` as their error. */
  async function finish(b: Batch, status: string, upTo: number, rest: { code: string; message: string } | null): Promise<void> {
    const lines = files.get(b.input_file_id)!.content.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as Line);
    const out: string[] = [];
    const errors: string[] = [];
    for (const [i, line] of lines.entries()) {
      const id = `batch_req_${++counter}`;
      if (i >= upTo) {
        if (rest) errors.push(JSON.stringify({ id, custom_id: line.custom_id, response: null, error: rest }));
        continue;
      }
      const failing = api.options.failEvery && (i + 1) % api.options.failEvery === 0;
      const reply = failing ? null : await answer(line.body);
      if (!reply || (reply.status && reply.status !== 200)) {
        errors.push(JSON.stringify({ id, custom_id: line.custom_id, response: { status_code: reply?.status ?? 500, request_id: id, body: { error: { message: 'scripted line failure', type: 'server_error' } } }, error: null }));
        continue;
      }
      api.answered.push(line.custom_id);
      const prompt = reply.promptTokens ?? 10;
      const completion = reply.completionTokens ?? 5;
      const chat = {
        id: `chatcmpl-${id}`, object: 'chat.completion', created: 1_700_000_000, model: line.body.model,
        choices: [{ index: 0, message: { role: 'assistant', content: reply.content, refusal: null }, finish_reason: 'stop' }],
        usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
      };
      out.push(JSON.stringify({ id, custom_id: line.custom_id, response: { status_code: 200, request_id: id, body: chat }, error: null }));
    }
    b.status = status;
    b.request_counts = { total: lines.length, completed: out.length, failed: errors.length };
    b.output_file_id = out.length ? addFile('batch_output', `${b.id}_output.jsonl`, `${out.join('\n')}\n`) : null;
    b.error_file_id = errors.length ? addFile('batch_output', `${b.id}_error.jsonl`, `${errors.join('\n')}\n`) : null;
  }

  /** One poll: the batch moves on a step. */
  async function advance(b: Batch): Promise<void> {
    if (['completed', 'failed', 'expired', 'cancelled'].includes(b.status)) return;
    b.polls++;
    const total = b.request_counts.total;
    if (b.tokenLimited) {
      b.status = 'failed';
      b.errors = { object: 'list', data: [{ code: 'token_limit_exceeded', message: `Enqueued token limit reached for ${String(b.metadata?.model ?? 'the model')}. Please try again once some in_progress batches have been completed.` }] };
    } else if (b.cancelRequested) {
      await finish(b, 'cancelled', Math.floor(total / 2), { code: 'batch_cancelled', message: 'The batch was cancelled before this request ran.' });
    } else if (api.options.expireAfterPolls !== undefined && b.polls >= api.options.expireAfterPolls) {
      await finish(b, 'expired', Math.floor(total * (api.options.expireDone ?? 0.5)), { code: 'batch_expired', message: 'This request could not be executed before the completion window expired.' });
    } else if (api.options.neverComplete || b.polls < (api.options.pollsToComplete ?? 2)) {
      b.status = 'in_progress';
    } else {
      await finish(b, 'completed', total, null);
    }
  }

  async function createBatch(body: Record<string, unknown>) {
    const file = files.get(String(body.input_file_id));
    if (!file || file.purpose !== 'batch') return json(400, { error: { message: `input_file_id ${String(body.input_file_id)} is not a file with purpose batch`, type: 'invalid_request_error' } });
    if (body.completion_window !== '24h') return json(400, { error: { message: 'completion_window must be 24h', type: 'invalid_request_error' } });
    const lines = file.content.split('\n').filter((l) => l.trim());
    const problems: { code: string; message: string; line: number }[] = [];
    const seen = new Set<string>();
    lines.forEach((text, i) => {
      try {
        const line = JSON.parse(text) as Line;
        if (seen.has(line.custom_id)) problems.push({ code: 'duplicate_custom_id', message: `custom_id ${line.custom_id} repeats`, line: i + 1 });
        seen.add(line.custom_id);
        if (line.url !== undefined && line.url !== body.endpoint) problems.push({ code: 'mismatched_endpoint', message: `url ${line.url} is not ${String(body.endpoint)}`, line: i + 1 });
      } catch {
        problems.push({ code: 'invalid_json_line', message: 'not JSON', line: i + 1 });
      }
    });
    if (api.options.invalid) problems.push({ code: 'invalid_request', message: 'scripted: the file does not validate', line: 1 });
    const b: Batch = {
      id: `batch_${++counter}`, object: 'batch', endpoint: String(body.endpoint), input_file_id: String(body.input_file_id), completion_window: '24h',
      status: problems.length ? 'failed' : 'validating', created_at: 1_700_000_000 + counter, metadata: (body.metadata as Record<string, string>) ?? null,
      request_counts: { total: lines.length, completed: 0, failed: 0 }, errors: problems.length ? { object: 'list', data: problems } : null,
      polls: 0, cancelRequested: false, tokenLimited: Boolean(api.options.tokenLimitOnce && !tokenLimitUsed),
    };
    if (b.tokenLimited) tokenLimitUsed = true;
    batches.set(b.id, b);
    api.created.push(b.id);
    return json(200, view(b));
  }

  async function handle(method: string, path: string, contentType: string, raw: Buffer) {
    const route = /\/(files|batches)(?:\/([^/]+))?(?:\/(content|cancel))?$/.exec(path);
    if (!route) return null;
    if (api.options.supported === false) return json(404, { error: { message: `no route ${path}`, type: 'invalid_request_error' } });
    const [, kind, id, action] = route;
    if (kind === 'files') {
      if (method === 'POST' && !id) {
        const form = await new Request('http://fake/', { method: 'POST', headers: { 'content-type': contentType }, body: new Uint8Array(raw) }).formData();
        const file = form.get('file');
        const purpose = String(form.get('purpose') ?? '');
        if (purpose !== 'batch' || !(file instanceof Blob)) return json(400, { error: { message: 'expected a file with purpose batch', type: 'invalid_request_error' } });
        const content = await file.text();
        const name = 'name' in file ? String(file.name) : 'upload.jsonl';
        const fileId = addFile(purpose, name, content);
        return json(200, { id: fileId, object: 'file', bytes: Buffer.byteLength(content), created_at: 1_700_000_000, filename: name, purpose, status: 'processed' });
      }
      const file = id ? files.get(id) : undefined;
      if (!file) return notFound('file');
      if (method === 'GET' && action === 'content') return { status: 200, body: file.content, type: 'application/octet-stream' };
      if (method === 'DELETE') {
        files.delete(id!);
        return json(200, { id, object: 'file', deleted: true });
      }
      return notFound('route');
    }
    if (method === 'POST' && !id) return createBatch(JSON.parse(raw.toString('utf8') || '{}') as Record<string, unknown>);
    if (method === 'GET' && !id) {
      const data = [...batches.values()].reverse().map(view);
      return json(200, { object: 'list', data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: false });
    }
    const b = id ? batches.get(id) : undefined;
    if (!b) return notFound('batch');
    if (method === 'POST' && action === 'cancel') {
      if (!['completed', 'failed', 'expired', 'cancelled'].includes(b.status)) {
        b.cancelRequested = true;
        b.status = 'cancelling';
      }
      return json(200, view(b));
    }
    if (method === 'GET') {
      await advance(b);
      return json(200, view(b));
    }
    return notFound('route');
  }

  return api;
}
