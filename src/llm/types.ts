import type { Purpose } from '../config-purposes';
import type { GateParty } from '../net/politeness/policy';

/** Why a model is called (the list sits beside config, which reads a model per purpose). */
export { PURPOSES, type Purpose } from '../config-purposes';

export type ContentPart =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string } };

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string | ContentPart[];
}

export interface ChatRequest {
  purpose: Purpose;
  /** The model to use instead of the provider's default (set by per-purpose routing, `LLM_MODEL_<PURPOSE>`). */
  model?: string;
  messages: ChatMessage[];
  /** Generation stops before any of these strings (the agent stops at `Observation:`). */
  stop?: string[];
  maxTokens?: number;
  /**
   * Parts of the messages (worked examples) that may be left out whole when the prompt is over the model's context
   * window; old observations are shortened before these go.
   */
  droppable?: string[];
  temperature?: number;
  /** Asks the server for reproducible sampling (OpenAI's `seed`; `options.sampling.seed`, one per epoch of an evaluation). */
  seed?: number;
  /** Called with each text delta when the provider streams. */
  onDelta?: (text: string) => void;
  /** Told before a provider retries the call: the deltas of the failed attempt do not count, the retry's start anew. */
  onRetry?: () => void;
  /** This call writes the run's answer: its deltas reach a run's followers marked as the answer's. */
  answer?: boolean;
  /** Told when the call waited at its model's politeness gate (other runs' calls, a server's Retry-After), with a note for the trace. */
  onWait?: (note: string, ms: number) => void;
  /** Whose call this is (API key and run): the model's gate serves queued calls in turn across keys and runs. */
  party?: GateParty;
  signal?: AbortSignal;
}

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
}

export interface ChatResult {
  text: string;
  usage: TokenUsage;
  finishReason: 'stop' | 'length' | 'other';
  model: string;
}

/** One narrow seam for every model: Workers AI, any OpenAI-compatible server, or a scripted double. */
export interface LLM {
  readonly provider: string;
  readonly model: string;
  /** Whether `image_url` parts are understood (MultiModalQA images). */
  readonly acceptsImages: boolean;
  chat(request: ChatRequest): Promise<ChatResult>;
  /**
   * The model names the server lists (OpenAI's GET /v1/models), or undefined when it keeps no such list.
   * Throws LLMError when the server cannot be asked. Only servers that route by name have it.
   */
  servedModels?(): Promise<string[] | undefined>;
}

/**
 * What the run reports when a model call fails: `llm_timeout` (the reply did not end within LLM_TIMEOUT_MS, headers
 * and body together), `llm_response_too_large` (the reply passed LLM_MAX_RESPONSE_BYTES), `llm_error` (anything else).
 */
export type LLMErrorCode = 'llm_error' | 'llm_timeout' | 'llm_response_too_large';

/**
 * Raised by providers after retries are exhausted; `status` is the upstream HTTP status when there was one, and
 * `retryAfterMs` the wait its Retry-After named (the retry policy reads it: src/net/retry-policy.ts).
 */
export class LLMError extends Error {
  constructor(
    message: string,
    readonly status?: number,
    readonly retryable = false,
    readonly code: LLMErrorCode = 'llm_error',
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'LLMError';
  }
}
