import type OpenAI from 'openai';
import { callsOf, streamedCalls, wireExtras, wireMessage } from './openai-wire';
import { cutAtStop } from './stop';
import type { ChatRequest, ChatResult, ToolCall } from './types';
import { LLMError } from './types';

/** OpenAI servers accept at most four stop sequences; the rest are applied to the text afterwards. */
const MAX_SERVER_STOPS = 4;

/** What the provider adds to every request: its default model, and whether the server takes a prompt cache key. */
export interface ReplyDefaults {
  model: string;
  cacheKey: boolean;
}

type Params = OpenAI.Chat.ChatCompletionCreateParamsNonStreaming;

const paramsOf = (request: ChatRequest, defaults: ReplyDefaults): Omit<Params, 'stream'> => {
  const stop = request.stop?.slice(0, MAX_SERVER_STOPS);
  return {
    model: request.model ?? defaults.model,
    messages: request.messages.map(wireMessage),
    ...wireExtras(request),
    ...(stop?.length ? { stop } : {}),
    ...(request.maxTokens ? { max_tokens: request.maxTokens } : {}),
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    ...(request.seed !== undefined ? { seed: request.seed } : {}),
    // One key per purpose: calls of a purpose share their fixed opening (instructions, tools, examples).
    ...(defaults.cacheKey ? { prompt_cache_key: `humaniq-${request.purpose}` } : {}),
  };
};

const FINISH: Record<string, ChatResult['finishReason']> = { stop: 'stop', length: 'length', tool_calls: 'tool_calls' };

const result = (
  text: string,
  finish: string | null | undefined,
  usage: OpenAI.CompletionUsage | undefined,
  model: string,
  extra: { toolCalls?: ToolCall[]; refusal?: string | null } = {},
): ChatResult => ({
  text,
  usage: {
    promptTokens: usage?.prompt_tokens ?? 0,
    completionTokens: usage?.completion_tokens ?? Math.ceil((text.length + (extra.toolCalls ?? []).reduce((n, c) => n + c.arguments.length, 0)) / 4),
  },
  finishReason: (finish && FINISH[finish]) || (extra.toolCalls?.length ? 'tool_calls' : 'other'),
  model,
  ...(extra.toolCalls?.length ? { toolCalls: extra.toolCalls } : {}),
  ...(extra.refusal ? { refusal: extra.refusal } : {}),
});

/** The streamed reply, each piece of text handed to `onDelta` as it comes; usage from the stream's last event. */
const readStream = async (client: OpenAI, params: Omit<Params, 'stream'>, request: ChatRequest, onDelta: (text: string) => void, signal: AbortSignal) => {
  const headers = { 'x-request-purpose': request.purpose };
  const stream = await client.chat.completions.create({ ...params, stream: true, stream_options: { include_usage: true } }, { headers, signal });
  let text = '';
  let refusal = '';
  let finish: string | null | undefined;
  let usage: OpenAI.CompletionUsage | undefined;
  // Only text goes to onDelta: a call's arguments are not something a reader of the run should watch being written.
  const calls = streamedCalls();
  for await (const chunk of stream) {
    const delta = chunk.choices?.[0]?.delta;
    const piece = delta?.content ?? '';
    if (piece) {
      text += piece;
      onDelta(piece);
    }
    if (delta?.refusal) refusal += delta.refusal;
    calls.take(delta?.tool_calls);
    finish = chunk.choices?.[0]?.finish_reason ?? finish;
    if (chunk.usage) usage = chunk.usage;
  }
  return result(cutAtStop(text, request.stop), finish, usage, params.model, { toolCalls: calls.calls(), refusal });
};

/**
 * One reply of an OpenAI-compatible server, read under `signal`: streamed when the caller wants deltas (`onDelta`),
 * whole otherwise; the text is cut at the first stop string, including those past the server's four.
 */
export const readReply = async (client: OpenAI, request: ChatRequest, defaults: ReplyDefaults, signal: AbortSignal, onDelta?: (text: string) => void): Promise<ChatResult> => {
  const params = paramsOf(request, defaults);
  if (onDelta) return readStream(client, params, request, onDelta, signal);
  const headers = { 'x-request-purpose': request.purpose };
  const completion = await client.chat.completions.create({ ...params, stream: false }, { headers, signal });
  const choice = completion.choices?.[0];
  const toolCalls = callsOf(choice?.message?.tool_calls as Parameters<typeof callsOf>[0]);
  const refusal = choice?.message?.refusal;
  // A reply of calls only, or a refusal, has no text: only a reply with none of the three is broken.
  if (!choice || (typeof choice.message?.content !== 'string' && !toolCalls.length && !refusal)) {
    throw new LLMError('the model server returned no message content', undefined, true);
  }
  const text = typeof choice.message.content === 'string' ? choice.message.content : '';
  return result(cutAtStop(text, request.stop), choice.finish_reason, completion.usage, completion.model || params.model, { toolCalls, refusal });
};
