import OpenAI from 'openai';
import { AppError } from '../../../shared/api';
import { pause } from './pause';

/** The wire side of model calls: per-minute windows, finding the JSON in an answer, and saying why a call failed. */

/** Requests (or tokens) per minute: waits until the last minute's use leaves room. */
export class MinuteWindow {
  private readonly used: { at: number; amount: number }[] = [];
  private total = 0;

  constructor(private readonly limit: number) {}

  async take(amount: number, signal: AbortSignal | undefined): Promise<void> {
    const wanted = Math.min(amount, this.limit);
    for (;;) {
      if (signal?.aborted) throw new AppError('cancelled', 'Cancelled');
      const now = Date.now();
      while (this.used.length && now - this.used[0]!.at >= 60_000) this.total -= this.used.shift()!.amount;
      if (this.total + wanted <= this.limit) {
        this.used.push({ at: now, amount: wanted });
        this.total += wanted;
        return;
      }
      await pause(Math.max(5, 60_000 - (now - this.used[0]!.at)), signal);
    }
  }
}

export function isLocal(url: string): boolean {
  try {
    return ['localhost', '127.0.0.1', '::1', '[::1]'].includes(new URL(url).hostname);
  } catch {
    return false;
  }
}

/** Finds the JSON object in an answer: the whole text, or a fenced or embedded object. */
export function extractJson(text: string): unknown {
  const trimmed = text.trim();
  try {
    return JSON.parse(trimmed);
  } catch {
    const fenced = /```(?:json)?\s*([\s\S]*?)```/.exec(trimmed);
    if (fenced) return JSON.parse(fenced[1]!);
    const start = trimmed.indexOf('{');
    const end = trimmed.lastIndexOf('}');
    if (start !== -1 && end > start) return JSON.parse(trimmed.slice(start, end + 1));
    throw new Error('no JSON object in the answer');
  }
}

export function describe(error: unknown, baseURL: string): string {
  if (error instanceof OpenAI.APIConnectionTimeoutError) return `the request timed out (${baseURL})`;
  if (error instanceof OpenAI.APIConnectionError) {
    // fetch wraps the socket's error: the code (ECONNREFUSED, ENOTFOUND, ...) is further down.
    let cause: unknown = error.cause;
    let detail = error.message;
    for (let depth = 0; cause && depth < 4; depth++, cause = (cause as { cause?: unknown }).cause) {
      const { code, message } = cause as { code?: string; message?: string };
      detail = code ?? message ?? detail;
      if (code) break;
    }
    return `could not reach ${baseURL}: ${detail}`;
  }
  if (error instanceof OpenAI.APIError) {
    const body = typeof error.error === 'string' ? error.error : '';
    const html = /<html|<!doctype/i.test(body) || /<html|<!doctype/i.test(error.message);
    return `${error.status ?? 'no status'}${html ? ' (an HTML page, not JSON)' : ''}: ${error.message.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').slice(0, 200)}`;
  }
  if (error instanceof SyntaxError) return `the endpoint answered something that is not JSON (${error.message.slice(0, 120)})`;
  return (error as Error).message ?? String(error);
}

/**
 * Runs a request under its own abort signal, tied to the run's for as long as the request lasts.
 * The SDK never removes the listener it adds to the signal it is given: given the run's signal,
 * every call of a long run would leave one behind (and Node warns of a leak past ten).
 */
export async function withRequestSignal<T>(run: AbortSignal | undefined, request: (signal: AbortSignal | undefined) => Promise<T>): Promise<T> {
  if (!run) return request(undefined);
  const controller = new AbortController();
  const abort = () => controller.abort(run.reason);
  run.addEventListener('abort', abort, { once: true });
  try {
    return await request(controller.signal);
  } finally {
    run.removeEventListener('abort', abort);
  }
}

export function extractJsonSafe(text: string): unknown {
  try {
    return extractJson(text);
  } catch {
    return undefined;
  }
}
