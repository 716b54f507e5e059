import type { ChatRequest, ChatScope, LLM } from '../llm/types';
import { noTracer, type Tracer } from './trace';
import { LimitError, type Usage } from './types';
import { addLLMCall, addProtocolCall } from './usage';

export interface LLMLimits {
  maxLLMCalls: number;
  maxTokens: number;
}

/**
 * Wraps a provider so that every call is counted in the run's usage and refused once a limit is reached.
 * The check happens before the call, so a run never spends past its budget by more than one call.
 * A call made after the run's signal fired (wall time, cancel) is refused with the signal's reason.
 */
export const meteredLLM = (inner: LLM, usage: Usage, limits: LLMLimits, runSignal?: AbortSignal, tracer: Tracer = noTracer): LLM => ({
  provider: inner.provider,
  model: inner.model,
  acceptsImages: inner.acceptsImages,
  async chat(request: ChatRequest, scope: ChatScope = {}) {
    if (usage.llmCalls >= limits.maxLLMCalls) {
      throw new LimitError('llmCalls', `the run reached its limit of ${limits.maxLLMCalls} model calls`);
    }
    if (usage.promptTokens + usage.completionTokens >= limits.maxTokens) {
      throw new LimitError('tokens', `the run reached its limit of ${limits.maxTokens} tokens`);
    }
    runSignal?.throwIfAborted();
    // The run's signal ends a call that would outlive the run's wall time or its cancellation.
    const signal = runSignal && scope.signal ? AbortSignal.any([runSignal, scope.signal]) : (runSignal ?? scope.signal);
    const model = request.model ?? inner.model;
    // Attribute names from OpenTelemetry's GenAI semantic conventions; the purpose is ours.
    const attributes = { 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': inner.provider, 'gen_ai.request.model': model, 'humaniq.purpose': request.purpose };
    return tracer.span(`chat ${model}`, attributes, async (span) => {
      const result = await inner.chat(request, signal ? { ...scope, signal } : scope);
      addLLMCall(usage, request.purpose, result.usage, result.model);
      addProtocolCall(usage, request, result);
      span.set({
        'gen_ai.response.model': result.model,
        'gen_ai.usage.input_tokens': result.usage.promptTokens,
        'gen_ai.usage.output_tokens': result.usage.completionTokens,
        'gen_ai.response.finish_reasons': [result.finishReason],
      });
      return result;
    });
  },
});
