import type { Purpose, TokenUsage } from '../llm/types';
import type { Usage } from './types';

export const emptyUsage = (): Usage => ({
  llmCalls: 0,
  toolCalls: 0,
  promptTokens: 0,
  completionTokens: 0,
  byPurpose: {},
  byTool: {},
});

/** Adds one model call to a usage record (mutates and returns it). */
export const addLLMCall = (usage: Usage, purpose: Purpose, tokens: TokenUsage, model?: string): Usage => {
  usage.llmCalls += 1;
  usage.promptTokens += tokens.promptTokens;
  usage.completionTokens += tokens.completionTokens;
  const p = (usage.byPurpose[purpose] ??= { calls: 0, promptTokens: 0, completionTokens: 0 });
  p.calls += 1;
  p.promptTokens += tokens.promptTokens;
  p.completionTokens += tokens.completionTokens;
  if (model) {
    // One model per purpose is the norm; a purpose served by two (text and vision) lists both with their calls.
    if (p.model === undefined) p.model = model;
    else if (p.model !== model || p.models) {
      p.models ??= { [p.model]: p.calls - 1 };
      p.models[model] = (p.models[model] ?? 0) + 1;
    }
  }
  return usage;
};

export const addToolCall = (usage: Usage, tool: string): Usage => {
  usage.toolCalls += 1;
  usage.byTool[tool] = (usage.byTool[tool] ?? 0) + 1;
  return usage;
};
