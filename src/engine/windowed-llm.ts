import { LLMError, type ChatRequest, type LLM } from '../llm/types';
import { isContextError, windowFromError } from './context-window';
import { fitPrompt, promptTokens, requestOverheadTokens } from './prompt-fit';

export interface WindowOptions {
  /** The context window of the model a request goes to, when known. */
  windowOf(request: ChatRequest): number | undefined;
  /** Told when a prompt was shortened (a sentence for the step's trace) or retried smaller. */
  onTrim?(note: string, retried: boolean): void;
}

/** What the reply may use when a request names no max_tokens (servers' defaults differ; this is a safe guess). */
const DEFAULT_REPLY_TOKENS = 1_024;
/** Slack for the estimate's error and the chat template. */
const MARGIN = 64;

/**
 * Fits every prompt to its model's window, minus the reply's max_tokens and what goes with the messages (function
 * definitions, a reply schema), before it is sent (src/engine/prompt-fit.ts says what goes first). A 400 that still speaks of the context length is answered once: the prompt is fitted to
 * the window the server named (or a quarter smaller than what was sent) and sent again.
 */
export const windowedLLM = (inner: LLM, options: WindowOptions): LLM => {
  const fit = (request: ChatRequest, window: number, retried: boolean): ChatRequest => {
    const reply = request.maxTokens ?? DEFAULT_REPLY_TOKENS;
    const overhead = requestOverheadTokens(request);
    const budget = Math.max(256, window - reply - overhead - MARGIN);
    const fitted = fitPrompt(request.messages, budget, request.droppable);
    if (!fitted.cuts.length) return request;
    const besides = overhead ? `, ${overhead} for the function definitions and reply schema sent with it` : '';
    const note = `prompt for ${request.purpose} shortened to fit a context window of ${window} tokens (${reply} kept for the reply${besides}): ${fitted.cuts.join(', ')}; about ${fitted.before} → ${fitted.after} tokens`;
    options.onTrim?.(retried ? `${note}, after the model server refused the longer one` : note, retried);
    return { ...request, messages: fitted.messages };
  };

  return {
    provider: inner.provider,
    model: inner.model,
    acceptsImages: inner.acceptsImages,
    async chat(request, scope) {
      const window = options.windowOf(request);
      const sent = window ? fit(request, window, false) : request;
      try {
        return await inner.chat(sent, scope);
      } catch (err) {
        if (!(err instanceof LLMError) || err.status !== 400 || !isContextError(err.message)) throw err;
        const named = windowFromError(err.message);
        const sentTokens = promptTokens(sent.messages) + requestOverheadTokens(sent);
        const smaller = named && (!window || named < window) ? named : Math.floor(Math.min(window ?? sentTokens, sentTokens) * 0.75);
        const retry = fit(request, smaller, true);
        if (retry === request) throw err;
        return inner.chat(retry, scope);
      }
    },
  };
};
