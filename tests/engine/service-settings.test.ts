import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config';
import { PURPOSES } from '../../src/config-purposes';
import { serviceSettings } from '../../src/runs/service-settings';
import { installScript } from '../../src/llm/scripted';
import { get, post } from './helpers';
import crag from '../../docs/tables/crag.json';
import hpropro from '../../docs/tables/hpropro.json';
import hqa from '../../docs/tables/hqa.json';
import threeModes from '../../docs/tables/mintaka-three-modes.json';

/** GET /v1/config: what an evaluation's manifest records about the service, and options.sampling reaching the model. */
const settings = async (query = '') => {
  const res = await get(`/v1/config${query}`);
  return { status: res.status, body: await res.json<any>() };
};

describe('GET /v1/config', () => {
  it('names the evidence, its hosts (never URLs or secrets), the limits and every purpose', async () => {
    const { status, body } = await settings();
    expect(status).toBe(200);
    expect(body.evidence).toMatchObject({
      mode: 'static',
      replay: null,
      endpoints: { wikipedia: 'en.wikipedia.org', wikidataSparql: 'query.wikidata.org', wikidataApi: 'www.wikidata.org', cragApi: null },
      politeness: 'on',
      contactSet: true,
    });
    expect(body.limits).toMatchObject({ maxSteps: 40, maxLLMCalls: 40, maxWallMs: 300_000, maxTokens: 400_000 });
    expect(body.llm).toMatchObject({ provider: 'scripted', host: null });
    expect(Object.keys(body.purposes).sort()).toEqual([...PURPOSES].sort());
    // CRAG's self-consistency samples differ; every other step is asked at 0.
    expect(body.purposes.attribute.temperature).toBe(0.7);
    expect(body.purposes.calculator.temperature).toBe(0.5);
    expect(body.purposes.agent).toMatchObject({ temperature: 0 });
    expect(JSON.stringify(body)).not.toMatch(/https?:\/\/|api\.php|tests@example\.org/);
    expect(body.resolved).toBeUndefined();
  });

  it('names every bundled few-shot library by the SHA-256 of its files, with its process ids', async () => {
    const { body } = await settings();
    const mintaka = body.fewshot.libraries.mintaka;
    expect(mintaka.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(mintaka.processes).toBe(mintaka.ids.length);
    expect(mintaka.ids[0]).toMatch(/^mintaka\/\d\d-/);
    const shas = Object.values(body.fewshot.libraries).map((l: any) => l.sha256);
    expect(new Set(shas).size).toBe(shas.length);
    expect((await settings()).body.fewshot).toEqual(body.fewshot);
  });

  it('resolves a variant and mode’s options with their defaults: recipe, fewshot, k, library, rounds', async () => {
    const agent = (await settings(`?variant=mintaka&mode=agent&options=${encodeURIComponent('{"recipe":"paper","limits":{"maxLLMCalls":3}}')}`)).body.resolved;
    expect(agent).toMatchObject({ variant: 'mintaka', mode: 'agent' });
    expect(agent.options).toMatchObject({ recipe: 'paper', fewshot: 'dpp', k: 3, seed: 1, library: 'mintaka', maxIterations: 15, limits: { maxLLMCalls: 3, maxSteps: 40 } });
    expect(agent.options.sampling).toEqual({ seed: null, temperature: null });
    const ours = (await settings('?variant=compmix&mode=zero-shot')).body.resolved.options;
    expect(ours).toMatchObject({ recipe: 'ours', fewshot: 'zero-shot', k: 0, library: 'compmix', maxIterations: 10 });
    expect((await settings('?variant=hybridqa')).body.resolved).toMatchObject({ mode: 'program', options: { refineRounds: 2, fewshot: 6, simplify: true } });
    expect((await settings('?variant=crag')).body.resolved).toMatchObject({ mode: 'rag', options: { dynamicPolicy: 'abstain', attributeSamples: 3, kgMode: 'rules' } });
    expect((await settings('?variant=mintaka&mode=rag&options=%7B%22recipe%22%3A%22paper%22%7D')).body.resolved.options).toMatchObject({ dynamicPolicy: 'abstain', attributeSamples: 5 });
  });

  it('records each purpose’s tool protocol (LLM_TOOL_PROTOCOL, a purpose’s own over it) and how it is spoken to its model', async () => {
    expect((await settings()).body.purposes.agent.toolProtocol).toEqual({ configured: 'text', tools: 'text', structured: false, why: 'text protocol' });
    const config = loadConfig({
      LLM_PROVIDER: 'openai', LLM_BASE_URL: 'http://127.0.0.1:9/v1', LLM_MODEL: 'unprobed-model',
      LLM_TOOL_PROTOCOL: 'native', LLM_TOOL_PROTOCOL_JUDGE: 'text', LLM_TOOL_PROTOCOL_AGENT: 'auto',
    });
    const { purposes } = await serviceSettings(config, 'unprobed-model');
    expect(purposes.read.toolProtocol).toMatchObject({ configured: 'native', tools: 'native', structured: true });
    expect(purposes.judge.toolProtocol).toMatchObject({ configured: 'text', tools: 'text' });
    // auto with nothing known of the model falls back to text, and says why.
    expect(purposes.agent.toolProtocol).toMatchObject({ configured: 'auto', tools: 'text', why: expect.stringContaining('nothing known') });
    // A run's own protocol: null leaves it to each purpose; recipe "paper" always speaks text.
    const resolved = async (options: object) => (await settings(`?mode=agent&options=${encodeURIComponent(JSON.stringify(options))}`)).body.resolved.options.toolProtocol;
    expect(await resolved({})).toBeNull();
    expect(await resolved({ toolProtocol: 'native' })).toBe('native');
    expect(await resolved({ recipe: 'paper', toolProtocol: 'native' })).toBe('text');
  });

  it('refuses a wrong option, mode or options text with a 400 naming it', async () => {
    const typo = await settings(`?mode=agent&options=${encodeURIComponent('{"fewshots":"dpp"}')}`);
    expect(typo.status).toBe(400);
    expect(typo.body.error.message).toContain('options.fewshots is not an option of mode "agent"');
    expect((await settings('?mode=nonsense')).status).toBe(400);
    expect((await settings('?mode=agent&options=not-json')).body.error.message).toContain('JSON object');
  });

  it('is documented in /openapi.json', async () => {
    const doc = await (await get('/openapi.json')).json<any>();
    expect(doc.paths['/v1/config'].get.operationId).toBe('serviceSettings');
    expect(doc.components.schemas.ServiceSettings).toBeDefined();
  });
});

describe('the reproduction specs of docs/tables (npm run table)', () => {
  type Spec = { benchmarks: Record<string, { benchmark?: string }>; options?: object; systems: Record<string, { mode: string; options?: object; byBenchmark?: Record<string, object> }> };
  const specs = { crag, hpropro, hqa, threeModes } as unknown as Record<string, Spec>;

  it('every row is a mode the service runs, with options it accepts; an authors’ library is asked for by the name its import gives', async () => {
    for (const [name, spec] of Object.entries(specs)) {
      for (const [column, b] of Object.entries(spec.benchmarks)) {
        // The eval's variant is the benchmark's name, but MultiModalQA's, which has none (the default variant).
        const benchmark = b.benchmark ?? column;
        const variant = benchmark === 'mmqa' ? '' : `variant=${benchmark}&`;
        for (const [row, sys] of Object.entries(spec.systems)) {
          const { library, ...options } = { ...spec.options, ...sys.options, ...sys.byBenchmark?.[column] } as Record<string, unknown>;
          const at = `${name}: ${row} on ${column}`;
          const ok = await settings(`?${variant}mode=${sys.mode}&options=${encodeURIComponent(JSON.stringify(options))}`);
          expect(ok.status, `${at}: ${JSON.stringify(ok.body.error)}`).toBe(200);
          expect(ok.body.resolved.options.recipe, at).toBe((options.recipe as string | undefined) ?? 'ours');
          if (library === undefined) continue;
          // Not bundled until `npm run fewshot:import` has made it: the refusal says so before any question is asked.
          expect(library, at).toMatch(/^hqa-(mintaka|qald|compmix)$/);
          const missing = await settings(`?${variant}mode=${sys.mode}&options=${encodeURIComponent(JSON.stringify({ ...options, library }))}`);
          expect(missing.status, at).toBe(400);
          expect(missing.body.error.message, at).toContain('npm run fewshot:import');
        }
      }
    }
  });
});

describe('options.sampling', () => {
  it('sends one seed and one temperature with every model call of the run; without it each purpose’s temperature', async () => {
    const llm = installScript({ parametric: ['Paris', 'Paris'] });
    const asked = await post('/v1/answer', { question: 'Capital of France?', mode: 'parametric', options: { sampling: { seed: 7, temperature: 0.3 } } });
    expect(asked.status).toBe(200);
    expect(llm.requests[0]).toMatchObject({ purpose: 'parametric', seed: 7, temperature: 0.3 });
    await post('/v1/answer', { question: 'Capital of Spain?', mode: 'parametric' });
    expect(llm.requests[1].temperature).toBe(0);
    expect(llm.requests[1].seed).toBeUndefined();
    const wrong = await post('/v1/answer', { question: 'q', mode: 'parametric', options: { sampling: { temperature: 9 } } });
    expect(wrong.status).toBe(400);
  });
});
