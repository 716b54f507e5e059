import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app';
import { deployedStyle, uniqueKey } from './helpers';

const EVIL = 'https://evil.example.com';

describe('CORS', () => {
  it('answers a preflight before auth, for an allowed origin', async () => {
    const call = deployedStyle({ API_KEYS: uniqueKey('cors'), CORS_ORIGINS: 'https://app.example.org, https://other.example.org' });
    const res = await call('/v1/answer', {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example.org', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://app.example.org');
    expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('authorization');
  });

  it('does not allow an origin outside the list', async () => {
    const call = deployedStyle({ CORS_ORIGINS: 'https://app.example.org' });
    const res = await call('/v1/models', { headers: { origin: EVIL } });
    expect(res.status).toBe(403);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('puts CORS headers on 401s, so a browser can read why', async () => {
    const call = deployedStyle({ API_KEYS: uniqueKey('cors'), CORS_ORIGINS: 'https://app.example.org' });
    const res = await call('/v1/models', { headers: { origin: 'https://app.example.org' } });
    expect(res.status).toBe(401);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://app.example.org');
  });

  it('with API keys and no CORS_ORIGINS, any origin may call (with a key) and sees the run id header', async () => {
    const call = deployedStyle({ API_KEYS: uniqueKey('cors') });
    const res = await call('/v1/models', { headers: { origin: 'https://anywhere.example' } });
    expect(res.status).toBe(401);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-expose-headers')).toContain('x-run-id');
  });
});

describe('an open server (no API_KEYS) serves only its own pages', () => {
  const open = deployedStyle({});

  it('refuses another origin reading the run list, with our error shape and no CORS header', async () => {
    const res = await open('/v1/runs', { headers: { origin: EVIL, 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'cors' } });
    expect(res.status).toBe(403);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('cross_origin_refused');
    expect(body.error.message).toContain(EVIL);
    expect(body.error.message).toContain('CORS_ORIGINS');
  });

  it('refuses the preflight of a JSON POST from another origin', async () => {
    const res = await open('/v1/answer', {
      method: 'OPTIONS',
      headers: { origin: EVIL, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    expect(res.status).toBe(403);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('refuses state changes that need no preflight: a text/plain POST, a form upload, a DELETE', async () => {
    const answer = await open('/v1/answer', { method: 'POST', headers: { origin: EVIL, 'content-type': 'text/plain' }, body: '{"question":"q"}' });
    expect(answer.status).toBe(403);
    const form = new FormData();
    form.set('file', new Blob(['x']), 'a.jsonl');
    const upload = await open('/v1/archives', { method: 'POST', headers: { origin: EVIL }, body: form });
    expect(upload.status).toBe(403);
    // A browser that sends only Sec-Fetch-Site is refused as well.
    const del = await open('/v1/demonstrations/demo-1', { method: 'DELETE', headers: { 'sec-fetch-site': 'cross-site' } });
    expect(del.status).toBe(403);
  });

  it('counts another port on the same host as another origin', async () => {
    const res = await open('/v1/answer', {
      method: 'POST',
      headers: { origin: 'http://localhost:3000', 'sec-fetch-site': 'same-site', 'content-type': 'application/json' },
      body: JSON.stringify({ question: 'Who wrote Hamlet?' }),
    });
    expect(res.status).toBe(403);
  });

  it('serves its own pages: same origin by Origin, or by Sec-Fetch-Site behind a proxy that rewrites the host', async () => {
    expect((await open('/v1/models', { headers: { origin: 'http://localhost' } })).status).toBe(200);
    const proxied = await open('/v1/models', { headers: { origin: 'https://public.example.org', 'sec-fetch-site': 'same-origin' } });
    expect(proxied.status).toBe(200);
  });

  it('serves clients that send no browser origin headers (curl, the OpenAI SDK)', async () => {
    expect((await open('/v1/models')).status).toBe(200);
  });

  it('lets a link from another site open a page (a top-level navigation), but not post a form', async () => {
    const nav = { origin: EVIL, 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate' };
    expect((await open('/openapi.json', { headers: nav })).status).toBe(200);
    const form = await open('/v1/answer', { method: 'POST', headers: { ...nav, 'content-type': 'application/x-www-form-urlencoded' }, body: 'question=q' });
    expect(form.status).toBe(403);
  });

  it('serves an origin that CORS_ORIGINS names, with the CORS header', async () => {
    const call = deployedStyle({ CORS_ORIGINS: 'https://app.example.org' });
    const res = await call('/v1/models', { headers: { origin: 'https://app.example.org', 'sec-fetch-site': 'cross-site' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://app.example.org');
  });

  it('does not accept CORS_ORIGINS=* without API_KEYS, nor something that is not an origin', async () => {
    for (const value of ['*', 'https://app.example.org/path']) {
      const res = await deployedStyle({ CORS_ORIGINS: value })('/healthz');
      expect(res.status).toBe(500);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('config_error');
      expect(body.error.message).toContain('CORS_ORIGINS');
    }
  });

  it('marks every API response nosniff, unframeable and referrer-free, refusals included', async () => {
    for (const res of [await open('/v1/models'), await open('/v1/runs', { headers: { origin: EVIL } })]) {
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
      expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    }
  });
});

describe('an open server and DNS rebinding', () => {
  /** A request as the browser sends it when a site's name has been made to resolve to the server's address. */
  const at = (base: string, vars: Record<string, string>, headers: Record<string, string>) =>
    buildApp().fetch(new Request(`${base}/v1/runs`, { headers }), { ...(env as unknown as Record<string, unknown>), ...vars } as unknown as Env);
  const sameOrigin = (base: string) => ({ origin: base, 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'cors' });

  it('refuses a browser that reaches it under a name it does not know, even though the page is "same-origin"', async () => {
    const res = await at('http://rebound.example.com:8787', {}, sameOrigin('http://rebound.example.com:8787'));
    expect(res.status).toBe(403);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('host_refused');
    expect(body.error.message).toContain('CORS_ORIGINS');
  });

  it('serves browsers at loopback names and IP addresses, names listed in CORS_ORIGINS, and any non-browser client', async () => {
    for (const base of ['http://127.0.0.1:8787', 'http://localhost:8787', 'http://app.localhost:8787', 'http://[::1]:8787', 'http://192.168.1.20:8787']) {
      expect((await at(base, {}, sameOrigin(base))).status, base).toBe(200);
    }
    expect((await at('https://qa.example.org', { CORS_ORIGINS: 'https://qa.example.org' }, sameOrigin('https://qa.example.org'))).status).toBe(200);
    expect((await at('http://rebound.example.com:8787', {}, {})).status).toBe(200);
  });

  it('with API keys the host name is not checked (a page needs a key to get anywhere)', async () => {
    const res = await at('https://api.example.org', { API_KEYS: uniqueKey('cors') }, sameOrigin('https://api.example.org'));
    expect(res.status).toBe(401);
  });
});
