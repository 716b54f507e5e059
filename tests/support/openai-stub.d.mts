/** Types for openai-stub.mjs: a scriptable OpenAI-compatible server on 127.0.0.1 (see docs/DEVELOPING.md, "The model stub"). */
export interface StubRequest {
  purpose: string;
  headers: Record<string, string | string[] | undefined>;
  body: any;
  /** When the request arrived, and when its answer was sent (epoch ms; absent while it is being answered). */
  receivedAt: number;
  repliedAt?: number;
}
export interface Stub {
  port: number;
  /** The OpenAI base URL, ending in /v1. */
  url: string;
  requests: StubRequest[];
  /** Replies per purpose (`default` for the rest), or `byQuestion: {question: {purpose: [...]}}`. */
  setScript: (script: any) => void;
  /** The next `count` (default 1) chat requests get a reply without end, written `bytes` (default 1) bytes per write. */
  trickle: (options?: { bytes?: number; count?: number }) => void;
  /** The next `count` (default 1) streamed replies write each SSE event in `writes` (default 3) writes, each its own chunk. */
  split: (options?: { writes?: number; count?: number }) => void;
  /** Requests carrying `tools` / `response_format` are refused with a 400, as servers without them answer. */
  refuse: (options?: { tools?: boolean; responseFormat?: boolean }) => void;
  /** The server's concurrency limit and what it counted: 429s sent, requests that came inside a Retry-After it gave. */
  load: () => { max: number; retryAfter: number; peak: number; tooMany: number; insideRetryAfter: number; answered: number; refusedOverWindow: number; largestPrompt: number };
  close: () => Promise<void>;
}
/**
 * `contextTokens`: a context window; a longer request is refused with 400 "maximum context length is N tokens" (vLLM).
 * `models`: the only names served (others get 404 "model 'x' not found"), listed by GET /v1/models; without it every name is served and GET /v1/models answers 404; `listModels: false`: 404 even with `models`.
 * `maxConcurrent`: more requests at once are refused with 429 and `Retry-After: retryAfter` (seconds); 0 = no limit.
 * `keepRequests: false`: `requests` stays empty (long benches).
 */
export declare const startStub: (options?: {
  port?: number;
  latencyMs?: number;
  /** A streamed reply comes in 16-character chunks this far apart (0: all at once). */
  chunkMs?: number;
  host?: string;
  contextTokens?: number;
  models?: string[];
  listModels?: boolean;
  maxConcurrent?: number;
  retryAfter?: number;
  keepRequests?: boolean;
}) => Promise<Stub>;
