import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { AppError } from '../../shared/api';
import { locateAnswer } from '../../shared/checks';
import { DETECTABLE_TYPES, type DetectableType, type SchemaName } from '../../shared/pipeline';
import { contentTerms } from '../../shared/retrieval/terms';
import { ANSWERABILITY_LABELS, DOMAIN_SLUGS } from '../../shared/domain';
import { constructionReply, type FakeConstructionItem } from './fake-construction';
import { fakeBatchApi, type FakeBatchApi, type FakeBatchOptions } from './fake-batch';
import { fakeEvalReply, type FakeEvalAnswer } from './fake-eval-model';
import { clarifiedType, FakeProfileSchema, profileAnswer, profileDetect, profileFilter, type FakeProfile } from './fake-profile';
import { ambiguousExpression, candidates, ORDINALS, promptPassages, words } from './fake-text';

export { promptPassages } from './fake-text';

/**
 * A stand-in for an OpenAI-compatible model server, for the tests and for trying the pipeline
 * offline: `/v1/chat/completions` answers each of the pipeline's requests the way a careful
 * model would (short answers copied from the passages in the prompt, long answers built from the
 * short ones, shortened answers cut from the current one), and `/v1/embeddings` gives bag-of-words
 * vectors, so re-ranking by them means something. What cannot be read off the prompt (is this
 * question ambiguous? how does it clarify? is the entry aligned?) follows a script: defaults for
 * every question and entries for chosen ones, matched by a piece of the question's text.
 */

/** A verdict for every model, or per model name (models not named say no / not aligned). */
export type FakeVerdict = boolean | Record<string, boolean>;

export interface FakeItem extends FakeConstructionItem {
  /** Matches base questions (and their clarified questions) that contain this text, any case. */
  question: string;
  detect?: Partial<Record<DetectableType, FakeVerdict>>;
  /** The clarified questions to give. */
  clarify?: string[];
  /** Short answers for the clarified questions, in the same order (copied from a passage when one has them). */
  answers?: string[];
  /** The filter models' verdict on the finished instance. */
  filter?: FakeVerdict;
}

export interface FakeScript {
  /** Detector verdicts for questions no item names (default: semantic yes, the others no). */
  detect?: Partial<Record<DetectableType, FakeVerdict>>;
  /** The filter verdict where no item names one (default: aligned). */
  filter?: FakeVerdict;
  items?: FakeItem[];
  /** Verdicts and answers drawn per item from a rejection profile (MARCH_PROFILE: MARCH's funnel) instead of the defaults above. */
  profile?: FakeProfile;
  /** Never return token log-probabilities, even when asked (an endpoint without them: G-Eval then samples). */
  noLogprobs?: boolean;
}

export interface FakeReply {
  status?: number;
  content: string | null;
  promptTokens: number;
  completionTokens: number;
  /** Token log-probabilities (`choices[0].logprobs.content`), when asked for and given. */
  logprobs?: FakeEvalAnswer['logprobs'];
}

interface ChatBody {
  model?: string;
  messages?: { role: string; content: string }[];
  response_format?: { type: string; json_schema?: { name?: string } };
}

const SCHEMA_KEYS: [SchemaName, string[]][] = [
  ['detect_syntactic', ['phenomena']],
  ['clarify', ['clarified_questions']],
  ['decompose', ['sub_questions']],
  ['long_answer', ['long_answer']],
  ['filter', ['aligned']],
  ['short_answer', ['answer', 'passage']],
  ['shorten', ['answer']],
];

/** The schema a request asks for: named in json_schema mode, else read off the schema sent in the instructions. */
export function requestedSchema(body: ChatBody): SchemaName | null {
  const named = body.response_format?.json_schema?.name;
  if (named) return named as SchemaName;
  const system = body.messages?.[0]?.content ?? '';
  const schemaText = /matching this JSON Schema:\s*(\{[\s\S]*\})\s*$/.exec(system)?.[1];
  let keys: string[] = [];
  try {
    keys = schemaText ? Object.keys((JSON.parse(schemaText) as { properties?: Record<string, unknown> }).properties ?? {}) : [];
  } catch {
    keys = [];
  }
  if (keys.includes('ambiguous') && !keys.includes('phenomena')) return /constraint ambiguity/i.test(system) ? 'detect_constraint' : 'detect_semantic';
  for (const [name, wanted] of SCHEMA_KEYS) if (wanted.every((k) => keys.includes(k)) && (name !== 'shorten' || !keys.includes('passage'))) return name;
  return null;
}

const line = (text: string, label: string) => new RegExp(`^${label}: (.*)$`, 'm').exec(text)?.[1]?.trim() ?? '';

function matches(item: FakeItem, ...texts: string[]): boolean {
  const needle = item.question.toLowerCase();
  return texts.some((t) => t.toLowerCase().includes(needle)) || texts.some((t) => item.clarify?.includes(t) ?? false);
}

function verdict(value: FakeVerdict | undefined, model: string, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  return typeof value === 'boolean' ? value : (value[model] ?? false);
}

/**
 * The fake model: the reply to one chat request. Pure apart from reading the script, so the
 * tests can call it directly or through the server.
 */
export function fakeModel(script: FakeScript = {}): (body: Record<string, unknown>) => FakeReply {
  const items = script.items ?? [];
  return (raw) => {
    const body = raw as ChatBody;
    const model = body.model ?? '';
    const system = body.messages?.find((m) => m.role === 'system')?.content ?? '';
    // The first user message is the prompt; later ones are follow-ups (a repair, a retry).
    const user = body.messages?.find((m) => m.role === 'user')?.content ?? '';
    const question = line(user, 'Question') || line(user, 'Original question');
    const item = items.find((i) => matches(i, question));
    const reply = (value: unknown): FakeReply => ({
      content: JSON.stringify(value),
      promptTokens: Math.ceil((system.length + user.length) / 4),
      completionTokens: Math.ceil(JSON.stringify(value).length / 4),
    });
    const schema = requestedSchema(body);
    // The evaluation's calls (its "clarify" is CLARION's, which shows an analysis; the pipeline's does not).
    const evaluation = schema && (schema !== 'clarify' || /^Analysis: /m.test(user)) ? fakeEvalReply(schema, { user, system, logprobs: (raw as { logprobs?: unknown }).logprobs === true && !script.noLogprobs }) : null;
    if (evaluation) return { ...reply(evaluation.value), ...(evaluation.logprobs ? { logprobs: evaluation.logprobs } : {}) };
    switch (schema) {
      case 'detect_semantic':
      case 'detect_syntactic':
      case 'detect_constraint': {
        const type = schema.slice('detect_'.length) as DetectableType;
        const ambiguous = script.profile && !item ? profileDetect(script.profile, question, type, model) : verdict(item?.detect?.[type] ?? script.detect?.[type], model, type === 'semantic');
        const reason = ambiguous ? `"${ambiguousExpression(question)}" can be taken in more than one way here` : `the question reads one way only as far as ${type} ambiguity goes`;
        return reply(type === 'syntactic' ? { ambiguous, phenomena: ambiguous ? [1] : [], reason } : { ambiguous, reason });
      }
      case 'clarify': {
        if (item?.clarify) return reply({ clarified_questions: item.clarify });
        const n = Math.max(2, Number(/at least (\d+) clarified/.exec(user)?.[1] ?? 2));
        const expression = ambiguousExpression(question);
        const base = question.replace(/[?.!\s]+$/u, '');
        // With a profile the type is part of each clarified question, so later stages can draw per instance.
        const kind = script.profile ? ` ${clarifiedType(system)}` : '';
        return reply({ clarified_questions: Array.from({ length: n }, (_, i) => `${base}, taking "${expression}" in its ${ORDINALS[i] ?? `${i + 1}th`}${kind} sense?`) });
      }
      case 'decompose':
        // One self-contained step per clarified question: enough for retrieval to pool from.
        return reply({ sub_questions: [question] });
      case 'short_answer': {
        const passages = promptPassages(user);
        const scripted = item?.answers?.[item.clarify?.indexOf(question) ?? -1];
        if (scripted !== undefined) {
          const index = passages.findIndex((p) => locateAnswer(p, scripted) !== null);
          // Not in any passage: answered from memory, as a model may (the pipeline must catch it).
          return reply({ answer: scripted, passage: index === -1 ? 1 : index + 1 });
        }
        const clarified = /^(.*), taking ".*" in its (\w+)(?: (\w+))? sense\?$/.exec(question);
        const sense = clarified ? ORDINALS.indexOf(clarified[2]!) : -1;
        const asked = words(question);
        const ranked = passages
          .map((text, index) => ({ index, text, overlap: [...words(text)].filter((w) => asked.has(w)).length }))
          .sort((a, b) => b.overlap - a.overlap || a.index - b.index);
        const pool = ranked.flatMap((p) => candidates(p.text, question).map((answer) => ({ answer, index: p.index })));
        const drawn = script.profile && clarified ? profileAnswer(script.profile, clarified[1]!, clarified[3] ?? '', sense) : Math.max(0, sense);
        if (drawn === 'unsupported') return reply({ answer: '', passage: 0 });
        // A drawn collision: every interpretation takes the same answer (the first in text order of its passages' candidates).
        const same = script.profile && clarified && drawn === 0 ? [...pool].sort((a, b) => a.answer.localeCompare(b.answer))[0] : undefined;
        const pick = same ?? pool[drawn] ?? pool[0];
        return reply(pick ? { answer: pick.answer, passage: pick.index + 1 } : { answer: '', passage: 0 });
      }
      case 'long_answer': {
        const lines = [...user.matchAll(/^(\d+)\. (.*) Answer: (.*) \(passage (\d+)\)$/gm)];
        return reply({
          long_answer: `The question can be understood in ${lines.length} ways: ${lines.map((m) => `asked as "${m[2]!.trim()}", the answer is ${m[3]}`).join('; ')}.`,
          citations: lines.map((m) => ({ interpretation: Number(m[1]), passage: Number(m[4]) })),
        });
      }
      case 'shorten': {
        const most = Number(/at most (\d+) words/.exec(system)?.[1] ?? 10);
        const current = line(user, 'Current answer');
        return reply({ answer: current.split(/\s+/).slice(0, Math.max(1, Math.min(most, 3))).join(' ') });
      }
      case 'filter': {
        const aligned = script.profile && !item ? profileFilter(script.profile, question, line(user, 'Kind of ambiguity'), model) : verdict(item?.filter ?? script.filter, model, true);
        return reply({ aligned, reason: aligned ? 'the interpretations differ, and each answer is supported by its passage' : 'the interpretations do not match the stated ambiguity' });
      }
      default: {
        const value = schema === null ? undefined : constructionReply(schema, user, model, item);
        return value === undefined ? { status: 400, content: null, promptTokens: 0, completionTokens: 0 } : reply(value);
      }
    }
  };
}

/** Bag-of-words vectors: each content word hashed to a dimension; similar wording, similar vectors. */
export function fakeEmbedding(text: string, dimensions: number): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  for (const term of contentTerms(text)) {
    const digest = createHash('sha256').update(term).digest();
    vector[digest.readUInt32LE(0) % dimensions]! += digest[4]! & 1 ? 1 : -1;
  }
  const norm = Math.sqrt(vector.reduce((s, v) => s + v * v, 0));
  // A text with no content words still gets a direction (the SDK and the pipeline expect one).
  if (norm === 0) vector[0] = 1;
  return norm === 0 ? vector : vector.map((v) => v / norm);
}

export interface FakeEndpoint {
  url: string;
  /** Requests answered, by path. */
  counts: Record<string, number>;
  /** The Batch API beside the chat endpoint (same answers). */
  batch: FakeBatchApi;
  close(): Promise<void>;
}

/**
 * Serves the fake model over HTTP on `host` (default 127.0.0.1) and `port` (0: any free port):
 * `POST /v1/chat/completions`, `POST /v1/embeddings`, `GET /v1/models`. Point a pipeline config's
 * endpoint (or `AWB_BASE_URL`) at the URL it gives.
 */
export async function startFakeEndpoint(options: { port?: number; host?: string; script?: FakeScript; dimensions?: number; batch?: FakeBatchOptions } = {}): Promise<FakeEndpoint> {
  const answer = fakeModel(options.script);
  const batch = fakeBatchApi(answer, options.batch);
  const counts: Record<string, number> = {};
  const send = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => void route(req, res, Buffer.concat(chunks)));
  });
  const route = async (req: http.IncomingMessage, res: http.ServerResponse, raw: Buffer) => {
    const path = (req.url ?? '').replace(/\?.*$/, '').replace(/\/+$/, '');
    counts[path] = (counts[path] ?? 0) + 1;
    const batched = await batch.handle(req.method ?? 'GET', path, req.headers['content-type'] ?? '', raw);
    if (batched) {
      res.writeHead(batched.status, { 'content-type': batched.type });
      res.end(batched.body);
      return;
    }
    if (req.method === 'GET' && path.endsWith('/models')) {
      send(res, 200, { object: 'list', data: [{ id: 'fake-model', object: 'model', owned_by: 'awb' }] });
      return;
    }
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(raw.toString('utf8') || '{}') as Record<string, unknown>;
    } catch {
      send(res, 400, { error: { message: 'the request body is not JSON', type: 'invalid_request_error' } });
      return;
    }
    if (path.endsWith('/embeddings')) {
      const input = Array.isArray(body.input) ? (body.input as string[]) : [String(body.input ?? '')];
      const dimensions = typeof body.dimensions === 'number' ? body.dimensions : (options.dimensions ?? 64);
      send(res, 200, {
        object: 'list',
        model: body.model,
        data: input.map((text, index) => ({ object: 'embedding', index, embedding: fakeEmbedding(text, dimensions) })),
        usage: { prompt_tokens: input.length, total_tokens: input.length },
      });
      return;
    }
    if (path.endsWith('/chat/completions')) {
      const reply = answer(body);
      if (reply.status && reply.status !== 200) {
        send(res, reply.status, { error: { message: 'the fake model does not know this request', type: 'invalid_request_error' } });
        return;
      }
      send(res, 200, {
        id: `chatcmpl-fake-${counts[path]}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: body.model,
        choices: [{ index: 0, message: { role: 'assistant', content: reply.content, refusal: null }, ...(reply.logprobs ? { logprobs: { content: reply.logprobs, refusal: null } } : {}), finish_reason: 'stop' }],
        usage: { prompt_tokens: reply.promptTokens, completion_tokens: reply.completionTokens, total_tokens: reply.promptTokens + reply.completionTokens },
      });
      return;
    }
    send(res, 404, { error: { message: `no route ${path}`, type: 'invalid_request_error' } });
  };
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}/v1`,
    counts,
    batch,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const Verdict = z.union([z.boolean(), z.record(z.string(), z.boolean())]);
const Detect = z.object(Object.fromEntries(DETECTABLE_TYPES.map((t) => [t, Verdict.optional()])) as Record<DetectableType, z.ZodOptional<typeof Verdict>>).strict();

/** A script as a JSON file holds it, checked. */
export const FakeScriptSchema = z
  .object({
    detect: Detect.optional(),
    filter: Verdict.optional(),
    profile: FakeProfileSchema.optional(),
    items: z
      .array(
        z
          .object({
            question: z.string().min(1),
            detect: Detect.optional(),
            clarify: z.array(z.string().min(1)).min(1).optional(),
            answers: z.array(z.string()).optional(),
            filter: Verdict.optional(),
            tuples: z.array(z.object({ condition: z.string().min(1), answer: z.string().min(1), fragment: z.number().int().min(1) }).strict()).optional(),
            rounds: z.number().int().min(0).optional(),
            badCitation: z.boolean().optional(),
            answerability: z.union([z.enum(ANSWERABILITY_LABELS), z.record(z.string(), z.enum(ANSWERABILITY_LABELS))]).optional(),
            domain: z.union([z.enum(DOMAIN_SLUGS), z.record(z.string(), z.enum(DOMAIN_SLUGS))]).optional(),
          })
          .strict(),
      )
      .optional(),
    noLogprobs: z.boolean().optional(),
  })
  .strict();

/** Reads and checks a script file (JSON). */
export function readFakeScript(file: string): FakeScript {
  let json: unknown;
  try {
    json = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    throw new AppError('invalid_input', `Cannot read the fake model's script ${file}: ${(error as Error).message}`);
  }
  const parsed = FakeScriptSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new AppError('invalid_input', `The fake model's script ${file}: ${issue.path.join('.') || '(top level)'}: ${issue.message}`);
  }
  return parsed.data as FakeScript;
}
