import type { ToolProtocol } from '../config-protocols';
import { capabilitiesOf, speak, type SpokenProtocol } from '../llm/capabilities';
import type { Purpose } from '../llm/types';
import type { RunOptions } from './options';
import { RUN_RECIPES } from './recipes';
import type { RunContext } from './types';

/** `options.toolProtocol` of the run (a common option, src/engine/options.ts): the one place it is read. */
export const toolProtocolOf = (options: RunOptions): ToolProtocol | undefined => options.toolProtocol;

/**
 * How a step of this purpose speaks to its model: the `paper` recipe always in text (the published systems did), else
 * the run's option, else LLM_TOOL_PROTOCOL_<PURPOSE>, else LLM_TOOL_PROTOCOL; `auto` and `native` are then made
 * concrete with what is known of the purpose's model (src/llm/capabilities.ts).
 */
export const protocolFor = (ctx: RunContext, purpose: Purpose): SpokenProtocol => {
  if (RUN_RECIPES[ctx.options.recipe].textOnly) return { tools: 'text', structured: false, why: `recipe "${ctx.options.recipe}" keeps the text protocol` };
  const asked = toolProtocolOf(ctx.options) ?? ctx.config.LLM_TOOL_PROTOCOLS?.[purpose] ?? ctx.config.LLM_TOOL_PROTOCOL ?? 'text';
  if (asked === 'text') return speak('text', undefined);
  const model = ctx.config.LLM_MODELS?.[purpose] ?? ctx.llm.model;
  return speak(asked, capabilitiesOf(ctx.llm.provider, model, ctx.config.LLM_BASE_URL));
};
