import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config';
import { openAIProvider } from '../../src/llm/openai';
import { routeByPurpose } from '../../src/llm/route';
import { scriptedLLM } from '../../src/llm/scripted';
import { programStrategy } from '../../src/strategies/program';
import { driveStrategy } from '../helpers/drive';
import { fence, marathonContext } from '../program/fixture';

const split = { LLM_MODEL_CODE: 'big-coder', LLM_MODEL_CHECK: 'small-checker', LLM_MODEL_VISION: 'eyes-v1' };

describe('per-purpose models (LLM_MODEL_<PURPOSE>)', () => {
  it('parses one model per purpose and refuses an unknown purpose with the valid names', () => {
    const config = loadConfig({ ...split, LLM_MODEL_GENERATE_QUERY: 'sparql-model', LLM_MODEL_EXTRACT_INFO: ' reader ' });
    expect(config.LLM_MODELS).toEqual({ code: 'big-coder', check: 'small-checker', vision: 'eyes-v1', generateQuery: 'sparql-model', extract_info: 'reader' });
    expect(loadConfig({}).LLM_MODELS).toEqual({});
    let error: unknown;
    try {
      loadConfig({ LLM_MODEL_CHEK: 'x' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(/LLM_MODEL_CHEK: no such purpose.*LLM_MODEL_CHECK.*LLM_MODEL_VISION/);
  });

  it('routes each call of a program run to its purpose model and reports the model per purpose in usage', async () => {
    const program = `function solve(table) {
  const row = table.rows.find((r) => check(r['Country'].text, 'the land of the rising sun', '=='));
  return extract_info(row['Country'], 'the colour of the flag');
}`;
    const llm = scriptedLLM({
      code: [fence(program)],
      check: ['false', 'false', 'true'],
      vision: ['red and white'],
    });
    // The scripted model alone reads no images; naming a vision model lets extract_info send the flag image to it.
    const { events, usage } = await driveStrategy(programStrategy, {
      request: { question: 'What colours has the flag of the 2021 winner\'s country?', variant: 'hybridqa', mode: 'program', context: marathonContext, options: { simplify: false } },
      llm,
      env: split,
    });
    expect(events.find((e) => e.type === 'answer')?.data).toMatchObject({ answer: 'red and white' });
    const byPurpose = Object.fromEntries(llm.requests.map((r) => [r.purpose, r.model]));
    expect(byPurpose).toEqual({ code: 'big-coder', check: 'small-checker', vision: 'eyes-v1' });
    const image = llm.requests.find((r) => r.purpose === 'vision')!.messages[1].content;
    expect(image).toContainEqual({ type: 'image_url', image_url: { url: 'https://example.org/flag_japan.png' } });
    expect(usage.byPurpose).toMatchObject({
      code: { calls: 1, model: 'big-coder' },
      check: { calls: 3, model: 'small-checker' },
      vision: { calls: 1, model: 'eyes-v1' },
    });
  });

  it('keeps the default model for purposes without their own, and lists both models when a purpose used two', async () => {
    const llm = routeByPurpose(scriptedLLM({ default: ['a', 'b', 'c'] }), { vision: 'eyes-v1' });
    const text = await llm.chat({ purpose: 'extract_info', messages: [{ role: 'user', content: 'plain text' }] });
    const seen = await llm.chat({ purpose: 'extract_info', messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.org/x.png' } }] }] });
    expect([text.model, seen.model]).toEqual(['scripted', 'eyes-v1']);
    const { addLLMCall, emptyUsage } = await import('../../src/engine/usage');
    const usage = emptyUsage();
    addLLMCall(usage, 'extract_info', { promptTokens: 1, completionTokens: 1 }, text.model);
    addLLMCall(usage, 'extract_info', { promptTokens: 1, completionTokens: 1 }, seen.model);
    addLLMCall(usage, 'extract_info', { promptTokens: 1, completionTokens: 1 }, seen.model);
    expect(usage.byPurpose.extract_info).toMatchObject({ calls: 3, model: 'eyes-v1', models: { scripted: 1, 'eyes-v1': 2 } });
  });

  it('a fork on another model reports that model for the purposes it served, beside the parent\'s calls', async () => {
    const { addLLMCall, emptyUsage } = await import('../../src/engine/usage');
    // The parent's steps (copied into the fork with their usage), then the fork's own calls with "model": "other-model".
    const usage = addLLMCall(addLLMCall(emptyUsage(), 'parametric', { promptTokens: 1, completionTokens: 1 }, 'stub'), 'agent', { promptTokens: 1, completionTokens: 1 }, 'stub');
    const fork = structuredClone(usage);
    addLLMCall(fork, 'agent', { promptTokens: 1, completionTokens: 1 }, 'other-model');
    addLLMCall(fork, 'final', { promptTokens: 1, completionTokens: 1 }, 'other-model');
    expect(fork.byPurpose).toMatchObject({
      parametric: { calls: 1, model: 'stub' },
      agent: { calls: 2, model: 'other-model', models: { stub: 1, 'other-model': 1 } },
      final: { calls: 1, model: 'other-model' },
    });
  });

  it('sends the routed model name to an OpenAI-compatible server', async () => {
    const bodies: { model: string }[] = [];
    const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
      bodies.push(await new Request(input, init).json());
      return Response.json({ id: 'x', object: 'chat.completion', model: '', choices: [{ index: 0, message: { role: 'assistant', content: 'true' }, finish_reason: 'stop' }] });
    }) as typeof globalThis.fetch;
    const llm = routeByPurpose(openAIProvider({ baseURL: 'http://127.0.0.1:9/v1', model: 'gpt-4', timeoutMs: 5_000, maxResponseBytes: 1_048_576, maxRetries: 0, fetch }), { check: 'gpt-3.5-turbo' });
    const checked = await llm.chat({ purpose: 'check', messages: [{ role: 'user', content: 'ten > 9' }] });
    await llm.chat({ purpose: 'code', messages: [{ role: 'user', content: 'write code' }] });
    expect(bodies.map((b) => b.model)).toEqual(['gpt-3.5-turbo', 'gpt-4']);
    expect(checked.model).toBe('gpt-3.5-turbo');
  });
});

describe('without a model', () => {
  it('the hint names LLM_MODEL beside LLM_BASE_URL', async () => {
    const { createLLM } = await import('../../src/llm');
    const llm = createLLM(loadConfig({}), {});
    expect(llm.ok).toBe(false);
    expect(llm.ok ? '' : llm.reason).toMatch(/--var LLM_BASE_URL:\S+ --var LLM_MODEL:<model>.*LLM_MODEL is the name the server serves/);
  });
});
