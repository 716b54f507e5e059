import { env } from 'cloudflare:workers';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config';
import { createEvidence } from '../../src/evidence';
import { liveGates } from '../../src/evidence/live/politeness';
import { mediawikiBudget } from '../../src/evidence/live/wikimedia';
import { createMediaWikiStandIn, createPerMinuteLimit, createWdqsStandIn } from '../support/wikimedia-standins.mjs';

/**
 * Wikimedia's 2026 per-minute API limits: one budget for Wikipedia's and Wikidata's API hosts together (Wikimedia
 * counts a client across its projects), kept by the politeness gate under the published figure, against stand-ins
 * that enforce the limit with 429 + Retry-After; and the access token that raises it, sent to Wikimedia's API hosts only.
 */
const hosts = () => {
  const id = crypto.randomUUID().slice(0, 8);
  return {
    WIKIPEDIA_API_URL: `http://wiki-${id}.mirror.test/w/api.php`,
    WIKIDATA_API_URL: `http://wikidata-${id}.mirror.test/w/api.php`,
    WIKIDATA_SPARQL_URL: `http://wdqs-${id}.mirror.test/sparql`,
  };
};

/** Stand-ins at the given hosts; the two MediaWiki APIs share one per-minute limit, as Wikimedia's do. */
const standIns = (urls: Record<string, string>, perMinute: number) => {
  const limit = createPerMinuteLimit(perMinute);
  const wiki = createMediaWikiStandIn({ perMinute: limit, latencyMs: 1 });
  const wikidataApi = createMediaWikiStandIn({ perMinute: limit, latencyMs: 1 });
  const wdqs = createWdqsStandIn();
  const seen: Array<{ host: string; authorization: string | null }> = [];
  vi.spyOn(globalThis, 'fetch').mockImplementation(async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    const host = new URL(request.url).host;
    seen.push({ host, authorization: request.headers.get('authorization') });
    if (host === new URL(urls.WIKIPEDIA_API_URL).host) return wiki.handle(request);
    if (host === new URL(urls.WIKIDATA_API_URL).host) return wikidataApi.handle(request);
    return wdqs.handle(request);
  });
  return { limit, seen };
};

const live = (vars: Record<string, string>) => createEvidence(loadConfig({ EVIDENCE: 'live', ...vars }), { DB: env.DB, POLITENESS_GATE: env.POLITENESS_GATE as unknown as DurableObjectNamespace });

afterEach(() => vi.restoreAllMocks());

describe("Wikimedia's per-minute request budget", () => {
  it('defaults to 90 % of the published limit for this client, on Wikimedia hosts only', () => {
    const budget = (vars: Record<string, string>) => mediawikiBudget(loadConfig(vars));
    expect(budget({})).toEqual({ perMinute: 9, hosts: ['en.wikipedia.org', 'www.wikidata.org'], source: 'ip' });
    expect(budget({ WIKIMEDIA_CONTACT: 'ops@example.org' })).toMatchObject({ perMinute: 180, source: 'contact' });
    expect(budget({ WIKIMEDIA_ACCESS_TOKEN: 'tok-123456' })).toMatchObject({ perMinute: 180, source: 'authenticated' });
    expect(budget({ WIKIMEDIA_ACCESS_TOKEN: 'tok-123456', MEDIAWIKI_REQUESTS_PER_MINUTE: '1800' })).toMatchObject({ perMinute: 1800 });
    expect(budget(hosts())).toBeUndefined();
  });

  it('is shared by the Wikipedia and Wikidata APIs and released through the minute: a request with no token left waits at the gate, unsent', async () => {
    const urls = hosts();
    const { limit, seen } = standIns(urls, 20);
    // 12 a minute: a burst of 1, then one every 5.5 s; a request may wait 2.5 s here. Wikipedia's search takes the
    // burst, so Wikidata's request (the same budget: Wikimedia counts a client across its projects) is not sent.
    const evidence = live({ ...urls, MEDIAWIKI_REQUESTS_PER_MINUTE: '12', POLITENESS_MAX_WAIT_MS: '2500' });
    await evidence.search('Ada Lovelace');
    await expect(evidence.labels(['Q7259'])).rejects.toMatchObject({
      code: 'backoff',
      message: expect.stringMatching(/not sent to wikidata-.*: the minute's request budget was spent \(the budget is 12 a minute, 1 at once and then one every 5\.5 s \(MEDIAWIKI_REQUESTS_PER_MINUTE\)\)/),
    });
    expect(seen).toHaveLength(1);
    expect(limit.stats()).toMatchObject({ admitted: 1, overBudget: 0, insideRetryAfter: 0 });
  });

  it('the stand-in enforces the limit itself: a client without the gate gets 429 with Retry-After', async () => {
    const urls = hosts();
    const { limit } = standIns(urls, 2);
    const evidence = live({ ...urls, POLITENESS: 'off' });
    await evidence.search('one');
    await evidence.labels(['Q1']);
    await expect(evidence.search('three')).rejects.toThrow(/HTTP 429 \(it asked clients to wait \d+ s\)/);
    expect(limit.stats()).toMatchObject({ admitted: 2, overBudget: 1 });
  });

  it("sends WIKIMEDIA_ACCESS_TOKEN to Wikimedia's API hosts only, never to the query service or a mirror, and scrubs it", async () => {
    const token = `wm-token-${crypto.randomUUID()}`;
    const { seen } = standIns({ WIKIPEDIA_API_URL: 'https://en.wikipedia.org/w/api.php', WIKIDATA_API_URL: 'https://www.wikidata.org/w/api.php' }, 1000);
    const evidence = live({ WIKIMEDIA_ACCESS_TOKEN: token, WIKIMEDIA_CONTACT: 'ops@example.org' });
    await evidence.search('Douglas Adams');
    await evidence.labels(['Q42']);
    await evidence.sparql('SELECT ?x WHERE { wd:Q42 wdt:P19 ?x . }');
    expect(seen.map((s) => [s.host, s.authorization])).toEqual([
      ['en.wikipedia.org', `Bearer ${token}`],
      ['www.wikidata.org', `Bearer ${token}`],
      ['query.wikidata.org', null],
    ]);
    const mirrored = hosts();
    const { seen: atMirror } = standIns(mirrored, 1000);
    await live({ ...mirrored, WIKIMEDIA_ACCESS_TOKEN: token }).search('mirror');
    expect(atMirror.map((s) => s.authorization)).toEqual([null]);
    expect(loadConfig({ WIKIMEDIA_ACCESS_TOKEN: token }).secrets).toContain(token);
  });

  it('a mirror serving every API on one host gets a gate per API there, each with its own policy', () => {
    const one = 'http://127.0.0.1:9101';
    const gates = liveGates(loadConfig({ WIKIPEDIA_API_URL: `${one}/w/api.php`, WIKIDATA_API_URL: `${one}/wikidata/w/api.php`, WIKIDATA_SPARQL_URL: `${one}/sparql` }), 15_000);
    const of = (path: string) => gates.get(`127.0.0.1:9101${path}`)!;
    expect(new Set([...gates.values()].map((g) => g.name)).size).toBe(3);
    expect(of('/w/api.php').policy).toMatchObject({ concurrency: 3 });
    expect(of('/w/api.php').policy.requestsPerMinute).toBeUndefined();
    expect(of('/sparql').policy).toMatchObject({ concurrency: 5, queryMsPerMinute: 50_000 });
  });
});
