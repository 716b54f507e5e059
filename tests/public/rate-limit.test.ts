import { describe, expect, it } from 'vitest';
import { deployedStyle, uniqueKey } from './helpers';

describe('per-key rate limit', () => {
  it('the 61st request in a minute over a 60/min limit gets 429 with Retry-After', async () => {
    const key = uniqueKey('limit');
    const call = deployedStyle({ API_KEYS: key, RATE_LIMIT_PER_MINUTE: '60' });
    const headers = { authorization: `Bearer ${key}` };
    // The bucket refills one token a second, so on a slow machine a request or two past the 60th may still pass;
    // what must hold is that the first 60 pass and the limit then bites well before a second minute's worth.
    for (let i = 1; i <= 60; i++) {
      const res = await call('/v1/models', { headers });
      expect(res.status, `request ${i}`).toBe(200);
      await res.arrayBuffer();
    }
    let res = await call('/v1/models', { headers });
    for (let extra = 0; res.status === 200 && extra < 10; extra++) {
      await res.arrayBuffer();
      res = await call('/v1/models', { headers });
    }
    expect(res.status).toBe(429);
    const retryAfter = Number(res.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect((await res.json<any>()).error.code).toBe('rate_limited');
  });

  it('keeps a bucket per key: one caller at its limit does not block another', async () => {
    const a = uniqueKey('a');
    const b = uniqueKey('b');
    const call = deployedStyle({ API_KEYS: `${a},${b}`, RATE_LIMIT_PER_MINUTE: '2' });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await call('/v1/models', { headers: { authorization: `Bearer ${a}` } })).status);
    expect(statuses).toEqual([200, 200, 429]);
    expect((await call('/v1/models', { headers: { authorization: `Bearer ${b}` } })).status).toBe(200);
  });

  it('reports the remaining quota', async () => {
    const key = uniqueKey('remaining');
    const call = deployedStyle({ API_KEYS: key, RATE_LIMIT_PER_MINUTE: '5' });
    const res = await call('/v1/models', { headers: { authorization: `Bearer ${key}` } });
    expect(res.headers.get('x-ratelimit-limit')).toBe('5');
    expect(res.headers.get('x-ratelimit-remaining')).toBe('4');
  });

  it('with the API open, buckets by client IP', async () => {
    const call = deployedStyle({ RATE_LIMIT_PER_MINUTE: '2' });
    const ip = `198.51.100.${Math.floor(Math.random() * 250) + 1}-${crypto.randomUUID()}`;
    const other = `203.0.113.7-${crypto.randomUUID()}`;
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await call('/v1/models', { headers: { 'cf-connecting-ip': ip } })).status);
    expect(statuses).toEqual([200, 200, 429]);
    expect((await call('/v1/models', { headers: { 'cf-connecting-ip': other } })).status).toBe(200);
  });

  it('does not count /healthz', async () => {
    const ip = `192.0.2.1-${crypto.randomUUID()}`;
    const call = deployedStyle({ RATE_LIMIT_PER_MINUTE: '1' });
    for (let i = 0; i < 3; i++) expect((await call('/healthz', { headers: { 'cf-connecting-ip': ip } })).status).toBe(200);
    expect((await call('/v1/models', { headers: { 'cf-connecting-ip': ip } })).status).toBe(200);
  });
});

describe('local development', () => {
  it('does not limit an open API called from loopback or without a client address', async () => {
    const call = deployedStyle({ RATE_LIMIT_PER_MINUTE: '1' });
    const callers: Record<string, string>[] = [{}, { 'cf-connecting-ip': '127.0.0.1' }, { 'cf-connecting-ip': '::1' }];
    for (const headers of callers) {
      for (let i = 0; i < 3; i++) expect((await call('/v1/models', { headers })).status).toBe(200);
    }
  });

  it('but does limit loopback when keys are on', async () => {
    const key = uniqueKey('loop');
    const call = deployedStyle({ API_KEYS: key, RATE_LIMIT_PER_MINUTE: '1' });
    const headers = { authorization: `Bearer ${key}`, 'cf-connecting-ip': '127.0.0.1' };
    expect((await call('/v1/models', { headers })).status).toBe(200);
    expect((await call('/v1/models', { headers })).status).toBe(429);
  });
});
