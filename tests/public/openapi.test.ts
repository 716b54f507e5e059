import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { openApiPath } from '../../src/api/openapi';
import { buildApp } from '../../src/app';

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
});
