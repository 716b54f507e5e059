import { argumentsText, callsOf, madeUpCallId } from './openai-wire';
import type { ChatMessage, ChatRequest, ToolCall } from './types';

/**
 * What the Workers AI binding is given and what it gives back. Its text models answer in one of two shapes: the
 * classic `{response, tool_calls: [{name, arguments}], usage}` (arguments an object, no ids; in JSON mode `response`
 * may already be the parsed object), or, for the models served through OpenAI's chat format (gpt-oss, newer ones),
 * `{choices: [{message: {content, tool_calls}}], usage}`. Functions go out in OpenAI's `{type: "function", function}`
 * shape, which both kinds accept; a JSON schema goes out as JSON mode's `{type: "json_schema", json_schema}`.
 */

export interface WorkersAIOutput {
  response?: unknown;
  tool_calls?: Array<{ name?: string; arguments?: unknown; id?: string; function?: { name?: string; arguments?: unknown } }>;
  choices?: Array<{ message?: { content?: string | null; tool_calls?: Parameters<typeof callsOf>[0] }; finish_reason?: string }>;
  usage?: { prompt_tokens?: number; completion_tokens?: number };
}

const flatText = (m: ChatMessage) => (typeof m.content === 'string' ? m.content : m.content.map((p) => (p.type === 'text' ? p.text : '')).join(''));

const message = (m: ChatMessage) => {
  if (m.role === 'tool') return { role: 'tool', content: flatText(m), tool_call_id: m.toolCallId ?? '' };
  const base = { role: m.role, content: flatText(m) };
  return m.role === 'assistant' && m.toolCalls?.length
    ? { ...base, tool_calls: m.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) }
    : base;
};

/** The binding's inputs for a request (without `stream`). */
export const workersAIInputs = (request: ChatRequest) => ({
  messages: request.messages.map(message),
  max_tokens: request.maxTokens ?? 1024,
  ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
  ...(request.seed !== undefined ? { seed: request.seed } : {}),
  ...(request.tools?.length
    ? { tools: request.tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } })) }
    : {}),
  ...(request.tools?.length && request.parallelToolCalls !== undefined ? { parallel_tool_calls: request.parallelToolCalls } : {}),
  ...(request.responseFormat ? { response_format: { type: 'json_schema', json_schema: request.responseFormat.schema } } : {}),
});

/** Whether the binding can stream this request: JSON mode does not, and calls come whole only unstreamed. */
export const streamsOnWorkersAI = (request: ChatRequest): boolean => !request.tools?.length && !request.responseFormat;

/** The reply's text and calls, from either output shape. */
export const readWorkersAIOutput = (out: WorkersAIOutput): { text: string; toolCalls: ToolCall[] } => {
  const choice = out.choices?.[0]?.message;
  if (choice) return { text: typeof choice.content === 'string' ? choice.content : '', toolCalls: callsOf(choice.tool_calls) };
  const text = typeof out.response === 'string' ? out.response : out.response === undefined || out.response === null ? '' : JSON.stringify(out.response);
  const toolCalls = (out.tool_calls ?? [])
    .map((c, i) => ({ id: c.id || madeUpCallId(i + 1), name: String(c.function?.name ?? c.name ?? ''), arguments: argumentsText(c.function?.arguments ?? c.arguments) }))
    .filter((c) => c.name);
  return { text, toolCalls };
};
