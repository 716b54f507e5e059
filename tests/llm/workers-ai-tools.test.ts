import { describe, expect, it } from 'vitest';
import { workersAIProvider } from '../../src/llm/workers-ai';
import type { ChatRequest } from '../../src/llm/types';

/** A stand-in for the `env.AI` binding that answers each call with the next reply and keeps the inputs it got. */
const fakeAI = (replies: Array<() => unknown>) => {
  const seen: any[] = [];
  const ai = {
    run: async (_model: string, inputs: any) => {
      seen.push(inputs);
      return replies.shift()!();
    },
  } as unknown as Ai;
  return { ai, seen };
};

const provider = (ai: Ai) => workersAIProvider(ai, { budget: { maxBytes: 64 * 1024, timeoutMs: 5_000 }, maxRetries: 2 });
const search = { name: 'wikisearch', description: 'Search Wikipedia.', parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] } };
const request = (extra: Partial<ChatRequest> = {}): ChatRequest => ({ purpose: 'agent', messages: [{ role: 'user', content: 'q' }], tools: [search], ...extra });

describe('the Workers AI binding with functions and reply schemas', () => {
  it('sends the functions in the OpenAI shape and reads the classic output: calls with object arguments and no ids', async () => {
    const { ai, seen } = fakeAI([() => ({ response: '', tool_calls: [{ name: 'wikisearch', arguments: { query: 'Berlin' } }, { name: 'wikisearch', arguments: { query: 'Madrid' } }] })]);
    // A caller that wants deltas is not streamed to: the binding gives calls whole only.
    const out = await provider(ai).chat(request(), { onDelta: () => {} });
    expect(seen[0].stream).toBeUndefined();
    expect(seen[0].tools).toEqual([{ type: 'function', function: search }]);
    expect(out.finishReason).toBe('tool_calls');
    expect(out.toolCalls).toEqual([
      { id: 'call00001', name: 'wikisearch', arguments: '{"query":"Berlin"}' },
      { id: 'call00002', name: 'wikisearch', arguments: '{"query":"Madrid"}' },
    ]);
  });

  it("reads the chat-completions output of the models served in OpenAI's format (gpt-oss)", async () => {
    const { ai } = fakeAI([() => ({ choices: [{ message: { content: 'Look.', tool_calls: [{ id: 'chatcmpl-tool-1', type: 'function', function: { name: 'wikisearch', arguments: '{"query":"Berlin"}' } }] } }] })]);
    const out = await provider(ai).chat(request());
    expect(out).toMatchObject({ text: 'Look.', toolCalls: [{ id: 'chatcmpl-tool-1', name: 'wikisearch', arguments: '{"query":"Berlin"}' }] });
  });

  it('sends earlier calls and their results back as assistant and tool messages', async () => {
    const { ai, seen } = fakeAI([() => ({ response: 'Final Answer: Berlin' })]);
    await provider(ai).chat(
      request({
        messages: [
          { role: 'user', content: 'q' },
          { role: 'assistant', content: '', toolCalls: [{ id: 'call00001', name: 'wikisearch', arguments: '{"query":"Berlin"}' }] },
          { role: 'tool', toolCallId: 'call00001', content: '1. Berlin' },
        ],
      }),
    );
    expect(seen[0].messages.slice(1)).toEqual([
      { role: 'assistant', content: '', tool_calls: [{ id: 'call00001', type: 'function', function: { name: 'wikisearch', arguments: '{"query":"Berlin"}' } }] },
      { role: 'tool', content: '1. Berlin', tool_call_id: 'call00001' },
    ]);
  });

  it("asks JSON mode for a schema and takes a reply it already parsed as the object's JSON", async () => {
    const { ai, seen } = fakeAI([() => ({ response: { answer: 'Berlin' } })]);
    const schema = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] };
    const out = await provider(ai).chat({ purpose: 'final', messages: [{ role: 'user', content: 'q' }], responseFormat: { name: 'final_answer', schema } });
    expect(seen[0].response_format).toEqual({ type: 'json_schema', json_schema: schema });
    expect(JSON.parse(out.text)).toEqual({ answer: 'Berlin' });
  });

  it('a request the binding refuses as sent is a 400, not retried', async () => {
    const { ai, seen } = fakeAI([
      () => {
        throw new Error("AiError: JSON Mode couldn't be met");
      },
    ]);
    const err = await provider(ai).chat({ purpose: 'final', messages: [{ role: 'user', content: 'q' }], responseFormat: { name: 'x', schema: {} } }).catch((e) => e);
    expect(err).toMatchObject({ status: 400, retryable: false });
    expect(seen).toHaveLength(1);
  });
});
