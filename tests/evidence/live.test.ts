import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config';
import { createEvidence } from '../../src/evidence';
import { createLiveEvidence, USER_AGENT } from '../../src/evidence/live';
import { liveHttp } from '../../src/evidence/live/http';
import { EvidenceError } from '../../src/evidence/types';

const mirror = {
  WIKIPEDIA_API_URL: 'http://127.0.0.1:9101/w/api.php',
  WIKIDATA_SPARQL_URL: 'http://127.0.0.1:9102/sparql',
  WIKIDATA_API_URL: 'http://127.0.0.1:9103/w/api.php',
};

type Handler = (url: URL, init: RequestInit) => Response | Promise<Response>;

/** A fake Wikimedia: records every request and answers through the handler. */
const fakeServer = (handler: Handler) => {
  const calls: { url: URL; init: RequestInit; headers: Headers }[] = [];
  vi.spyOn(globalThis, 'fetch').mockImplementation(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    calls.push({ url, init: init ?? {}, headers: new Headers(init?.headers) });
    return handler(url, init ?? {});
  });
  return calls;
};

const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

const live = () => createLiveEvidence(mirror, { cache: null, maxRetryWaitMs: 20 });

afterEach(() => vi.restoreAllMocks());

describe('live evidence against a fake Wikimedia', () => {
  it('is chosen by EVIDENCE=live and searches through the MediaWiki API with a User-Agent', async () => {
    const calls = fakeServer(() =>
      json({ query: { search: [{ title: 'Douglas Adams', snippet: 'English <span class="searchmatch">writer</span> &amp; humorist' }] } }),
    );
    const ev = createEvidence(loadConfig({ EVIDENCE: 'live', ...mirror }), { DB: undefined as unknown as D1Database }, { live: { cache: null } });
    expect(ev.kind).toBe('live');
    const hits = await ev.search('douglas adams writer', 3);
    expect(hits).toEqual([{ title: 'Douglas Adams', snippet: 'English writer & humorist', url: 'http://127.0.0.1:9101/wiki/Douglas_Adams' }]);
    const { url, headers } = calls[0];
    expect(url.origin + url.pathname).toBe(mirror.WIKIPEDIA_API_URL);
    expect(Object.fromEntries(url.searchParams)).toMatchObject({ action: 'query', list: 'search', srsearch: 'douglas adams writer', srlimit: '3', format: 'json' });
    expect(headers.get('user-agent')).toBe(USER_AGENT);
  });

  it('reads a page as plain-text sections with its Wikidata id, and null for a missing page', async () => {
    const calls = fakeServer((url) =>
      url.searchParams.get('titles') === 'Nope'
        ? json({ query: { pages: [{ title: 'Nope', missing: true }] } })
        : json({
            query: {
              pages: [{ title: 'Douglas Adams', extract: 'Lead text.\n\n== Early life ==\nBorn in Cambridge.\n\n=== School ===\nBrentwood.', pageprops: { wikibase_item: 'Q42' } }],
            },
          }),
    );
    const page = await live().page('douglas adams');
    expect(page).toMatchObject({ title: 'Douglas Adams', wikidataId: 'Q42', url: 'http://127.0.0.1:9101/wiki/Douglas_Adams' });
    expect(page?.sections).toEqual([
      { heading: '', text: 'Lead text.' },
      { heading: 'Early life', text: 'Born in Cambridge.' },
      { heading: 'School', text: 'Brentwood.' },
    ]);
    expect(Object.fromEntries(calls[0].url.searchParams)).toMatchObject({ prop: 'extracts|pageprops', explaintext: '1', ppprop: 'wikibase_item', redirects: '1' });
    expect(await live().page('Nope')).toBeNull();
  });

  it('maps a title to its item through pageprops', async () => {
    const calls = fakeServer(() => json({ query: { pages: [{ title: 'Cambridge', pageprops: { wikibase_item: 'Q350' } }] } }));
    expect(await live().wikidataId('Cambridge')).toBe('Q350');
    expect(calls[0].url.searchParams.get('prop')).toBe('pageprops');
  });

  it('asks the entity API for labels and descriptions', async () => {
    const calls = fakeServer(() =>
      json({ entities: { Q42: { labels: { en: { value: 'Douglas Adams' } }, descriptions: { en: { value: 'writer' } } }, Q0: { missing: '' } } }),
    );
    expect(await live().labels(['Q42', 'Q0'])).toEqual([{ id: 'Q42', label: 'Douglas Adams', description: 'writer' }, { id: 'Q0' }]);
    expect(calls[0].url.origin + calls[0].url.pathname).toBe(mirror.WIKIDATA_API_URL);
    expect(Object.fromEntries(calls[0].url.searchParams)).toMatchObject({ action: 'wbgetentities', ids: 'Q42|Q0', props: 'labels|descriptions', languages: 'en' });
  });

  it('sends SPARQL to the query service with a LIMIT added, and refuses unsafe queries without any request', async () => {
    const calls = fakeServer(() => json({ head: { vars: ['x'] }, results: { bindings: [{ x: { type: 'uri', value: 'http://www.wikidata.org/entity/Q350' } }] } }));
    const r = await live().sparql('SELECT ?x WHERE { wd:Q42 wdt:P19 ?x }');
    expect('results' in r && r.results.bindings[0].x.value).toBe('http://www.wikidata.org/entity/Q350');
    expect(calls[0].url.searchParams.get('query')).toBe('SELECT ?x WHERE { wd:Q42 wdt:P19 ?x }\nLIMIT 1000');
    expect(calls[0].headers.get('accept')).toBe('application/sparql-results+json');
    await expect(live().sparql('DELETE WHERE { ?s ?p ?o }')).rejects.toMatchObject({ code: 'refused' });
    await expect(live().sparql('SELECT * WHERE { SERVICE <http://evil.example/sparql> { ?s ?p ?o } }')).rejects.toMatchObject({ code: 'refused' });
    expect(calls).toHaveLength(1);
  });

  it('refuses hostile SPARQL shapes (deep nesting, operator chains, huge text) before any request', async () => {
    const calls = fakeServer(() => json({ head: { vars: [] }, results: { bindings: [] } }));
    for (const q of [`SELECT * WHERE ${'{'.repeat(1000)}${'}'.repeat(1000)}`, `SELECT * WHERE { FILTER(${'!'.repeat(400)}true) }`, `SELECT * WHERE { ?s ?p "${'x'.repeat(20_000)}" }`]) {
      await expect(live().sparql(q)).rejects.toMatchObject({ code: 'refused' });
    }
    expect(calls).toHaveLength(0);
  });

  it('bounds a slow query service: headers then a body that never ends fails as a timeout', async () => {
    // Like a real connection, the fake's body ends with an error when the request's signal fires.
    fakeServer((_url, init) => {
      const body = new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode('{"head":'));
          init.signal?.addEventListener('abort', () => controller.error(init.signal?.reason));
        },
      });
      return new Response(body, { headers: { 'content-type': 'application/json' } });
    });
    const slow = createLiveEvidence(mirror, { cache: null, timeoutMs: 50 });
    const err = await slow.sparql('SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EvidenceError);
    expect(err).toMatchObject({ code: 'timeout' });
    expect((err as Error).message).toMatch(/did not finish its answer within/);
  });

  it('bounds a response that never ends in bytes: too_large once the cap is passed, and reading stops there', async () => {
    let sent = 0;
    const chunk = new TextEncoder().encode(`{"results":{"bindings":[${'{"a":{"type":"literal","value":"x"}},'.repeat(1_000)}`);
    fakeServer((url) => {
      // A query service that streams rows for ever, and an error page of the same kind on the Wikipedia endpoint.
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          sent += chunk.byteLength;
          controller.enqueue(chunk);
        },
      });
      return new Response(body, { status: url.pathname === '/sparql' ? 200 : 500, headers: { 'content-type': 'application/json' } });
    });
    const cap = 256 * 1024;
    const ev = createLiveEvidence(mirror, { cache: null, maxResponseBytes: cap, maxRetries: 0 });
    const err = await ev.sparql('SELECT ?a WHERE { ?a ?b ?c }').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EvidenceError);
    expect(err).toMatchObject({ code: 'too_large' });
    expect((err as Error).message).toContain('sent more than 256 KB');
    expect((err as Error).message).toContain('Ask for less');
    // The stream was cancelled near the cap (what the source had queued ahead is all that was pulled beyond it).
    expect(sent).toBeLessThan(cap + 4 * chunk.byteLength);

    sent = 0;
    const failed = await ev.search('x').catch((e: unknown) => e);
    expect(failed).toMatchObject({ code: 'upstream' });
    expect((failed as Error).message).toMatch(/HTTP 500: \{"results"/);
    expect(sent).toBeLessThan(4 * chunk.byteLength);
  });

  it('retries on 429 honouring Retry-After, then succeeds', async () => {
    let n = 0;
    const calls = fakeServer(() => (++n === 1 ? new Response('slow down', { status: 429, headers: { 'retry-after': '0' } }) : json({ query: { search: [] } })));
    expect(await live().search('x')).toEqual([]);
    expect(calls).toHaveLength(2);
  });

  it('gives up after the retries on persistent 5xx with an upstream error', async () => {
    const calls = fakeServer(() => new Response('down', { status: 503 }));
    const err = await live().search('x').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EvidenceError);
    expect((err as EvidenceError).code).toBe('upstream');
    expect((err as EvidenceError).message).toMatch(/HTTP 503/);
    expect(calls).toHaveLength(4);
  });

  it('never requests a host that is not configured', async () => {
    const calls = fakeServer(() => json({}));
    const ev = createLiveEvidence({ ...mirror, WIKIPEDIA_API_URL: 'http://127.0.0.1:9101/w/api.php' }, { cache: null });
    // a redirect to elsewhere is not followed
    vi.mocked(globalThis.fetch).mockImplementationOnce(async () => new Response(null, { status: 302, headers: { location: 'http://evil.example/' } }));
    await expect(ev.search('x')).rejects.toMatchObject({ code: 'upstream' });
    expect(calls.every((c) => c.url.host.startsWith('127.0.0.1'))).toBe(true);
    const http = liveHttp({ endpoints: [mirror.WIKIPEDIA_API_URL], userAgent: USER_AGENT, cache: null });
    const before = calls.length;
    await expect(http.getJson(new URL('http://evil.example/w/api.php'))).rejects.toMatchObject({ code: 'refused' });
    await expect(http.getJson(new URL('http://127.0.0.1:9101/other/path'))).rejects.toMatchObject({ code: 'refused' });
    expect(calls.length).toBe(before);
  });

  it('caches GET responses with the Cache API', async () => {
    const calls = fakeServer(() => json({ query: { search: [{ title: 'Cached', snippet: '' }] } }));
    const ev = createLiveEvidence(mirror, { cache: await caches.open('evidence-test'), cacheTtlSeconds: 60 });
    expect((await ev.search('cache me'))[0].title).toBe('Cached');
    expect((await ev.search('cache me'))[0].title).toBe('Cached');
    expect(calls).toHaveLength(1);
  });
});
