import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { preflight } from '../../src/eval/runner/preflight';
import { postAnswer } from '../../src/eval/runner/client';
import { freePort } from '../support/dev-server.mjs';

/**
 * The checks before an evaluation's first question, against a fake service whose answers each test sets: the cause
 * in words for a dead URL, a model that is not ready, a 503 llm_unavailable and an option the service refuses.
 */
describe('preflight', () => {
  let server: Server;
  let url = '';
  let health: Record<string, unknown> = {};
  let check: { status: number; body: unknown } = { status: 200, body: { valid: true } };
  const seen: string[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      const send = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (req.url === '/healthz') return send(200, health);
      if (req.url === '/v1/models') return send(200, { data: [{ id: 'mintaka' }, { id: 'mintaka:agent' }, { id: 'mintaka:parametric' }] });
      if (req.url === '/v1/answer/check') return send(check.status, check.body);
      send(404, { error: { code: 'not_found', message: `no route for ${req.method} ${req.url}` } });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const ready = { llm: { ready: true, provider: 'openai', model: 'm' }, variants: ['mintaka'], modes: ['agent', 'parametric'], defaultModes: { mintaka: 'agent' }, version: '0.1.0', commit: 'abc' };
  const body = { question: 'q', variant: 'mintaka', options: { k: 3 } };

  it('returns the version, commit, model and the mode the variant runs by default', async () => {
    health = ready;
    check = { status: 200, body: { valid: true } };
    expect(await preflight(url, { variant: 'mintaka', bodies: [body] })).toMatchObject({ version: '0.1.0', commit: 'abc', mode: 'agent', llm: { model: 'm' } });
    expect(seen).toEqual(['GET /healthz', 'GET /v1/models', 'POST /v1/answer/check']);
  });

  it('a dead URL: connection refused, in words', async () => {
    const dead = `http://127.0.0.1:${await freePort()}`;
    await expect(preflight(dead, { variant: 'mintaka', bodies: [body] })).rejects.toThrow(/cannot reach the service: GET .*\/healthz failed: fetch failed — connection refused: nothing listens there — .*ECONNREFUSED/);
    // A question asked there says the same, not just "fetch failed".
    const outcome = await postAnswer(dead, body, { retries: 0 });
    expect(outcome.ok ? '' : outcome.error).toMatch(/^request failed: fetch failed — connection refused.*ECONNREFUSED/);
  });

  it('a service without a model, and one that answers 503 llm_unavailable', async () => {
    health = { ...ready, llm: { ready: false, provider: 'openai', message: 'LLM_MODEL "x" is not served by the model server (it serves: y)' } };
    await expect(preflight(url, { variant: 'mintaka', bodies: [body] })).rejects.toThrow('the service has no model ready (GET /healthz llm.ready is false): LLM_MODEL "x" is not served');
    health = ready;
    check = { status: 503, body: { error: { code: 'llm_unavailable', message: 'LLM_PROVIDER is openai but LLM_BASE_URL is not set' } } };
    await expect(preflight(url, { variant: 'mintaka', bodies: [body] })).rejects.toThrow('HTTP 503 llm_unavailable: LLM_PROVIDER is openai but LLM_BASE_URL is not set');
  });

  it('an option the service refuses stops it with the service’s message; an unknown mode or variant too', async () => {
    health = ready;
    check = { status: 400, body: { error: { code: 'invalid_request', message: 'options.fewshots is not an option of mode "agent"' } } };
    await expect(preflight(url, { variant: 'mintaka', bodies: [body] })).rejects.toThrow('the service refuses these requests: HTTP 400 invalid_request: options.fewshots is not an option of mode "agent"');
    await expect(preflight(url, { variant: 'mintaka', mode: 'rag', bodies: [] })).rejects.toThrow('the service has no mode "rag"');
    await expect(preflight(url, { variant: 'crag', bodies: [] })).rejects.toThrow('the service has no variant "crag"');
  });
});
