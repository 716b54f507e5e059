import type { Purpose, TokenUsage } from '../llm/types';
import type { EvidenceUsage, Usage } from './types';

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
    // One model per purpose is the norm; a purpose served by two (text and vision, or a fork on another model than
    // its parent's steps) lists both with their calls, and `model` names the one that served it last.
    if (p.model !== undefined && (p.model !== model || p.models)) {
      p.models ??= { [p.model]: p.calls - 1 };
      p.models[model] = (p.models[model] ?? 0) + 1;
    }
    p.model = model;
  }
  return usage;
};

export const addToolCall = (usage: Usage, tool: string): Usage => {
  usage.toolCalls += 1;
  usage.byTool[tool] = (usage.byTool[tool] ?? 0) + 1;
  return usage;
};

const evidenceOf = (usage: Usage): EvidenceUsage => (usage.evidence ??= { cacheHits: 0, cacheMisses: 0, gateWaits: 0, gateWaitMs: 0 });

/** One live evidence request: served from the shared cache, or sent upstream. */
export const addCacheLookup = (usage: Usage, hit: boolean): Usage => {
  const e = evidenceOf(usage);
  if (hit) e.cacheHits += 1;
  else e.cacheMisses += 1;
  return usage;
};

/** One wait at a politeness gate. */
export const addGateWait = (usage: Usage, ms: number): Usage => {
  const e = evidenceOf(usage);
  e.gateWaits += 1;
  e.gateWaitMs += Math.round(ms);
  return usage;
};

/** One prompt shortened to fit its model's window; `retried` when the server refused it first. */
export const addPromptTrim = (usage: Usage, retried: boolean): Usage => {
  const c = (usage.context ??= { trimmed: 0, retried: 0 });
  c.trimmed += 1;
  if (retried) c.retried += 1;
  return usage;
};

/** One page fetched ahead of a read (`hit` false), or one read it served (`hit` true): src/evidence/prefetch.ts. */
export const addPrefetch = (usage: Usage, hit: boolean): Usage => {
  const p = (usage.prefetch ??= { pages: 0, hits: 0 });
  if (hit) p.hits += 1;
  else p.pages += 1;
  return usage;
};

/** One model call held at its model's politeness gate. */
export const addModelWait = (usage: Usage, ms: number): Usage => {
  const g = (usage.modelGate ??= { waits: 0, waitMs: 0 });
  g.waits += 1;
  g.waitMs += Math.round(ms);
  return usage;
};
