import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config';
import { protocolFor, toolProtocolOf } from '../../src/engine/tool-protocol';
import type { RunContext } from '../../src/engine/types';
import { capabilitiesOf, speak } from '../../src/llm/capabilities';
import { resolveOptions } from '../../src/runs/create';

const record = (over: Record<string, unknown> = {}) => ({
  model: 'qwen', server: 'http://10.0.0.5:8000', probedAt: '2026-11-20T10:00:00.000Z', file: 'probes/qwen.json', tools: true, parallel: true, responseFormat: false, ...over,
});

/** A step's context as far as choosing a protocol reads it: the run's options parsed as the run service parses them. */
const ctxOf = (env: Record<string, string>, options: Record<string, unknown> = {}, provider = 'openai', model = 'qwen') => {
  const config = loadConfig(env);
  return { options: resolveOptions('mintaka', 'agent', options, config), config, llm: { provider, model } } as unknown as RunContext;
};

describe('what is known of a model', () => {
  it('reads the newest probe record of the same model on the same server', () => {
    const records = [record(), record({ probedAt: '2026-11-25T10:00:00.000Z', file: 'probes/qwen-new.json', responseFormat: true }), record({ server: 'http://other:8000', tools: false })];
    expect(capabilitiesOf('openai', 'qwen', 'http://10.0.0.5:8000/v1', records)).toEqual({ tools: true, parallel: true, responseFormat: true, source: 'probe probes/qwen-new.json (2026-11-25T10:00:00.000Z)' });
    expect(capabilitiesOf('openai', 'qwen', 'http://elsewhere:8000/v1', records)).toBeUndefined();
  });

  it("falls back to Workers AI's catalogue, and knows nothing of other models", () => {
    expect(capabilitiesOf('workers-ai', '@cf/meta/llama-3.3-70b-instruct-fp8-fast', undefined, [])).toMatchObject({ tools: true, responseFormat: true, source: 'Workers AI catalogue' });
    expect(capabilitiesOf('workers-ai', '@cf/mistralai/mistral-small-3.1-24b-instruct', undefined, [])).toMatchObject({ tools: true, responseFormat: false });
    expect(capabilitiesOf('workers-ai', '@cf/meta/llama-2-7b-chat-int8', undefined, [])).toBeUndefined();
    expect(capabilitiesOf('openai', 'qwen', 'http://10.0.0.5:8000/v1', [])).toBeUndefined();
  });

  it('auto speaks native only where the model is known to; native sends a reply schema unless a probe found it cannot', () => {
    const probed = { tools: true, parallel: false, responseFormat: false, source: 'probe probes/x.json (d)' };
    expect(speak('auto', undefined)).toMatchObject({ tools: 'text', structured: false });
    expect(speak('auto', probed)).toMatchObject({ tools: 'native', structured: false });
    expect(speak('auto', { ...probed, tools: false })).toMatchObject({ tools: 'text' });
    expect(speak('native', undefined)).toMatchObject({ tools: 'native', structured: true });
    expect(speak('native', probed)).toMatchObject({ tools: 'native', structured: false });
    expect(speak('native', { ...probed, source: 'Workers AI catalogue' })).toMatchObject({ structured: true });
  });
});

describe('which protocol a step speaks', () => {
  it('takes the run option over LLM_TOOL_PROTOCOL_<PURPOSE> over LLM_TOOL_PROTOCOL, and text under the paper recipe', () => {
    const env = { LLM_TOOL_PROTOCOL: 'native', LLM_TOOL_PROTOCOL_FINAL: 'text' };
    expect(protocolFor(ctxOf(env), 'agent').tools).toBe('native');
    expect(protocolFor(ctxOf(env), 'final')).toMatchObject({ tools: 'text', structured: false });
    expect(protocolFor(ctxOf(env, { toolProtocol: 'text' }), 'agent').tools).toBe('text');
    expect(protocolFor(ctxOf({}, { toolProtocol: 'native' }), 'final').structured).toBe(true);
    expect(protocolFor(ctxOf(env, { toolProtocol: 'native', recipe: 'paper' }), 'agent')).toMatchObject({ tools: 'text', why: expect.stringMatching(/paper/) });
    expect(protocolFor(ctxOf({}), 'agent').tools).toBe('text');
    expect(protocolFor(ctxOf({}, { toolProtocol: 'auto' }, 'workers-ai', '@cf/openai/gpt-oss-120b'), 'agent')).toMatchObject({ tools: 'native', structured: true });
    expect(toolProtocolOf(ctxOf({}).options)).toBeUndefined();
  });

  it('refuses a bad value or an unknown purpose in the environment, naming the variable', () => {
    expect(() => loadConfig({ LLM_TOOL_PROTOCOL: 'json' })).toThrow(/LLM_TOOL_PROTOCOL must be text, native, auto/);
    expect(() => loadConfig({ LLM_TOOL_PROTOCOL_AGNET: 'native' })).toThrow(ConfigError);
    expect(() => loadConfig({ LLM_TOOL_PROTOCOL_AGNET: 'native' })).toThrow(/LLM_TOOL_PROTOCOL_AGNET: no such purpose/);
    expect(() => loadConfig({ LLM_TOOL_PROTOCOL_GENERATE_QUERY: 'maybe' })).toThrow(/LLM_TOOL_PROTOCOL_GENERATE_QUERY: must be text, native, auto/);
    expect(loadConfig({ LLM_TOOL_PROTOCOL_GENERATE_QUERY: 'native' }).LLM_TOOL_PROTOCOLS).toEqual({ generateQuery: 'native' });
  });

  it('takes options.toolProtocol in every mode and refuses a value it does not know', () => {
    const config = loadConfig({});
    for (const mode of ['agent', 'rag', 'program', 'parametric']) expect(resolveOptions('mintaka', mode, { toolProtocol: 'auto' }, config).toolProtocol).toBe('auto');
    expect(() => resolveOptions('mintaka', 'agent', { toolProtocol: 'json' }, config)).toThrow(/options.toolProtocol must be one of: text, native, auto/);
  });
});
