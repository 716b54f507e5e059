import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { deployedStyle, uniqueKey } from './helpers';

const send = (path: string, body: BodyInit, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
  exports.default.fetch(`http://localhost${path}`, { method: 'POST', headers, body });

const expectError = async (res: Response, status: number, code: string) => {
  expect(res.status).toBe(status);
  expect(res.headers.get('x-run-id')).toBeNull();
  expect((await res.json<any>()).error.code).toBe(code);
};

const JSON_ROUTES = ['/v1/answer', '/v1/chat/completions', '/v1/tools/runQuery', '/v1/demonstrations'];

describe('JSON routes take JSON only (a cross-site "simple request" cannot start anything)', () => {
  for (const path of JSON_ROUTES) {
    it(`${path}: text/plain, form encodings and a typeless body are 415`, async () => {
      const body = JSON.stringify({ question: 'Who wrote Nineteen Eighty-Four?', model: 'mintaka', messages: [{ role: 'user', content: 'q' }], input: 'x' });
      for (const type of ['text/plain', 'text/plain;charset=UTF-8', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/json; charset=latin1']) {
        await expectError(await send(path, body, { 'content-type': type }), 415, 'unsupported_media_type');
      }
      await expectError(await send(path, new Blob([body]), {}), 415, 'unsupported_media_type');
    });
  }

  it('accepts application/json with a UTF-8 charset and +json types', async () => {
    for (const type of ['application/json; charset=utf-8', 'application/vnd.api+json']) {
      const res = await send('/v1/tools/getLabel', JSON.stringify({ input: 'Q64' }), { 'content-type': type });
      expect(res.status, type).toBe(200);
    }
  });
});

describe('body limits are in bytes and cannot be stepped around', () => {
  const pad = 'x'.repeat(200_000);

  it('"context": 1 does not unlock the 16 MB limit on /v1/chat/completions', async () => {
    const res = await send('/v1/chat/completions', JSON.stringify({ model: 'mintaka', context: 1, messages: [{ role: 'system', content: pad }, { role: 'user', content: 'q' }] }));
    await expectError(res, 413, 'payload_too_large');
  });

  it('nor on /v1/answer, whose large limit is for context only', async () => {
    await expectError(await send('/v1/answer', JSON.stringify({ question: 'q', context: 1, options: { pad } })), 413, 'payload_too_large');
    await expectError(await send('/v1/answer', JSON.stringify({ question: 'q', context: {}, options: { pad } })), 413, 'payload_too_large');
  });

  it('a page is measured in UTF-8 bytes: 1.5 million "€" (4.5 MB) is over the 4 MB page limit', async () => {
    const html = '€'.repeat(1_500_000);
    const res = await send('/v1/answer', JSON.stringify({ question: 'q', mode: 'rag', context: { pages: [{ url: 'u', html }] } }));
    await expectError(res, 413, 'payload_too_large');
  });

  it('a streamed body over 16 MB without Content-Length is cut off with 413', async () => {
    const chunk = new TextEncoder().encode(`"${'y'.repeat(1024 * 1024 - 2)}",`);
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === 0) controller.enqueue(new TextEncoder().encode('{"question":"q","context":{"passages":{"a":['));
        if (sent++ < 20) controller.enqueue(chunk);
        else controller.close();
      },
    });
    const res = await exports.default.fetch('http://localhost/v1/answer', { method: 'POST', headers: { 'content-type': 'application/json' }, body, duplex: 'half' } as RequestInit);
    await expectError(res, 413, 'payload_too_large');
    expect(sent).toBeLessThan(20);
  });
});

describe('failed authentication counts against the client', () => {
  it('wrong keys from one address are throttled with 429 after the per-minute quota', async () => {
    const key = uniqueKey('real');
    const call = deployedStyle({ API_KEYS: key, RATE_LIMIT_PER_MINUTE: '5' });
    const ip = `198.51.100.9-${crypto.randomUUID()}`;
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) {
      const res = await call('/v1/models', { headers: { authorization: `Bearer wrong-${i}`, 'cf-connecting-ip': ip } });
      statuses.push(res.status);
      await res.arrayBuffer();
    }
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(statuses.slice(5)).toEqual([429, 429, 429]);
    // Another address is not affected, and a missing key counts as a failure too.
    const other = `203.0.113.9-${crypto.randomUUID()}`;
    expect((await call('/v1/models', { headers: { 'cf-connecting-ip': other } })).status).toBe(401);
    // The real key still works from the flooded address: its own bucket is the key's.
    expect((await call('/v1/models', { headers: { authorization: `Bearer ${key}`, 'cf-connecting-ip': ip } })).status).toBe(200);
  });
});
