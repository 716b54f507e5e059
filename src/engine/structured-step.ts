import type { ChatRequest, ChatScope } from '../llm/types';
import { askStructured, type StructuredReply, type StructuredSpec } from '../llm/structured';
import { protocolFor } from './tool-protocol';
import type { RunContext } from './types';

/**
 * A structured step's call as the run makes it: with a reply schema when the purpose speaks natively
 * (src/engine/tool-protocol.ts), plain text otherwise; a reply read by the text parser after the schema was sent is
 * counted in usage.toolProtocol and said in the step's trace.
 */
export const structuredCall = async <T>(ctx: RunContext, request: ChatRequest, spec: StructuredSpec<T>, scope?: ChatScope): Promise<StructuredReply<T>> => {
  const reply = await askStructured(ctx.llm, request, spec, protocolFor(ctx, request.purpose).structured, scope);
  if (reply.fellBack) ctx.noteProtocol(request.purpose, { textFallback: reply.fellBack });
  return reply;
};
