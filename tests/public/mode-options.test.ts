import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { installScript } from '../../src/llm/scripted';
import { env } from 'cloudflare:workers';
import { loadConfig } from '../../src/config';
import { strategyFor } from '../../src/strategies';
import { post } from '../engine/helpers';

const QUESTION = 'Who directed Forrest Gump?';

const errorOf = async (res: Response) => {
  expect(res.status).toBe(400);
  const body = (await res.json()) as { error: { code: string; message: string } };
  expect(body.error.code).toBe('invalid_request');
  return body.error.message;
};

/** Each mode's options are its own: a key another mode takes, a typo or a wrong type is refused before a run starts. */
describe('options per mode', () => {
  const typos: Array<[mode: string, options: Record<string, unknown>, key: string]> = [
    ['agent', { fewshots: 'dpp' }, 'fewshots'],
    ['program', { refineRound: 1 }, 'refineRound'],
    ['rag', { kgmode: 'calls' }, 'kgmode'],
    ['parametric', { fewshot: 'dpp' }, 'fewshot'],
    ['static-pipeline', { k: 3 }, 'k'],
    ['late-fusion-random', { answerStyle: 'long' }, 'answerStyle'],
    ['structured-only', { dynamicPolicy: 'answer' }, 'dynamicPolicy'],
    ['test-tool-loop', { call: 2 }, 'call'],
  ];
  for (const [mode, options, key] of typos) {
    it(`POST /v1/answer mode ${mode}: an unknown option "${key}" is a 400 naming it and the mode`, async () => {
      const message = await errorOf(await post('/v1/answer', { question: QUESTION, mode, options }));
      expect(message).toContain(`options.${key} is not an option of mode "${mode}"`);
    });
  }

  it('the list of what a mode takes names documented keys only', async () => {
    const message = await errorOf(await post('/v1/answer', { question: QUESTION, mode: 'agent', options: { fewshots: 'dpp' } }));
    expect(message).toMatch(/\(it takes: .*\bfewshot\b.*\)/);
    expect(message).toMatch(/\bmodel\b/);
    expect(message).not.toContain('testEvidence');
  });

  it('every mode the service offers has its own options schema (a new mode must declare its options)', async () => {
    const health = (await (await exports.default.fetch('http://localhost/healthz')).json()) as { modes: string[] };
    expect(health.modes.length).toBeGreaterThan(5);
    const config = loadConfig(env as unknown as Record<string, unknown>);
    for (const mode of health.modes) expect(strategyFor(mode, config)?.options.schema.safeParse({}).success, mode).toBe(true);
  });

  it('the default mode is checked too, and nested limits are strict', async () => {
    expect(await errorOf(await post('/v1/answer', { question: QUESTION, options: { fewshots: 'dpp' } }))).toContain('options.fewshots is not an option of mode "agent"');
    expect(await errorOf(await post('/v1/answer', { question: QUESTION, mode: 'agent', options: { limits: { maxCalls: 2 } } }))).toContain('options.limits.maxCalls is not an option of mode "agent"');
  });

  const wrongTypes: Array<[mode: string, options: Record<string, unknown>, key: string]> = [
    ['agent', { k: 'three' }, 'k'],
    ['agent', { fewshot: 4 }, 'fewshot'],
    ['program', { fewshot: 'dpp' }, 'fewshot'],
    ['program', { simplify: 'no' }, 'simplify'],
    ['rag', { tableChars: 1.5 }, 'tableChars'],
    ['rag', { dynamicPolicy: 'never' }, 'dynamicPolicy'],
    ['agent', { limits: { maxSteps: '5' } }, 'limits.maxSteps'],
  ];

  it('options.abstainBelow takes a confidence level, in every mode', async () => {
    for (const mode of ['agent', 'program', 'rag', 'parametric']) {
      expect(await errorOf(await post('/v1/answer', { question: QUESTION, mode, options: { abstainBelow: 'high' } }))).toContain('options.abstainBelow must be a confidence level: none, conflict, one_source, two_agree, all_agree');
    }
  });

  it('POST /v1/answer/check answers what /v1/answer would, without starting a run', async () => {
    installScript({ parametric: ['never asked'] });
    const ok = await post('/v1/answer/check', { question: 'Checked, never run?', variant: 'mintaka', mode: 'parametric', options: { abstainBelow: 'one_source' } });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ valid: true, variant: 'mintaka', mode: 'parametric' });
    expect(await errorOf(await post('/v1/answer/check', { question: QUESTION, mode: 'agent', options: { fewshots: 'dpp' } }))).toContain('options.fewshots is not an option of mode "agent"');
    const runs = (await (await exports.default.fetch('http://localhost/v1/runs')).json()) as { runs?: unknown[]; data?: unknown[] };
    expect(JSON.stringify(runs)).not.toContain('Checked, never run?');
  });
  for (const [mode, options, key] of wrongTypes) {
    it(`mode ${mode}: a wrong value for ${key} is a 400 naming it`, async () => {
      expect(await errorOf(await post('/v1/answer', { question: QUESTION, mode, options }))).toContain(`options.${key} (mode "${mode}")`);
    });
  }

  it('POST /v1/chat/completions checks options against the mode its model names', async () => {
    const chat = (model: string, options: Record<string, unknown>) =>
      exports.default.fetch('http://localhost/v1/chat/completions', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model, messages: [{ role: 'user', content: QUESTION }], options }),
      });
    expect(await errorOf(await chat('mintaka:agent', { fewshots: 'dpp' }))).toContain('options.fewshots is not an option of mode "agent"');
    expect(await errorOf(await chat('mintaka', { fewshots: 'dpp' }))).toContain('options.fewshots is not an option of mode "agent"');
    expect(await errorOf(await chat('hybridqa:program', { k: 3 }))).toContain('options.k is not an option of mode "program"');
    expect(await errorOf(await chat('mintaka:rag', { topChunks: 'ten' }))).toContain('options.topChunks (mode "rag")');
  });

  it('valid options still run', async () => {
    installScript({ parametric: ['Robert Zemeckis'] });
    const res = await post('/v1/answer', { question: QUESTION, mode: 'parametric', options: { recipe: 'ours', booleanStyle: 'true-false', limits: { maxLLMCalls: 3 } } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ answer: 'Robert Zemeckis', status: 'succeeded' });
  });

  it('/openapi.json documents each mode\'s options', async () => {
    const doc = await (await exports.default.fetch('http://localhost/openapi.json')).json<any>();
    const agent = doc.components.schemas.Options_agent;
    expect(agent.additionalProperties).toBe(false);
    expect(Object.keys(agent.properties)).toEqual(expect.arrayContaining(['fewshot', 'k', 'seed', 'library', 'limits', 'recipe']));
    expect(doc.components.schemas.Options_program.properties.fewshot.type).toBe('integer');
    expect(doc.components.schemas.AnswerRequest.properties.options.anyOf).toContainEqual({ $ref: '#/components/schemas/Options_rag' });
    expect(doc.components.schemas.ChatCompletionRequest.properties.options.anyOf).toContainEqual({ $ref: '#/components/schemas/Options_program' });
  });

  it('/openapi.json names no test-only option, even as served by a test build', async () => {
    const doc = await (await exports.default.fetch('http://localhost/openapi.json')).json<any>();
    // This build registers a test-only mode (TEST_MODE): the service runs it, the document does not offer it.
    const health = (await (await exports.default.fetch('http://localhost/healthz')).json()) as { modes: string[] };
    expect(health.modes).toContain('test-tool-loop');
    const components = Object.keys(doc.components.schemas).filter((k) => k.startsWith('Options_'));
    expect(components.length).toBeGreaterThan(10);
    expect(components).not.toContain('Options_test_tool_loop');
    const keys = new Set(components.flatMap((k) => Object.keys(doc.components.schemas[k].properties ?? {})));
    for (const testOnly of ['testEvidence', 'testKgUrl', 'calls', 'delayMs', 'runKey', 'gated', 'failStart', 'think']) expect(keys).not.toContain(testOnly);
    expect(JSON.stringify(doc)).not.toMatch(/TEST_MODE|test builds? only|test-tool-loop/i);
  });

  it('/openapi.json gives every served operation a success response and the error shape', async () => {
    const doc = await (await exports.default.fetch('http://localhost/openapi.json')).json<any>();
    for (const [path, ops] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(ops)) {
        const statuses = Object.keys(op.responses ?? {});
        const errors = statuses.filter((s) => /^[45]\d\d$/.test(s));
        // A method the path does not offer (GET and DELETE on the stateless /mcp) documents its 405 instead of a success.
        if (!errors.includes('405')) expect(statuses.some((s) => /^[23]\d\d$/.test(s)), `${method} ${path}`).toBe(true);
        // Open routes (/healthz, /openapi.json) always answer 200; every other one documents at least its auth error.
        if (!(Array.isArray(op.security) && op.security.length === 0)) expect(errors, `${method} ${path}`).toContain('401');
        for (const s of errors) expect(op.responses[s].content['application/json'].schema, `${method} ${path} ${s}`).toEqual({ $ref: '#/components/schemas/Error' });
      }
    }
  });
});
