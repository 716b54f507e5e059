import { describe, expect, it } from 'vitest';
import { openAIProvider } from '../../src/llm/openai';

/** The provider cache hint (issue 25): OpenAI's prompt_cache_key goes to OpenAI only, never to other servers. */
const bodiesSentTo = async (baseURL: string) => {
  const bodies: any[] = [];
  const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    bodies.push(await new Request(input, init).json());
    return Response.json({ id: 'x', object: 'chat.completion', model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }] });
  }) as typeof globalThis.fetch;
  const llm = openAIProvider({ baseURL, model: 'm', timeoutMs: 5_000, maxResponseBytes: 1 << 20, maxRetries: 0, fetch });
  await llm.chat({ purpose: 'agent', messages: [{ role: 'user', content: 'q' }] });
  await llm.chat({ purpose: 'read', messages: [{ role: 'user', content: 'q' }] });
  return bodies;
};

describe('prompt cache key', () => {
  it('is sent to api.openai.com, one key per purpose', async () => {
    const bodies = await bodiesSentTo('https://api.openai.com/v1');
    expect(bodies.map((b) => b.prompt_cache_key)).toEqual(['humaniq-agent', 'humaniq-read']);
  });

  it('is not sent to another OpenAI-compatible server (vLLM caches prefixes without it, and may refuse unknown fields)', async () => {
    const bodies = await bodiesSentTo('http://127.0.0.1:8000/v1');
    expect(bodies.every((b) => !('prompt_cache_key' in b))).toBe(true);
  });
});
