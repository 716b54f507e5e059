import type OpenAI from 'openai';
import type { ChatMessage, ChatRequest, ToolCall } from './types';

/**
 * Our messages, function definitions and response format in the OpenAI chat wire format, and tool calls read back
 * from it, whole or streamed. Workers AI's binding takes the same shapes for the models that call functions
 * (src/llm/workers-ai-wire.ts).
 */

type WireMessage = OpenAI.Chat.ChatCompletionMessageParam;

/** An id for a call the server sent without one: nine letters and digits, the shape Mistral's servers insist on. */
export const madeUpCallId = (n: number): string => `call${String(n).padStart(5, '0')}`;

export const wireMessage = (m: ChatMessage): WireMessage => {
  if (m.role === 'tool') return { role: 'tool', tool_call_id: m.toolCallId ?? '', content: typeof m.content === 'string' ? m.content : JSON.stringify(m.content) };
  if (m.role === 'assistant' && m.toolCalls?.length) {
    return {
      role: 'assistant',
      content: typeof m.content === 'string' ? m.content : '',
      tool_calls: m.toolCalls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.arguments } })),
    };
  }
  return { role: m.role, content: m.content } as WireMessage;
};

/** The request's model-facing extras: functions, how they may be called, and a reply schema. */
export const wireExtras = (request: ChatRequest) => ({
  ...(request.tools?.length
    ? {
        tools: request.tools.map((t) => ({ type: 'function' as const, function: { name: t.name, description: t.description, parameters: t.parameters } })),
        ...(request.toolChoice ? { tool_choice: request.toolChoice } : {}),
        ...(request.parallelToolCalls !== undefined ? { parallel_tool_calls: request.parallelToolCalls } : {}),
      }
    : {}),
  ...(request.responseFormat
    ? { response_format: { type: 'json_schema' as const, json_schema: { name: request.responseFormat.name, schema: request.responseFormat.schema } } }
    : {}),
});

interface WireCall {
  id?: string | null;
  function?: { name?: string | null; arguments?: unknown } | null;
}

/** Arguments as JSON text: servers send a string, a few an object (Workers AI's older models, some Ollama builds). */
export const argumentsText = (args: unknown): string => (typeof args === 'string' ? args : args === undefined || args === null ? '' : JSON.stringify(args));

/** The tool calls of a whole reply, with ids made up where the server gave none. */
export const callsOf = (calls: readonly WireCall[] | null | undefined): ToolCall[] =>
  (calls ?? [])
    .filter((c) => c?.function?.name)
    .map((c, i) => ({ id: c.id || madeUpCallId(i + 1), name: String(c.function!.name), arguments: argumentsText(c.function!.arguments) }));

interface CallPiece {
  index?: number;
  id?: string | null;
  function?: { name?: string | null; arguments?: string | null } | null;
}

/**
 * Tool calls as a stream brings them: each piece names its call by `index`; the id and name come first (some servers
 * repeat them on every piece, which is kept once), the arguments arrive in pieces to be joined. A server that sends no
 * index starts a new call with each new id.
 */
export const streamedCalls = () => {
  const calls: Array<{ id: string; name: string; arguments: string }> = [];
  const slotOf = (piece: CallPiece): number => {
    if (typeof piece.index === 'number') return piece.index;
    const last = calls.length - 1;
    return last < 0 || (piece.id && calls[last].id && piece.id !== calls[last].id) ? calls.length : last;
  };
  return {
    take(pieces: readonly CallPiece[] | null | undefined) {
      for (const piece of pieces ?? []) {
        const at = slotOf(piece);
        const call = (calls[at] ??= { id: '', name: '', arguments: '' });
        if (piece.id && !call.id) call.id = piece.id;
        const name = piece.function?.name;
        if (name && name !== call.name) call.name = call.name && !name.startsWith(call.name) ? call.name + name : name;
        if (piece.function?.arguments) call.arguments += piece.function.arguments;
      }
    },
    calls(): ToolCall[] {
      return calls.filter((c) => c && c.name).map((c, i) => ({ ...c, id: c.id || madeUpCallId(i + 1) }));
    },
  };
};
