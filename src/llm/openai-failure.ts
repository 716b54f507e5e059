import { APIConnectionError, APIError } from 'openai';
import { seconds } from '../net/politeness/policy';
import { parseRetryAfter } from '../net/retry';
import { heldFor, isRetryableStatus } from '../net/retry-policy';
import { LLMError } from './types';

/** A 429 without Retry-After still holds every run back this long. */
export const DEFAULT_BACKOFF_MS = 2_000;

/** What a failed call to an OpenAI-compatible server means: the error the run sees, and what the model's gate is told. */
export interface ModelFailure {
  error: LLMError;
  /** The server's HTTP status, when it answered. */
  status?: number;
  /** The wait the server asked of every run (a 429, a 503 with Retry-After), and why. */
  hold?: { ms: number; reason: string };
}

/**
 * Classifies what the SDK threw: a connection failure, a reply without content and a 408/409/429/5xx may pass; the
 * server's Retry-After travels with the error, and a 429 or a 503 that names its wait holds every run back.
 * @example classifyFailure(new APIConnectionError({ message: 'ECONNREFUSED' })).error.retryable // true
 */
export const classifyFailure = (err: unknown): ModelFailure => {
  const status = err instanceof APIError ? err.status : undefined;
  const connection = err instanceof APIConnectionError;
  const malformed = err instanceof LLMError && err.retryable;
  const retryable = connection || malformed || (err instanceof APIError && isRetryableStatus(status));
  const retryAfterMs = parseRetryAfter(err instanceof APIError ? err.headers?.get?.('retry-after') : undefined);
  const holdMs = heldFor(status, retryAfterMs, DEFAULT_BACKOFF_MS);
  const hold = holdMs === undefined ? undefined : { ms: holdMs, reason: `HTTP ${status}${retryAfterMs !== undefined ? ` with Retry-After ${seconds(retryAfterMs)}` : ''}` };
  return { error: new LLMError(describe(err, status), status, retryable, 'llm_error', retryAfterMs), status, hold };
};

/** Characters of the server's own error message a run keeps: enough for "model 'x' not found", not a whole HTML page. */
const SERVER_MESSAGE_CHARS = 300;

export const describe = (err: unknown, status: number | undefined) => {
  if (err instanceof APIConnectionError) return `the model server could not be reached (${err.message})`;
  // The server's words name the cause ("model 'default' not found", "maximum context length is 8192 tokens").
  if (status) return `the model server answered HTTP ${status}${serverWords(err, status)}`;
  return `the model call failed: ${err instanceof Error ? err.message : String(err)}`;
};

/** The SDK's message without its status prefix, on one line and bounded; empty when the server said nothing. */
const serverWords = (err: unknown, status: number) => {
  if (!(err instanceof Error)) return '';
  const words = err.message
    .replace(new RegExp(`^${status}\\s*`), '')
    .replace(/\s+/g, ' ')
    .trim();
  if (!words || /^status code \(no body\)$/.test(words)) return '';
  return `: ${words.length > SERVER_MESSAGE_CHARS ? `${words.slice(0, SERVER_MESSAGE_CHARS)}…` : words}`;
};
