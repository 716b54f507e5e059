import { TOOL_PROTOCOLS, type ToolProtocol } from '../config-protocols';
import { capabilitiesOf, speak, type SpokenProtocol } from '../llm/capabilities';
import type { Purpose } from '../llm/types';
import { recipeOf } from './recipe';
import type { RunContext, RunRequest } from './types';

/** `options.toolProtocol` as the caller sent it: the one place a run's option is read (src/runs/options-schema.ts checks it). */
export const toolProtocolOf = (request: RunRequest): ToolProtocol | undefined => {
  const asked = request.options?.toolProtocol;
  return TOOL_PROTOCOLS.find((p) => p === asked);
};

/**
 * How a step of this purpose speaks to its model: the `paper` recipe always in text (the published systems did), else
 * the run's option, else LLM_TOOL_PROTOCOL_<PURPOSE>, else LLM_TOOL_PROTOCOL; `auto` and `native` are then made
 * concrete with what is known of the purpose's model (src/llm/capabilities.ts).
 */
export const protocolFor = (ctx: RunContext, purpose: Purpose): SpokenProtocol => {
  if (recipeOf(ctx.request.options) === 'paper') return { tools: 'text', structured: false, why: 'recipe "paper" keeps the text protocol' };
  const asked = toolProtocolOf(ctx.request) ?? ctx.config.LLM_TOOL_PROTOCOLS?.[purpose] ?? ctx.config.LLM_TOOL_PROTOCOL ?? 'text';
  if (asked === 'text') return speak('text', undefined);
  const model = ctx.config.LLM_MODELS?.[purpose] ?? ctx.llm.model;
  return speak(asked, capabilitiesOf(ctx.llm.provider, model, ctx.config.LLM_BASE_URL));
};
