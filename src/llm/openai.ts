import OpenAI, { APIError } from 'openai';
import { cappedFetch } from '../net/capped-fetch';
import { backoffMs, waitBeforeRetry } from '../net/retry-policy';
import { REPLY_MIN_PIECE_BYTES, startAttempt } from './call-budget';
import type { GateReport } from '../net/politeness/policy';
import type { ModelGate } from './model-gate';
import { callWithRetries, modelVerdict } from './model-retry';
import { keyInClear } from './key-in-clear';
import { classifyFailure, DEFAULT_BACKOFF_MS, describe } from './openai-failure';
import { readReply, type ReplyDefaults } from './openai-reply';
import type { ChatRequest, ChatResult, ChatScope, LLM } from './types';
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

const sdkClient = (opts: OpenAIProviderOptions) =>
  new OpenAI({
    baseURL: opts.baseURL,
    // A key that would travel in clear is never handed over (key-in-clear.ts).
    apiKey: (!keyInClear(opts.baseURL, opts.apiKey) && opts.apiKey) || 'not-needed',
    maxRetries: 0,
    // Ours (startAttempt) covers the body too and fires first; the SDK's is only a backstop. Every reply body is read
    // by cappedFetch under LLM_MAX_RESPONSE_BYTES and the attempt's signal.
    timeout: opts.timeoutMs + 1_000,
    fetch: cappedFetch(opts.fetch ?? ((input, init) => fetch(input, init)), { maxBytes: opts.maxResponseBytes, minPieceBytes: REPLY_MIN_PIECE_BYTES }),
    defaultHeaders: { 'user-agent': 'humaniq-answers/0.1' },
  });

/**
 * Any OpenAI-compatible server (OpenAI, vLLM, Ollama, llama.cpp) through the official SDK.
 * Retries are ours, not the SDK's, so that the policy (which statuses, how long, Retry-After) is explicit and tested:
 * openai-failure.ts classifies what failed, net/retry-policy.ts decides the wait.
 */
export const openAIProvider = (opts: OpenAIProviderOptions): LLM => {
  const client = sdkClient(opts);
  const refused = keyInClear(opts.baseURL, opts.apiKey);
  const defaults: ReplyDefaults = { model: opts.model ?? 'default', cacheKey: opts.promptCacheKey ?? sendsCacheKey(opts.baseURL) };

  /** One attempt under its deadline; a failure is classified, and the gate told its status and any hold. */
  const once = async (request: ChatRequest, scope: ChatScope, report: GateReport): Promise<ChatResult> => {
    const attempt = startAttempt({ maxBytes: opts.maxResponseBytes, timeoutMs: opts.timeoutMs }, scope.signal);
    try {
      const out = await readReply(client, request, defaults, attempt.signal, scope.onDelta);
      attempt.cutShort();
      return out;
    } catch (thrown) {
      const err = attempt.explain(thrown);
      if (err instanceof LLMError && err.code !== 'llm_error') throw err;
      const failure = classifyFailure(err);
      report.status = failure.status ?? 0;
      // Told to the gate, so no run sends to this model before the server's wait has passed.
      if (failure.hold) [report.backoffMs, report.backoffReason] = [failure.hold.ms, failure.hold.reason];
      throw failure.error;
    } finally {
      attempt.end();
    }
  };

  return {
    provider: 'openai',
    model: defaults.model,
    acceptsImages: opts.acceptsImages ?? false,
    chat(request, scope = {}) {
      if (refused) return Promise.reject(refused);
      const gate = opts.gateFor?.(request.model ?? defaults.model);
      // The gate holds the next attempt for as long as the server asked, and every other run's with it.
      const rule = { gated: !!gate, backoff: (n: number, v: { retryAfterMs?: number }) => backoffMs(n, v.retryAfterMs) };
      const waitFor = (n: number, err: unknown) => waitBeforeRetry(modelVerdict(err, DEFAULT_BACKOFF_MS), n, rule);
      return callWithRetries(scope, gate, { retries: opts.maxRetries, waitFor }, (report) => once(request, scope, report));
    },
    async servedModels() {
      if (refused) throw refused;
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
