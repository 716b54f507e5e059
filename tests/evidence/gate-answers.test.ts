import { env } from 'cloudflare:workers';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config';
import { createEvidence } from '../../src/evidence';
import { createLiveEvidence } from '../../src/evidence/live';

/**
 * Only good answers are kept: a mirror that answers 200 with a MediaWiki error body, a query service error text, or a
 * body of another shape gives that request an error, and once it is fixed the next request reaches it, through the
 * shared cache of the politeness gates (the real PolitenessGate objects) and through the Cache API alike.
 */
const json = (body: unknown) => new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json' } });

/** A mirror of our own at fresh host names (each test its own gates and cache), answering with `answer` while it is broken. */
const brokenMirror = (broken: (url: URL) => Response | undefined) => {
  const id = crypto.randomUUID().slice(0, 8);
  const vars = {
    EVIDENCE: 'live',
    WIKIPEDIA_API_URL: `http://wiki-${id}.mirror.test/w/api.php`,
    WIKIDATA_SPARQL_URL: `http://wdqs-${id}.mirror.test/sparql`,
    WIKIDATA_API_URL: `http://wikidata-${id}.mirror.test/w/api.php`,
  };
  const state = { fixed: false, requests: [] as string[] };
  vi.spyOn(globalThis, 'fetch').mockImplementation(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(new Request(input, init).url);
    state.requests.push(url.host);
    const bad = state.fixed ? undefined : broken(url);
    if (bad) return bad;
    if (url.pathname === '/sparql') return json({ head: { vars: ['x'] }, results: { bindings: [{ x: { type: 'uri', value: 'http://www.wikidata.org/entity/Q64' } }] } });
    return json({ query: { search: [{ title: 'Berlin', snippet: 'capital of Germany' }] } });
  });
  return { vars, state };
};

const gated = (vars: Record<string, string>) => createEvidence(loadConfig(vars), { DB: env.DB, POLITENESS_GATE: env.POLITENESS_GATE as unknown as DurableObjectNamespace });

afterEach(() => vi.restoreAllMocks());

describe('what the shared cache keeps', () => {
  it('a 200 carrying a MediaWiki error body is an error, and is not served from the cache once the mirror is fixed', async () => {
    const { vars, state } = brokenMirror(() => json({ error: { code: 'internal_api_error_DBQueryError', info: 'A database query error has occurred.' }, servedby: 'mw1' }));
    const evidence = gated(vars);
    await expect(evidence.search('Berlin')).rejects.toMatchObject({ code: 'upstream', message: expect.stringContaining('the error internal_api_error_DBQueryError: A database query error has occurred.') });
    state.fixed = true;
    // Asked again, from a new run's evidence: the mirror answers it now, and that answer is what later runs get.
    expect((await gated(vars).search('Berlin'))[0].title).toBe('Berlin');
    expect((await gated(vars).search('Berlin'))[0].title).toBe('Berlin');
    expect(state.requests).toHaveLength(2);
  });

  it('a query service answer that breaks off into an error text is an error, and the fixed service is asked again', async () => {
    // What WDQS sends when a query times out after its results began: a 200 whose JSON ends in a Java stack trace.
    const { vars, state } = brokenMirror((url) =>
      url.pathname === '/sparql' ? new Response('{"head":{"vars":["x"]},"results":{"bindings":[\njava.util.concurrent.TimeoutException\n\tat java.util.concurrent.FutureTask.get', { status: 200 }) : undefined,
    );
    const query = 'SELECT ?x WHERE { wd:Q183 wdt:P36 ?x . }';
    await expect(gated(vars).sparql(query)).rejects.toMatchObject({ code: 'upstream', message: expect.stringContaining('not JSON') });
    state.fixed = true;
    expect((await gated(vars).sparql(query)) as { results: { bindings: unknown[] } }).toMatchObject({ results: { bindings: [expect.anything()] } });
    expect(state.requests).toHaveLength(2);
  });

  it('a 200 of another shape (no search results, no SPARQL head) is an error and not kept; a good answer is', async () => {
    const { vars, state } = brokenMirror((url) => json(url.pathname === '/sparql' ? { ok: true } : { batchcomplete: true }));
    await expect(gated(vars).search('Paris')).rejects.toThrow(/without its "query" member/);
    await expect(gated(vars).sparql('SELECT ?x WHERE { wd:Q90 wdt:P17 ?x . }')).rejects.toThrow(/no SPARQL results/);
    state.fixed = true;
    await gated(vars).search('Paris');
    await gated(vars).search('Paris');
    expect(state.requests).toHaveLength(3);
  });

  it('EVIDENCE_CACHE_TTL_SECONDS=0 keeps nothing: every request reaches the host', async () => {
    const { vars, state } = brokenMirror(() => undefined);
    const evidence = gated({ ...vars, EVIDENCE_CACHE_TTL_SECONDS: '0' });
    await evidence.search('Rome');
    await evidence.search('Rome');
    expect(state.requests).toHaveLength(2);
  });

  it('without a gate, the Cache API keeps the good answer and never the error body', async () => {
    const { vars, state } = brokenMirror(() => json({ error: { code: 'readonly', info: 'The wiki is in read-only mode.' } }));
    const cache = await caches.open(`answers-${crypto.randomUUID()}`);
    const evidence = createLiveEvidence(loadConfig(vars), { cache, cacheTtlSeconds: 60, maxRetries: 0 });
    await expect(evidence.search('Vienna')).rejects.toThrow(/the error readonly/);
    state.fixed = true;
    expect((await evidence.search('Vienna'))[0].title).toBe('Berlin');
    expect((await evidence.search('Vienna'))[0].title).toBe('Berlin');
    expect(state.requests).toHaveLength(2);
  });
});
