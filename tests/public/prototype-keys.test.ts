import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';

/**
 * Issue 22: `options.__proto__` passed the strict options schema, because copying an object key by key turns a
 * `__proto__` key into the copy's prototype: its contents would then be read as options nobody validated. Such keys
 * are refused like any unknown key, on every JSON route.
 */
const send = (path: string, raw: string) =>
  exports.default.fetch(`http://localhost${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: raw });

const refusal = async (res: Response) => {
  expect(res.status).toBe(400);
  const body = (await res.json()) as { error: { code: string; message: string } };
  expect(body.error.code).toBe('invalid_request');
  return body.error.message;
};

describe('prototype keys in request bodies', () => {
  it('refuses options.__proto__ (it would smuggle maxIterations past the schema) and names it', async () => {
    const raw = '{"question":"Who wrote Hamlet?","mode":"agent","options":{"__proto__":{"maxIterations":1000}}}';
    expect(await refusal(await send('/v1/answer', raw))).toContain('options.__proto__');
  });

  it('refuses options.constructor and options.prototype as unknown options', async () => {
    for (const key of ['constructor', 'prototype']) {
      const raw = `{"question":"Who wrote Hamlet?","mode":"agent","options":{"${key}":{"maxIterations":1000}}}`;
      expect(await refusal(await send('/v1/answer', raw))).toContain(`options.${key} is not an option of mode "agent"`);
    }
  });

  it('refuses __proto__ at any depth and on the other JSON routes', async () => {
    expect(await refusal(await send('/v1/answer', '{"question":"q","__proto__":{"mode":"rag"}}'))).toContain('__proto__');
    const chat = '{"model":"mintaka","messages":[{"role":"user","content":"q"}],"options":{"__proto__":{"k":9}}}';
    expect(await refusal(await send('/v1/chat/completions', chat))).toContain('options.__proto__');
    expect(await refusal(await send('/v1/tools/getLabel', '{"input":{"__proto__":{"x":1}}}'))).toContain('input.__proto__');
  });
});
