import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { openAIProvider } from '../../src/llm/openai';
import { askStructured } from '../../src/llm/structured';
import type { ChatRequest, ToolDefinition } from '../../src/llm/types';
import { startStub, type Stub } from '../support/openai-stub.mjs';

/**
 * The model seam's OpenAI provider against the model stub through the real `openai` SDK: function definitions out,
 * `tool_calls` in (whole, and streamed with their arguments in pieces), `tool` messages back, reply schemas.
 */
let stub: Stub;
beforeAll(async () => {
  stub = await startStub();
});
afterAll(async () => {
  await stub?.close();
});
beforeEach(() => {
  stub.setScript({});
  stub.refuse({});
  stub.requests.length = 0;
});

const llm = () => openAIProvider({ baseURL: stub.url, model: 'stub', timeoutMs: 10_000, maxResponseBytes: 1 << 20, maxRetries: 0 });
const search: ToolDefinition = { name: 'wikisearch', description: 'Search Wikipedia.', parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] } };
const ask = (extra: Partial<ChatRequest> = {}): ChatRequest => ({ purpose: 'agent', messages: [{ role: 'user', content: 'Zoë asks about “東京” and "Berlin"' }], tools: [search], toolChoice: 'auto', ...extra });
// Mistral's servers give (and want back) nine-character ids; the arguments carry quotes and characters outside ASCII.
const calls = [
  { name: 'wikisearch', id: 'a1B2c3D4e', arguments: { query: 'Zoë "quoted" 東京' } },
  { name: 'wikisearch', id: 'F5g6H7i8j', arguments: { query: 'Berlin' } },
];

describe('tool calls through the openai SDK', () => {
  it('sends the functions and reads two calls of one reply, whole', async () => {
    stub.setScript({ agent: [{ tool_calls: calls, content: 'Two searches.' }] });
    const out = await llm().chat(ask());
    expect(stub.requests[0].body.tools).toEqual([{ type: 'function', function: search }]);
    expect(stub.requests[0].body.tool_choice).toBe('auto');
    expect(out.text).toBe('Two searches.');
    expect(out.finishReason).toBe('tool_calls');
    expect(out.toolCalls).toEqual([
      { id: 'a1B2c3D4e', name: 'wikisearch', arguments: JSON.stringify({ query: 'Zoë "quoted" 東京' }) },
      { id: 'F5g6H7i8j', name: 'wikisearch', arguments: '{"query":"Berlin"}' },
    ]);
  });

  it('joins streamed arguments that arrive seven characters at a time, and streams only the text', async () => {
    stub.setScript({ agent: [{ tool_calls: calls, content: 'Two searches.' }] });
    const deltas: string[] = [];
    const out = await llm().chat(ask(), { onDelta: (t) => deltas.push(t) });
    expect(stub.requests[0].body.stream).toBe(true);
    expect(deltas.join('')).toBe('Two searches.');
    expect(out.toolCalls?.map((c) => [c.id, JSON.parse(c.arguments).query])).toEqual([
      ['a1B2c3D4e', 'Zoë "quoted" 東京'],
      ['F5g6H7i8j', 'Berlin'],
    ]);
  });

  it('keeps malformed arguments as they came, for the caller to answer', async () => {
    stub.setScript({ agent: [{ tool_calls: [{ name: 'wikisearch', arguments: '{"query": "Berl' }] }] });
    const out = await llm().chat(ask(), { onDelta: () => {} });
    expect(out.toolCalls).toEqual([{ id: expect.stringMatching(/^call_/), name: 'wikisearch', arguments: '{"query": "Berl' }]);
  });

  it('sends the assistant turn with its calls and a tool message per call back in the wire format', async () => {
    stub.setScript({ agent: ['Final Answer: Berlin'] });
    await llm().chat(
      ask({
        messages: [
          { role: 'user', content: 'q' },
          { role: 'assistant', content: 'Look.', toolCalls: [{ id: 'a1B2c3D4e', name: 'wikisearch', arguments: '{"query":"Berlin"}' }] },
          { role: 'tool', toolCallId: 'a1B2c3D4e', content: '1. Berlin' },
        ],
      }),
    );
    expect(stub.requests[0].body.messages.slice(1)).toEqual([
      { role: 'assistant', content: 'Look.', tool_calls: [{ id: 'a1B2c3D4e', type: 'function', function: { name: 'wikisearch', arguments: '{"query":"Berlin"}' } }] },
      { role: 'tool', tool_call_id: 'a1B2c3D4e', content: '1. Berlin' },
    ]);
  });

  it('a server that refuses tools answers 400, which the caller sees as such', async () => {
    stub.refuse({ tools: true });
    await expect(llm().chat(ask())).rejects.toMatchObject({ status: 400, message: expect.stringMatching(/enable-auto-tool-choice/) });
  });

  it('asks for a reply schema, reads its JSON, and falls back to the text parser for a reply that is not it', async () => {
    const spec = { name: 'final_answer', schema: z.object({ answer: z.string() }), fromText: (t: string) => ({ answer: t.trim() }) };
    const request: ChatRequest = { purpose: 'final', messages: [{ role: 'system', content: 'Answer.' }, { role: 'user', content: 'q' }] };
    stub.setScript({ final: ['{"answer": "Berlin"}'] });
    const json = await askStructured(llm(), request, spec, true);
    expect(stub.requests[0].body.response_format).toEqual({ type: 'json_schema', json_schema: { name: 'final_answer', schema: expect.objectContaining({ required: ['answer'] }) } });
    expect(json).toMatchObject({ value: { answer: 'Berlin' }, via: 'schema' });
    stub.setScript({ final: ['Berlin, of course'] });
    const text = await askStructured(llm(), request, spec, true);
    expect(text).toMatchObject({ value: { answer: 'Berlin, of course' }, via: 'text', fellBack: "the reply was not the schema's JSON" });
    // A server that refuses the schema is asked again without it.
    stub.refuse({ responseFormat: true });
    stub.requests.length = 0;
    const refused = await askStructured(llm(), request, spec, true);
    expect(stub.requests.map((r) => !!r.body.response_format)).toEqual([true, false]);
    expect(refused).toMatchObject({ value: { answer: 'Berlin, of course' }, via: 'text', fellBack: expect.stringMatching(/refused the reply schema.*400/) });
  });
});
