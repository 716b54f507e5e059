import { env } from 'cloudflare:workers';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config';
import { createEvidence } from '../../src/evidence';
import { openAIProvider } from '../../src/llm/openai';
import { createMediaWikiStandIn } from '../support/wikimedia-standins.mjs';
import { deployedStyle } from './helpers';

/**
 * Issue 41, item 2: a credential never travels over plain HTTP. `WIKIPEDIA_API_URL=http://en.wikipedia.org/…` (one
 * letter short of https) once sent WIKIMEDIA_ACCESS_TOKEN as `Bearer …` in clear. The Worker now refuses such a
 * configuration on its first request, naming the variable, and the clients hold to it whatever built them.
 */
const TOKEN = `wm-token-${crypto.randomUUID()}`;

/** Every request the Worker sends, as the network would see it; Wikimedia's hosts answered by a MediaWiki stand-in. */
const watchNetwork = () => {
  const wiki = createMediaWikiStandIn({ latencyMs: 1 });
  const seen: Array<{ url: string; authorization: string | null }> = [];
  vi.spyOn(globalThis, 'fetch').mockImplementation(async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    seen.push({ url: request.url, authorization: request.headers.get('authorization') });
    if (/wiki(pedia|data)\.org$/.test(new URL(request.url).hostname)) return wiki.handle(request);
    return Response.json({ error: { message: 'no such host here' } }, { status: 404 });
  });
  return seen;
};

afterEach(() => vi.restoreAllMocks());

describe('a credential over plain HTTP', () => {
  it('WIKIPEDIA_API_URL=http://en.wikipedia.org/… with an access token: every route answers a config error naming the variable, and nothing is sent', async () => {
    const seen = watchNetwork();
    const call = deployedStyle({ EVIDENCE: 'live', WIKIMEDIA_ACCESS_TOKEN: TOKEN, WIKIPEDIA_API_URL: 'http://en.wikipedia.org/w/api.php' });
    for (const res of [await call('/healthz'), await call('/v1/tools/wikisearch', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ input: 'Ada Lovelace' }) })]) {
      expect(res.status).toBe(500);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('config_error');
      expect(body.error.message).toContain('WIKIPEDIA_API_URL: http://en.wikipedia.org/w/api.php is plain HTTP to a Wikimedia host, where WIKIMEDIA_ACCESS_TOKEN is sent');
      expect(body.error.message).toContain('write https://en.wikipedia.org/w/api.php');
      // The token itself is never in an error a client reads.
      expect(body.error.message).not.toContain(TOKEN);
    }
    expect(seen).toEqual([]);
  });

  it('an http model server with LLM_API_KEY is refused at start; a loopback one (tests, a local server) is not', () => {
    expect(() => loadConfig({ LLM_BASE_URL: 'http://models.example.org/v1', LLM_API_KEY: 'sk-secret-1' })).toThrow(
      /LLM_BASE_URL: http:\/\/models\.example\.org\/v1 is plain HTTP: LLM_API_KEY is set and would travel in clear\. Use https:\/\/models\.example\.org\/v1/,
    );
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel.example.org', OTEL_EXPORTER_OTLP_HEADERS: 'x-key=abc123' })).toThrow(/OTEL_EXPORTER_OTLP_ENDPOINT: .* is plain HTTP/);
    expect(loadConfig({ LLM_BASE_URL: 'http://127.0.0.1:8000/v1', LLM_API_KEY: 'sk-secret-1' }).LLM_BASE_URL).toBe('http://127.0.0.1:8000/v1');
    expect(loadConfig({ LLM_BASE_URL: 'http://models.example.org/v1' }).LLM_BASE_URL).toBe('http://models.example.org/v1');
    // A mirror of your own gets no token, so plain http to it is its operator's choice.
    expect(loadConfig({ WIKIMEDIA_ACCESS_TOKEN: TOKEN, WIKIPEDIA_API_URL: 'http://wiki.mirror.test/w/api.php' }).WIKIPEDIA_API_URL).toBe('http://wiki.mirror.test/w/api.php');
  });

  it('whatever the configuration says, the live client and the model provider never send the credential in clear', async () => {
    const seen = watchNetwork();
    // A configuration that got past the check some other way (an object built by hand).
    const config = { ...loadConfig({ EVIDENCE: 'live', WIKIMEDIA_ACCESS_TOKEN: TOKEN, POLITENESS: 'off' }), WIKIPEDIA_API_URL: 'http://en.wikipedia.org/w/api.php' };
    const evidence = createEvidence(config, { DB: env.DB });
    await expect(evidence.search('Ada Lovelace')).rejects.toThrow(/http:\/\/en\.wikipedia\.org is plain HTTP, and the access token for en\.wikipedia\.org is never sent in clear/);
    const model = openAIProvider({ baseURL: 'http://models.example.org/v1', apiKey: 'sk-secret-1', timeoutMs: 5_000, maxResponseBytes: 1 << 20, maxRetries: 0 });
    await expect(model.chat({ purpose: 'agent', messages: [{ role: 'user', content: 'q' }] })).rejects.toMatchObject({
      message: expect.stringContaining('LLM_API_KEY is never sent over plain HTTP'),
      retryable: false,
    });
    expect(seen.filter((s) => s.url.startsWith('http:') && s.authorization)).toEqual([]);
    // Over https the token goes, as before.
    const https = createEvidence(loadConfig({ EVIDENCE: 'live', WIKIMEDIA_ACCESS_TOKEN: TOKEN, POLITENESS: 'off' }), { DB: env.DB });
    await https.search('Alan Turing');
    expect(seen.at(-1)).toEqual({ url: expect.stringMatching(/^https:\/\/en\.wikipedia\.org\//), authorization: `Bearer ${TOKEN}` });
  });
});
