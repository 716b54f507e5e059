import type { Purpose } from '../config-purposes';
import type { CallScope } from '../net/scope';

/** Why a model is called (the list sits beside config, which reads a model per purpose). */
export { PURPOSES, type Purpose } from '../config-purposes';

export type ContentPart =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string } };

/** A function call a model asked for: `arguments` is the JSON text as the model wrote it (it may not parse). */
export interface ToolCall {
  /** The server's id for the call (OpenAI's `call_…`, Mistral's nine characters); made up when a server gives none. */
  id: string;
  name: string;
  arguments: string;
}

/** A function the model may call: its name, what it does, and its input as a JSON Schema object. */
export interface ToolDefinition {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** A reply shape the model is asked to keep to (OpenAI's `response_format` json_schema, Workers AI's JSON mode). */
export interface ResponseFormat {
  name: string;
  schema: Record<string, unknown>;
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string | ContentPart[];
  /** An assistant turn's function calls (native tool protocol). */
  toolCalls?: ToolCall[];
  /** A `tool` message answers the call with this id. */
  toolCallId?: string;
}

/** What the model is asked. How the call is made for its caller (signal, streaming, gate) is the ChatScope beside it. */
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
  /** Functions the model may call instead of answering in text (the native tool protocol). */
  tools?: ToolDefinition[];
  /** `auto` (default when tools are sent), `none`, or `required`. */
  toolChoice?: 'auto' | 'none' | 'required';
  /** Whether one turn may ask for several calls; unset leaves it to the server. */
  parallelToolCalls?: boolean;
  /** Asks for JSON of this schema; the caller still validates the reply (src/llm/structured.ts). */
  responseFormat?: ResponseFormat;
}

/**
 * How one model call is made for its caller, beside what the model is asked: the caller's scope (its signal ends the
 * call; its party and `onWait` are the model's gate's), and what the caller hears of the reply as it comes.
 */
export interface ChatScope extends CallScope {
  /** Called with each text delta; a provider streams only when it is given. */
  readonly onDelta?: (text: string) => void;
  /** Told before a provider retries the call: the deltas of the failed attempt do not count, the retry's start anew. */
  readonly onRetry?: () => void;
  /** This call writes the run's answer: its deltas reach a run's followers marked as the answer's. */
  readonly answer?: boolean;
}

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
}

export interface ChatResult {
  text: string;
  usage: TokenUsage;
  finishReason: 'stop' | 'length' | 'tool_calls' | 'other';
  model: string;
  /** The function calls of the reply, in the order the model wrote them (native tool protocol). */
  toolCalls?: ToolCall[];
  /** The model declined to answer in the requested format (OpenAI's `refusal`). */
  refusal?: string;
}

/** One narrow seam for every model: Workers AI, any OpenAI-compatible server, or a scripted double. */
export interface LLM {
  readonly provider: string;
  readonly model: string;
  /** Whether `image_url` parts are understood (MultiModalQA images). */
  readonly acceptsImages: boolean;
  chat(request: ChatRequest, scope?: ChatScope): Promise<ChatResult>;
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
