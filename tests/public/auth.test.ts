import { describe, expect, it } from 'vitest';
import { matchesAnyKey } from '../../src/api/auth';
import { deployedStyle, uniqueKey } from './helpers';

describe('bearer auth with API_KEYS set', () => {
  const key = uniqueKey('auth');
  const call = deployedStyle({ API_KEYS: `other-key-123, ${key}` });

  it('answers 401 JSON without a key, with a wrong key and with a malformed header', async () => {
    for (const authorization of [undefined, `Bearer ${key}x`, `Basic ${key}`, 'Bearer ']) {
      const res = await call('/v1/models', { headers: authorization ? { authorization } : {} });
      expect(res.status, String(authorization)).toBe(401);
      expect(res.headers.get('www-authenticate')).toContain('Bearer');
      const body = await res.json<any>();
      expect(body.error.code).toBe('unauthorized');
      expect(JSON.stringify(body)).not.toContain(key);
    }
  });

  it('also guards answering: no run is started without a key', async () => {
    const res = await call('/v1/answer', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ question: 'q', mode: 'parametric' }) });
    expect(res.status).toBe(401);
    expect(res.headers.get('x-run-id')).toBeNull();
  });

  it('lets any configured key through', async () => {
    for (const k of [key, 'other-key-123']) {
      const res = await call('/v1/models', { headers: { authorization: `Bearer ${k}` } });
      expect(res.status).toBe(200);
      expect((await res.json<any>()).object).toBe('list');
    }
  });

  it('keeps /healthz and /openapi.json open, and /healthz says auth is on', async () => {
    const health = await call('/healthz');
    expect(health.status).toBe(200);
    expect((await health.json<any>()).auth).toBe('bearer');
    expect((await call('/openapi.json')).status).toBe(200);
  });
});

describe('without API_KEYS (local development)', () => {
  it('the API is open and /healthz says so', async () => {
    const call = deployedStyle({});
    expect((await call('/v1/models')).status).toBe(200);
    const health = await (await call('/healthz')).json<any>();
    expect(health.auth).toMatch(/^open/);
    // No OTEL_EXPORTER_OTLP_ENDPOINT: /healthz says runs are not traced.
    expect(health.tracing).toEqual({ on: false });
  });
});

describe('matchesAnyKey', () => {
  it('matches exactly, never by prefix or case', async () => {
    expect(await matchesAnyKey('abc-123', ['zzz', 'abc-123'])).toBe(true);
    expect(await matchesAnyKey('abc-12', ['abc-123'])).toBe(false);
    expect(await matchesAnyKey('ABC-123', ['abc-123'])).toBe(false);
    expect(await matchesAnyKey('abc-123', [])).toBe(false);
  });
});
