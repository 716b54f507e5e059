import { afterEach, describe, expect, it, vi } from 'vitest';
import { deployedStyle } from './helpers';

/**
 * Issue 22: POST /v1/tools/generateQuery behind a model that answers `429 Retry-After: 100000` had not answered after
 * 100 s (the retry loop honours Retry-After up to a minute per try, four times). Every tool call now has one deadline,
 * TOOL_TIMEOUT_MS, and ends with 504 tool_timeout when it passes. With the model's politeness gate on (the default),
 * a Retry-After longer than POLITENESS_MAX_WAIT_MS ends the call at once instead.
 */
afterEach(() => vi.restoreAllMocks());

const slowDownModel = () => {
  const calls: string[] = [];
  vi.spyOn(globalThis, 'fetch').mockImplementation(async (input) => {
    calls.push(String(input instanceof Request ? input.url : input));
    return new Response(JSON.stringify({ error: { message: 'slow down' } }), {
      status: 429,
      headers: { 'content-type': 'application/json', 'retry-after': '100000' },
    });
  });
  return calls;
};

describe('a deadline on every tool route', () => {
  // Without the model gate the provider's own retry loop honours the Retry-After: only the deadline ends the call.
  const call = deployedStyle({ LLM_PROVIDER: 'openai', LLM_BASE_URL: 'http://model.invalid/v1', LLM_MODEL: 'm', TOOL_TIMEOUT_MS: '300', POLITENESS: 'off' });
  const runTool = (name: string, input: string) =>
    call(`/v1/tools/${name}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ input }) });

  it('generateQuery behind a model asking to retry in 100000 s ends with 504 tool_timeout naming the setting', async () => {
    const calls = slowDownModel();
    const res = await runTool('generateQuery', 'Who wrote Hamlet? # Q692');
    expect(res.status).toBe(504);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('tool_timeout');
    expect(body.error.message).toContain('TOOL_TIMEOUT_MS');
    expect(calls.some((u) => u.startsWith('http://model.invalid/'))).toBe(true);
  });

  it('read behind the same model ends the same way', async () => {
    slowDownModel();
    const res = await runTool('read', 'Douglas Adams # Where was he born?');
    expect(res.status).toBe(504);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('tool_timeout');
  });

  it('a tool that needs no model still answers within the deadline', async () => {
    const res = await deployedStyle({ TOOL_TIMEOUT_MS: '60000' })('/v1/tools/getLabel', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ input: 'Q42' }),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { output: string }).output).toContain('Douglas Adams');
  });

  it('with the model gate, a Retry-After longer than any run may wait ends the call at once, saying so', async () => {
    const calls = slowDownModel();
    const gated = deployedStyle({ LLM_PROVIDER: 'openai', LLM_BASE_URL: 'http://model-gated.invalid/v1', LLM_MODEL: 'm', TOOL_TIMEOUT_MS: '60000', LLM_MAX_RETRIES: '1' });
    const res = await gated('/v1/tools/generateQuery', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ input: 'Who wrote Hamlet? # Q692' }) });
    // The tool answers its error as the observation the agent would see, long before the deadline, and the model
    // server hears from us once: nothing is sent inside the window it asked for.
    expect(res.status).toBe(200);
    const body = (await res.json()) as { output: string; error?: true };
    expect(body.error).toBe(true);
    expect(body.output).toMatch(/^Error: not sent to model-gated\.invalid \(model m\).*Retry-After 100000 s.*politeness gate/);
    expect(calls.filter((u) => u.startsWith('http://model-gated.invalid/'))).toHaveLength(1);
  });
});
