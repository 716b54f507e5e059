import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app';
import { chatCompletionSchema, errorSchema, healthSchema, modelListSchema, runPageSchema, runSchema } from '../../src/api/response-schemas';
import { installScript } from '../../src/llm/scripted';
import { get, post } from '../engine/helpers';

/** Hono's "/v1/runs/:id" → OpenAPI's "/v1/runs/{id}". */
const openApiPath = (honoPath: string) => honoPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

describe('GET /openapi.json', () => {
  it('documents every route the app serves, each with a summary of its own', async () => {
    const doc = await (await exports.default.fetch('http://localhost/openapi.json')).json<any>();
    expect(doc.openapi).toBe('3.1.0');
    const served = buildApp()
      .routes.filter((r) => ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].includes(r.method) && !r.path.includes('*'))
      .map((r) => [r.method.toLowerCase(), openApiPath(r.path)] as const);
    expect(served.length).toBeGreaterThanOrEqual(9);
    for (const [method, path] of served) {
      const op = doc.paths[path]?.[method];
      expect(op, `${method} ${path}`).toBeDefined();
      expect(op.summary, `${method} ${path}`).not.toContain('not yet described');
    }
    for (const path of ['/healthz', '/v1/answer', '/v1/runs/{id}', '/v1/runs/{id}/events', '/v1/tools/{name}', '/v1/chat/completions', '/v1/models', '/openapi.json']) {
      expect(Object.keys(doc.paths)).toContain(path);
    }
  });

  it('takes request bodies from the validating zod schemas', async () => {
    const doc = await (await exports.default.fetch('http://localhost/openapi.json')).json<any>();
    const answer = doc.components.schemas.AnswerRequest;
    expect(answer.required).toEqual(['question']);
    expect(answer.additionalProperties).toBe(false);
    expect(answer.properties.variant.enum).toEqual(['mintaka', 'qald9plus', 'compmix', 'hybridqa', 'mmqa', 'crag']);
    expect(doc.components.schemas.ChatCompletionRequest.required).toEqual(['model', 'messages']);
    expect(doc.components.schemas.DemonstrationInput.required).toEqual(expect.arrayContaining(['benchmark', 'question', 'steps']));
    expect(doc.paths['/v1/demonstrations'].post.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/DemonstrationInput' });
    // Open routes say so; the rest inherit bearer auth.
    expect(doc.paths['/healthz'].get.security).toEqual([]);
    expect(doc.security).toEqual([{ bearer: [] }]);
  });

  it('describes what the routes really answer: real responses parse with the schemas the document is generated from', async () => {
    const matches = (schema: { safeParse(v: unknown): { success: boolean; error?: unknown } }, value: unknown, what: string) => {
      const parsed = schema.safeParse(value);
      expect(parsed.success, `${what}: ${JSON.stringify(parsed.error ?? null).slice(0, 500)}`).toBe(true);
    };
    installScript({ parametric: ['Robert Zemeckis'] });
    const run = await (await post('/v1/answer', { question: 'Who directed Forrest Gump?', mode: 'parametric' })).json();
    matches(runSchema, run, 'POST /v1/answer');
    matches(runSchema, await (await get(`/v1/runs/${(run as { runId: string }).runId}`)).json(), 'GET /v1/runs/{id}');
    matches(runPageSchema, await (await get('/v1/runs?limit=5')).json(), 'GET /v1/runs');
    matches(healthSchema, await (await get('/healthz')).json(), 'GET /healthz');
    matches(modelListSchema, await (await get('/v1/models')).json(), 'GET /v1/models');
    installScript({ parametric: ['Paris'] });
    matches(chatCompletionSchema, await (await post('/v1/chat/completions', { model: 'mintaka:parametric', messages: [{ role: 'user', content: 'Capital of France?' }] })).json(), 'POST /v1/chat/completions');
    // Validation failures of query, path and header parameters leave in the API's error shape, naming the field.
    for (const [res, field] of [
      [await get('/v1/runs?limit=0'), 'limit'],
      [await get('/v1/runs/x/events', { 'last-event-id': 'soon' }), 'last-event-id'],
      [await get('/v1/demonstrations?benchmark=trivia'), 'benchmark'],
    ] as const) {
      expect(res.status).toBe(400);
      const body = await res.json<{ error: { message: string } }>();
      matches(errorSchema, body, field);
      expect(body.error.message).toContain(field);
    }
  });

  it('keeps the byte limits ahead of the schema: an oversized body is a 413 before validation, a wrong type a 415', async () => {
    const big = await post('/v1/tools/getLabel', { input: 'x'.repeat(70_000) });
    expect(big.status).toBe(413);
    const vendor = await post('/v1/answer', { question: 'Who?' }, { 'content-type': 'application/x_vendor+json' });
    expect(vendor.status).toBe(415);
    expect((await vendor.json<{ error: { code: string } }>()).error.code).toBe('unsupported_media_type');
  });
});
