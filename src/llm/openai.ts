import OpenAI, { APIConnectionError, APIError } from 'openai';
import { cappedFetch } from '../net/capped-fetch';
import { seconds } from '../net/politeness/policy';
import { backoffMs, isRetryableStatus, parseRetryAfter, retrying } from '../net/retry';
import { replyPieces, retryBudget, startAttempt } from './call-budget';
import { throughModelGate, type ModelGate } from './model-gate';
import { cutAtStop } from './stop';
import type { ChatRequest, ChatResult, LLM } from './types';
import { LLMError } from './types';

export interface OpenAIProviderOptions {
  baseURL: string;
  apiKey?: string;
  model?: string;
  /** The whole reply, headers and body, must arrive within this (LLM_TIMEOUT_MS). */
  timeoutMs: number;
  /** Bytes of one reply body, streamed or not (LLM_MAX_RESPONSE_BYTES). */
  maxResponseBytes: number;
  maxRetries: number;
  /** For tests: the fetch the SDK uses. */
  fetch?: typeof fetch;
  /** Send OpenAI's `prompt_cache_key` (default: only to api.openai.com; see `sendsCacheKey`). */
  promptCacheKey?: boolean;
  acceptsImages?: boolean;
  /**
   * The politeness gate of a model (src/llm/model-gate.ts), shared by every run: each attempt, retries included,
   * waits there for a slot and for any Retry-After another run was given, and reports its status back.
   */
  gateFor?: (model: string) => ModelGate;
}

/** A 429 without Retry-After still holds every run back this long. */
const DEFAULT_BACKOFF_MS = 2_000;

/** The model list is asked for by /healthz, which must answer quickly even when the model server does not. */
const MODEL_LIST_TIMEOUT_MS = 3_000;

/** Statuses of a server that has no model list (llama.cpp builds, proxies): not a fault. */
const NO_MODEL_LIST = new Set([404, 405, 501]);

/**
 * OpenAI's prompt cache routes requests with the same `prompt_cache_key` and prefix to the same machine. Other
 * OpenAI-compatible servers need no hint (vLLM caches prefixes by itself) and some refuse or log fields they do not
 * know (vLLM before 0.6.4 answered 400, later ones warn per request), so the key goes to OpenAI only.
 */
export const sendsCacheKey = (baseURL: string): boolean => {
  try {
    return new URL(baseURL).hostname === 'api.openai.com';
  } catch {
    return false;
  }
};

/** OpenAI servers accept at most four stop sequences; the rest are applied to the text afterwards. */
const MAX_SERVER_STOPS = 4;

/**
 * Any OpenAI-compatible server (OpenAI, vLLM, Ollama, llama.cpp) through the official SDK.
 * Retries are ours, not the SDK's, so that the policy (which statuses, how long, Retry-After) is explicit and tested.
 */
export const openAIProvider = (opts: OpenAIProviderOptions): LLM => {
  const client = new OpenAI({
    baseURL: opts.baseURL,
    apiKey: opts.apiKey || 'not-needed',
    maxRetries: 0,
    // Ours (startAttempt) covers the body too and fires first; the SDK's is only a backstop. Every reply body is read
    // by cappedFetch under LLM_MAX_RESPONSE_BYTES and the attempt's signal.
    timeout: opts.timeoutMs + 1_000,
    fetch: cappedFetch(opts.fetch ?? ((input, init) => fetch(input, init)), { maxBytes: opts.maxResponseBytes, pieces: replyPieces(opts.maxResponseBytes) }),
    defaultHeaders: { 'user-agent': 'humaniq-answers/0.1' },
  });
  const model = opts.model ?? 'default';
  const cacheKey = opts.promptCacheKey ?? sendsCacheKey(opts.baseURL);

  const once = async (request: ChatRequest): Promise<ChatResult> => {
    const attempt = startAttempt({ maxBytes: opts.maxResponseBytes, timeoutMs: opts.timeoutMs }, request.signal);
    try {
      const out = await read(request, attempt.signal);
      attempt.cutShort();
      return out;
    } catch (err) {
      throw attempt.explain(err);
    } finally {
      attempt.end();
    }
  };

  const read = async (request: ChatRequest, signal: AbortSignal): Promise<ChatResult> => {
    const headers = { 'x-request-purpose': request.purpose };
    const stop = request.stop?.slice(0, MAX_SERVER_STOPS);
    const params = {
      model: request.model ?? model,
      messages: request.messages as OpenAI.Chat.ChatCompletionMessageParam[],
      ...(stop?.length ? { stop } : {}),
      ...(request.maxTokens ? { max_tokens: request.maxTokens } : {}),
      ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
      // One key per purpose: calls of a purpose share their fixed opening (instructions, tools, examples).
      ...(cacheKey ? { prompt_cache_key: `humaniq-${request.purpose}` } : {}),
    };
    if (request.onDelta) {
      const stream = await client.chat.completions.create(
        { ...params, stream: true, stream_options: { include_usage: true } },
        { headers, signal },
      );
      let text = '';
      let finish: string | null | undefined;
      let usage: OpenAI.CompletionUsage | undefined;
      for await (const chunk of stream) {
        const delta = chunk.choices?.[0]?.delta?.content ?? '';
        if (delta) {
          text += delta;
          request.onDelta(delta);
        }
        finish = chunk.choices?.[0]?.finish_reason ?? finish;
        if (chunk.usage) usage = chunk.usage;
      }
      return result(cutAtStop(text, request.stop), finish, usage, params.model);
    }
    const completion = await client.chat.completions.create({ ...params, stream: false }, { headers, signal });
    const choice = completion.choices?.[0];
    if (!choice || typeof choice.message?.content !== 'string') {
      throw new LLMError('the model server returned no message content', undefined, true);
    }
    return result(cutAtStop(choice.message.content, request.stop), choice.finish_reason, completion.usage, completion.model || params.model);
  };

  return {
    provider: 'openai',
    model,
    acceptsImages: opts.acceptsImages ?? false,
    async chat(request) {
      let retryAfter: string | null | undefined;
      let heldBack = false;
      const worthRetrying = retryBudget();
      const gate = opts.gateFor?.(request.model ?? model);
      let attempts = 0;
      const attempt = () => {
        if (attempts++ > 0) request.onRetry?.();
        return throughModelGate(gate, request, async (report) => {
          try {
            return await once(request);
          } catch (err) {
            retryAfter = undefined;
            heldBack = false;
            if (err instanceof LLMError && err.code !== 'llm_error') throw err;
            const status = err instanceof APIError ? err.status : undefined;
            report.status = status ?? 0;
            const connection = err instanceof APIConnectionError;
            const malformed = err instanceof LLMError && err.retryable;
            const retryable = connection || malformed || (err instanceof APIError && isRetryableStatus(status));
            retryAfter = err instanceof APIError ? err.headers?.get?.('retry-after') : undefined;
            const wait = parseRetryAfter(retryAfter);
            if (status === 429 || (status === 503 && wait !== undefined)) {
              // Told to the gate, so no run sends to this model before the server's wait has passed.
              report.backoffMs = wait ?? DEFAULT_BACKOFF_MS;
              report.backoffReason = `HTTP ${status}${wait !== undefined ? ` with Retry-After ${seconds(wait)}` : ''}`;
              heldBack = !!gate;
            }
            throw new LLMError(describe(err, status), status, retryable);
          }
        });
      };
      return retrying(attempt, {
        retries: opts.maxRetries,
        signal: request.signal,
        retryIn: (outcome, n) => {
          if (outcome.ok || !worthRetrying(outcome.error) || request.signal?.aborted) return undefined;
          // The gate holds the next attempt for as long as the server asked, and every other run's with it.
          return heldBack ? 0 : backoffMs(n, retryAfter);
        },
      });
    },
    async servedModels() {
      try {
        const page = await client.models.list({ timeout: MODEL_LIST_TIMEOUT_MS, maxRetries: 0 });
        const data: unknown = page.data;
        if (!Array.isArray(data)) return undefined;
        return data.map((m) => (m as { id?: unknown })?.id).filter((id): id is string => typeof id === 'string');
      } catch (err) {
        const status = err instanceof APIError ? err.status : undefined;
        if (status && NO_MODEL_LIST.has(status)) return undefined;
        throw new LLMError(describe(err, status), status);
      }
    },
  };
};

const result = (
  text: string,
  finish: string | null | undefined,
  usage: OpenAI.CompletionUsage | undefined,
  model: string,
): ChatResult => ({
  text,
  usage: {
    promptTokens: usage?.prompt_tokens ?? 0,
    completionTokens: usage?.completion_tokens ?? Math.ceil(text.length / 4),
  },
  finishReason: finish === 'stop' ? 'stop' : finish === 'length' ? 'length' : 'other',
  model,
});

/** Characters of the server's own error message a run keeps: enough for "model 'x' not found", not a whole HTML page. */
const SERVER_MESSAGE_CHARS = 300;

const describe = (err: unknown, status: number | undefined) => {
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
