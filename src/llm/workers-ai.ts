import { retrying } from '../net/retry';
import { cutAtStop } from './stop';
import type { ChatRequest, ChatResult, LLM } from './types';
import { LLMError } from './types';

export const DEFAULT_WORKERS_AI_MODEL = '@cf/meta/llama-3.3-70b-instruct-fp8-fast';

interface WorkersAIOutput {
  response?: string;
  usage?: { prompt_tokens?: number; completion_tokens?: number };
}

/**
 * Workers AI through the native `env.AI` binding. The binding has no stop sequences for every model,
 * so the text is cut at the first stop string here; Workers AI meters by neurons, so purpose goes to our usage only.
 */
export const workersAIProvider = (ai: Ai, model = DEFAULT_WORKERS_AI_MODEL, maxRetries = 2): LLM => ({
  provider: 'workers-ai',
  model,
  acceptsImages: false,
  async chat(request: ChatRequest): Promise<ChatResult> {
    const messages = request.messages.map((m) => ({
      role: m.role,
      content: typeof m.content === 'string' ? m.content : m.content.map((p) => (p.type === 'text' ? p.text : '')).join(''),
    }));
    const chosen = request.model ?? model;
    const once = async (): Promise<ChatResult> => {
      const out = (await (ai as unknown as { run: (m: string, i: unknown) => Promise<unknown> }).run(chosen, {
        messages,
        max_tokens: request.maxTokens ?? 1024,
        ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
      })) as WorkersAIOutput;
      const text = cutAtStop(typeof out?.response === 'string' ? out.response : '', request.stop);
      request.onDelta?.(text);
      return {
        text,
        usage: {
          promptTokens: out?.usage?.prompt_tokens ?? 0,
          completionTokens: out?.usage?.completion_tokens ?? Math.ceil(text.length / 4),
        },
        finishReason: 'stop',
        model: chosen,
      };
    };
    try {
      return await retrying(once, { retries: maxRetries, retryIn: (outcome, n) => (outcome.ok ? undefined : 300 * 2 ** n) });
    } catch (err) {
      throw new LLMError(`Workers AI call failed: ${err instanceof Error ? err.message : String(err)}`, undefined, true);
    }
  },
});
