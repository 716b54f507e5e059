import type { Purpose, TokenUsage } from '../llm/types';
import type { ChatRequest, ChatResult } from '../llm/types';
import type { ProtocolChange, ProtocolUsage } from './protocol-usage';
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

const protocolOf = (usage: Usage, purpose: Purpose): ProtocolUsage => ((usage.toolProtocol ??= {})[purpose] ??= {});

/** A model call sent with functions or a reply schema: counted per purpose with the calls its reply asked for. */
export const addProtocolCall = (usage: Usage, request: ChatRequest, result: ChatResult): Usage => {
  if (request.tools?.length) {
    const n = (protocolOf(usage, request.purpose).native ??= { calls: 0, toolCalls: 0, parallelTurns: 0 });
    n.calls += 1;
    n.toolCalls += result.toolCalls?.length ?? 0;
    if ((result.toolCalls?.length ?? 0) > 1) n.parallelTurns += 1;
  }
  if (request.responseFormat) (protocolOf(usage, request.purpose).structured ??= { calls: 0, textFallbacks: 0 }).calls += 1;
  return usage;
};

/** What a strategy reports of a native call (RunContext.noteProtocol). */
export const addProtocolChange = (usage: Usage, purpose: Purpose, change: ProtocolChange): Usage => {
  const p = protocolOf(usage, purpose);
  if ('repair' in change) p.repairs = (p.repairs ?? 0) + 1;
  else if ('textFallback' in change) (p.structured ??= { calls: 0, textFallbacks: 0 }).textFallbacks += 1;
  else p.fallback = change.fallback;
  return usage;
};
