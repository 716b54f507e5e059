import { describe, expect, it } from 'vitest';
import { workersAIProvider } from '../../src/llm/workers-ai';
import { LLMError, type ChatScope } from '../../src/llm/types';

const encoder = new TextEncoder();

/** A stand-in for the `env.AI` binding: each call answers with the next reply; records the inputs it got. */
const fakeAI = (replies: Array<(inputs: any, options: { signal: AbortSignal }) => unknown>) => {
  const seen: any[] = [];
  const ai = {
    run: async (_model: string, inputs: any, options: { signal: AbortSignal }) => {
      seen.push(inputs);
      const next = replies.shift();
      if (!next) throw new Error('fake AI: no reply left');
      return next(inputs, options);
    },
  } as unknown as Ai;
  return { ai, seen };
};

const events = (...data: unknown[]) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      for (const d of data) controller.enqueue(encoder.encode(`data: ${typeof d === 'string' ? d : JSON.stringify(d)}\n\n`));
      controller.close();
    },
  });

const budget = { maxBytes: 64 * 1024, timeoutMs: 300 };
/** `scope`: how the call is made (with `onDelta`, it streams). */
const ask = (ai: Ai, scope: ChatScope = {}) =>
  workersAIProvider(ai, { budget, maxRetries: 1 })
    .chat({ purpose: 'agent', messages: [{ role: 'user', content: 'q' }], stop: ['Observation:'] }, scope)
    .catch((e) => e);

describe('workers-ai provider', () => {
  it('reads the binding stream when deltas are wanted, with usage and the stop cut', async () => {
    const { ai, seen } = fakeAI([() => events({ response: 'Thought: x\n' }, { response: 'Observation: made up' }, { response: '', usage: { prompt_tokens: 7, completion_tokens: 4 } }, '[DONE]')]);
    const deltas: string[] = [];
    const out = await ask(ai, { onDelta: (d: string) => deltas.push(d) });
    expect(out).toMatchObject({ text: 'Thought: x\n', usage: { promptTokens: 7, completionTokens: 4 } });
    expect(deltas.join('')).toContain('Thought: x');
    expect(seen[0].stream).toBe(true);
  });

  it('an endless stream fails with llm_response_too_large', async () => {
    const endless = () => new ReadableStream<Uint8Array>({ pull: (c) => c.enqueue(encoder.encode(`data: {"response":"${'a'.repeat(4096)}"}\n\n`)) });
    const { ai, seen } = fakeAI([endless, endless, endless]);
    const err = await ask(ai, { onDelta: () => {} });
    expect(err).toBeInstanceOf(LLMError);
    expect(err.code).toBe('llm_response_too_large');
    expect(seen).toHaveLength(2);
  });

  it('a stream sent one byte per piece is refused by the cap, not read until its deadline', async () => {
    const text = encoder.encode('data: {"response":"a"}\n\n'.repeat(100_000));
    const bytes = () => {
      let at = 0;
      return new ReadableStream<Uint8Array>({ pull: (c) => c.enqueue(text.subarray(at, ++at)) });
    };
    const { ai } = fakeAI([bytes]);
    const deltas: string[] = [];
    const err = await workersAIProvider(ai, { budget: { maxBytes: 64 * 1024, timeoutMs: 60_000 }, maxRetries: 0 })
      .chat({ purpose: 'agent', messages: [{ role: 'user', content: 'q' }] }, { onDelta: (d) => deltas.push(d) })
      .catch((e) => e);
    expect(err.code).toBe('llm_response_too_large');
    expect(err.message).toMatch(/came in 1025 pieces averaging 1\.0 bytes .*a trickle/);
    // The whole events that came before the cap were read as they came.
    expect(deltas.length).toBeGreaterThan(10);
  });

  it('a reply over the cap fails the same way when not streamed', async () => {
    const { ai } = fakeAI([() => ({ response: 'a'.repeat(100_000) }), () => ({ response: 'a'.repeat(100_000) })]);
    expect((await ask(ai)).code).toBe('llm_response_too_large');
  });

  it('a call that never settles, or a stream that stalls, fails with llm_timeout', async () => {
    const hung = () => new Promise(() => {});
    expect((await ask(fakeAI([hung, hung]).ai)).code).toBe('llm_timeout');
    const stall = () => new ReadableStream<Uint8Array>({ start: (c) => c.enqueue(encoder.encode('data: {"response":"half"}\n\n')) });
    const err = await ask(fakeAI([stall, stall]).ai, { onDelta: () => {} });
    expect(err.code).toBe('llm_timeout');
  });
});
