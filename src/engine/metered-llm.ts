import type { ChatRequest, LLM } from '../llm/types';
import { LimitError, type Usage } from './types';
import { addLLMCall } from './usage';

export interface LLMLimits {
  maxLLMCalls: number;
  maxTokens: number;
}

/**
 * Wraps a provider so that every call is counted in the run's usage and refused once a limit is reached.
 * The check happens before the call, so a run never spends past its budget by more than one call.
 */
export const meteredLLM = (inner: LLM, usage: Usage, limits: LLMLimits): LLM => ({
  provider: inner.provider,
  model: inner.model,
  acceptsImages: inner.acceptsImages,
  async chat(request: ChatRequest) {
    if (usage.llmCalls >= limits.maxLLMCalls) {
      throw new LimitError('llmCalls', `the run reached its limit of ${limits.maxLLMCalls} model calls`);
    }
    if (usage.promptTokens + usage.completionTokens >= limits.maxTokens) {
      throw new LimitError('tokens', `the run reached its limit of ${limits.maxTokens} tokens`);
    }
    const result = await inner.chat(request);
    addLLMCall(usage, request.purpose, result.usage, result.model);
    return result;
  },
});
