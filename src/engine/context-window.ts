import type { Config } from '../config';
import type { Purpose } from '../llm/types';

/**
 * Context windows of the Workers AI models this project names, from their model pages. Any other model's window
 * comes from LLM_CONTEXT_TOKENS (or LLM_CONTEXT_TOKENS_<PURPOSE>); without one, prompts go as they are and a
 * server's "maximum context length is N tokens" answer is what teaches the window.
 */
export const KNOWN_WINDOWS: Record<string, number> = {
  '@cf/meta/llama-3.3-70b-instruct-fp8-fast': 24_000,
};

/** The window of the model serving `purpose`: its purpose's var, else LLM_CONTEXT_TOKENS, else the model's known window. */
export const contextWindow = (config: Pick<Config, 'LLM_CONTEXT_TOKENS' | 'LLM_CONTEXT_WINDOWS'>, purpose: Purpose, model: string): number | undefined =>
  config.LLM_CONTEXT_WINDOWS?.[purpose] ?? config.LLM_CONTEXT_TOKENS ?? KNOWN_WINDOWS[model];

/** vLLM: "This model's maximum context length is 8192 tokens. However, you requested …"; OpenAI words it alike. */
export const windowFromError = (message: string): number | undefined => {
  const m = /maximum context length is (\d+)/i.exec(message) ?? /context (?:length|window)[^0-9]{0,40}(\d{3,7})/i.exec(message);
  return m ? Number(m[1]) : undefined;
};

export const isContextError = (message: string) => /context (length|window)|maximum context|too many tokens|prompt is too long/i.test(message);
