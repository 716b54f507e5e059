// @module-tag slow
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAIProvider } from '../../src/llm/openai';
import { modelProblem } from '../../src/llm/served-models';
import { startDev, type DevServer } from '../support/dev-server.mjs';
import { startStub, type Stub } from '../support/openai-stub.mjs';

/**
 * A model server that does not serve the configured name (LLM_BASE_URL set, LLM_MODEL forgotten, so the name is
 * `default`): the run's error carries the server's own words, and /healthz says which name is not served.
 */
let strict: Stub;
let dev: DevServer;
beforeAll(async () => {
  strict = await startStub({ models: ['qwen2.5:7b'] });
  dev = await startDev({ vars: { LLM_BASE_URL: strict.url, LLM_MAX_RETRIES: '0' } });
}, 180_000);
afterAll(async () => {
  await dev?.stop();
  await strict?.close();
});

describe('a model name the server does not serve', () => {
  it("fails the run with the server's own message", async () => {
    const res = await fetch(`${dev.url}/v1/answer`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ question: 'Who wrote Dune?', mode: 'parametric' }),
    });
    const run = (await res.json()) as any;
    expect(run.status).toBe('failed');
    expect(run.error.code).toBe('llm_error');
    expect(run.error.message).toContain("the model server answered HTTP 404: model 'default' not found");
  });

  it('/healthz names the unserved model, what the server serves, and the variable to set', async () => {
    const health = (await (await fetch(`${dev.url}/healthz`)).json()) as any;
    expect(health.ok).toBe(true);
    expect(health.llm).toMatchObject({ ready: false, provider: 'openai', model: 'default' });
    expect(health.llm.message).toContain('does not serve "default" (LLM_MODEL): it serves "qwen2.5:7b"');
    expect(health.llm.message).toContain('Set LLM_MODEL');
  });
});

describe('the model list check', () => {
  const provider = (stub: Stub, model: string) =>
    openAIProvider({ baseURL: stub.url, model, timeoutMs: 5_000, maxResponseBytes: 1 << 20, maxRetries: 0 });

  it('finds nothing wrong with a served name, nor with a server that has no model list', async () => {
    expect(await modelProblem(provider(strict, 'qwen2.5:7b'), [{ name: 'qwen2.5:7b', setting: 'LLM_MODEL' }])).toBeUndefined();
    const unlisted = await startStub({ listModels: false });
    try {
      expect(await modelProblem(provider(unlisted, 'any'), [{ name: 'any', setting: 'LLM_MODEL' }])).toBeUndefined();
    } finally {
      await unlisted.close();
    }
  });

  it('names a per-purpose model the server lacks, and says when the server cannot be asked', async () => {
    const llm = provider(strict, 'qwen2.5:7b');
    const wanted = [{ name: 'qwen2.5:7b', setting: 'LLM_MODEL' }, { name: 'gpt-3.5-turbo', setting: 'LLM_MODEL_CHECK' }];
    expect(await modelProblem(llm, wanted)).toMatch(/does not serve "gpt-3\.5-turbo" \(LLM_MODEL_CHECK\).*Set LLM_MODEL_CHECK/);
    const gone = await startStub();
    const away = provider(gone, 'stub');
    await gone.close();
    expect(await modelProblem(away, [{ name: 'stub', setting: 'LLM_MODEL' }])).toMatch(/model list could not be read: the model server could not be reached/);
  });
});
