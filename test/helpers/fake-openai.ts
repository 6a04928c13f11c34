import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fakeBatchApi, type FakeBatchApi } from '../../electron/dev/fake-batch';

/**
 * A fake OpenAI-compatible server on 127.0.0.1, for tests that run the real `openai` SDK over
 * real HTTP. Embeddings are deterministic (derived from a hash of the text). Behaviour can be
 * scripted per request: fail with a status (and `retry-after`), answer HTML, stall, or return
 * malformed vectors.
 */

export type EmbeddingFault =
  | { kind: 'status'; status: number; retryAfter?: number; times?: number }
  | { kind: 'html'; times?: number }
  | { kind: 'dimensions'; dimensions: number }
  | { kind: 'nan' }
  | { kind: 'garbage' };

export interface ChatReply {
  /** Status other than 200 to fail with. */
  status?: number;
  retryAfter?: number;
  /** Raw body instead of a JSON completion (e.g. an HTML error page). */
  raw?: string;
  content?: string | null;
  refusal?: string;
  finishReason?: string;
  delayMs?: number;
  promptTokens?: number;
  completionTokens?: number;
  /** Token log-probabilities to return as `choices[0].logprobs.content`. */
  logprobs?: { token: string; logprob: number; top_logprobs: { token: string; logprob: number }[] }[];
}

export interface RecordedRequest {
  path: string;
  body: Record<string, unknown>;
  headers: http.IncomingHttpHeaders;
}

export interface FakeOpenAI {
  url: string;
  requests: RecordedRequest[];
  dimensions: number;
  embeddingFaults: EmbeddingFault[];
  /** Decides the chat reply for a request; the default echoes a fixed JSON object. */
  chat: (body: Record<string, unknown>, index: number) => ChatReply | Promise<ChatReply>;
  /** The Batch API beside the chat endpoint (its lines answered by `chat`); script faults with `batch.options`. */
  batch: FakeBatchApi;
  close(): Promise<void>;
}

export function fakeVector(text: string, dimensions: number): number[] {
  const out: number[] = [];
  let counter = 0;
  while (out.length < dimensions) {
    const digest = createHash('sha256').update(`${counter++}|${text}`).digest();
    for (let i = 0; i + 4 <= digest.length && out.length < dimensions; i += 4) out.push(digest.readInt32LE(i) / 2 ** 31);
  }
  const norm = Math.sqrt(out.reduce((s, v) => s + v * v, 0));
  return out.map((v) => v / norm);
}

export async function startFakeOpenAI(options: { dimensions?: number } = {}): Promise<FakeOpenAI> {
  let chatIndex = 0;
  const fake: FakeOpenAI = {
    url: '',
    requests: [],
    dimensions: options.dimensions ?? 64,
    embeddingFaults: [],
    chat: () => ({ content: '{}' }),
    batch: fakeBatchApi(async (body) => {
      const reply = await fake.chat(body, chatIndex++);
      return { ...(reply.status ? { status: reply.status } : {}), content: reply.content ?? null, promptTokens: reply.promptTokens ?? 10, completionTokens: reply.completionTokens ?? 5 };
    }),
    close: async () => undefined,
  };
  const sendJson = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const batchReply = await fake.batch.handle(req.method ?? 'GET', (req.url ?? '').replace(/\?.*$/, ''), req.headers['content-type'] ?? '', Buffer.concat(chunks));
        if (batchReply) {
          fake.requests.push({ path: (req.url ?? '').replace(/\?.*$/, ''), body: {}, headers: req.headers });
          res.writeHead(batchReply.status, { 'content-type': batchReply.type });
          res.end(batchReply.body);
          return;
        }
        let body: Record<string, unknown> = {};
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
        } catch {
          sendJson(res, 400, { error: { message: 'bad json' } });
          return;
        }
        const path = (req.url ?? '').replace(/\?.*$/, '');
        fake.requests.push({ path, body, headers: req.headers });
        if (path.endsWith('/embeddings')) {
          const fault = fake.embeddingFaults[0];
          if (fault && 'times' in fault && fault.times !== undefined) {
            fault.times--;
            if (fault.times <= 0) fake.embeddingFaults.shift();
          }
          if (fault?.kind === 'status') {
            sendJson(res, fault.status, { error: { message: `scripted ${fault.status}`, type: 'test' } }, fault.retryAfter !== undefined ? { 'retry-after': String(fault.retryAfter) } : {});
            return;
          }
          if (fault?.kind === 'html') {
            res.writeHead(502, { 'content-type': 'text/html' });
            res.end('<html><body><h1>502 Bad Gateway</h1></body></html>');
            return;
          }
          const input = Array.isArray(body.input) ? (body.input as string[]) : [String(body.input)];
          const dims = fault?.kind === 'dimensions' ? fault.dimensions : ((body.dimensions as number | undefined) ?? fake.dimensions);
          sendJson(res, 200, {
            object: 'list',
            model: body.model,
            data: input.map((text, index) => ({
              object: 'embedding',
              index,
              embedding: fault?.kind === 'garbage' ? 'not a vector' : fault?.kind === 'nan' && index === 0 ? [NaN, ...fakeVector(text, dims - 1)].map((v) => (Number.isNaN(v) ? 'NaN' : v)) : fakeVector(text, dims),
            })),
            usage: { prompt_tokens: input.length, total_tokens: input.length },
          });
          return;
        }
        if (path.endsWith('/chat/completions')) {
          const reply = await fake.chat(body, chatIndex++);
          if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
          if (res.destroyed) return;
          if (reply.raw !== undefined) {
            res.writeHead(reply.status ?? 200, { 'content-type': reply.raw.startsWith('<') ? 'text/html' : 'application/json' });
            res.end(reply.raw);
            return;
          }
          if (reply.status && reply.status !== 200) {
            sendJson(res, reply.status, { error: { message: `scripted ${reply.status}`, type: 'test' } }, reply.retryAfter !== undefined ? { 'retry-after': String(reply.retryAfter) } : {});
            return;
          }
          sendJson(res, 200, {
            id: `chatcmpl-${chatIndex}`,
            object: 'chat.completion',
            created: 1_700_000_000,
            model: body.model,
            choices: [
              {
                index: 0,
                message: { role: 'assistant', content: reply.content ?? null, refusal: reply.refusal ?? null },
                ...(reply.logprobs ? { logprobs: { content: reply.logprobs, refusal: null } } : {}),
                finish_reason: reply.finishReason ?? 'stop',
              },
            ],
            usage: {
              prompt_tokens: reply.promptTokens ?? 10,
              completion_tokens: reply.completionTokens ?? 5,
              total_tokens: (reply.promptTokens ?? 10) + (reply.completionTokens ?? 5),
            },
          });
          return;
        }
        sendJson(res, 404, { error: { message: `no route ${path}` } });
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  fake.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return fake;
}

/**
 * Replies the test lets go of when it chooses: each held request stays in flight until then. A
 * test that needs a call to be under way (to cancel it, kill the process or count what is in
 * flight) holds it, instead of making the model slow and hoping the timing works out.
 */
export function heldReplies() {
  const waiting: (() => void)[] = [];
  return {
    /** A promise of `reply` that settles when the test releases it. */
    hold<T>(reply: T): Promise<T> {
      return new Promise((resolve) => waiting.push(() => resolve(reply)));
    },
    /** How many requests are held now. */
    get count(): number {
      return waiting.length;
    },
    /** Lets the oldest held request answer. */
    releaseOne(): void {
      waiting.shift()?.();
    },
    /** Lets every held request answer (a request whose client went away answers no one). */
    releaseAll(): void {
      for (const release of waiting.splice(0)) release();
    },
  };
}

