import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMediaWikiStandIn, createPerMinuteLimit } from '../support/wikimedia-standins.mjs';
import { deployedStyle } from '../public/helpers';

/**
 * Issue 41, item 3, through HTTP with two API keys against a MediaWiki stand-in that enforces the per-minute limit
 * with 429 + Retry-After. The issue: with the budget counted over a sliding minute, one key's burst spent the whole
 * minute in its first second and another key's run of three searches then waited about a minute per search. The
 * budget is now a token bucket (a burst of a tenth, the rest spread through the minute) whose tokens the gate hands
 * out in turn across keys, so a key that asks one thing at a time gets every other token while another key floods.
 */
const id = () => crypto.randomUUID().slice(0, 8);

afterEach(() => vi.restoreAllMocks());

describe("a per-minute budget spread over its minute and shared between keys", () => {
  it("key B's three sequential searches are all answered while key A floods past the budget; the limit is never breached", { timeout: 60_000 }, async () => {
    const host = `wiki-${id()}.mirror.test`;
    const limit = createPerMinuteLimit(20);
    const wiki = createMediaWikiStandIn({ perMinute: limit, latencyMs: 20 });
    const order: string[] = [];
    vi.spyOn(globalThis, 'fetch').mockImplementation(async (input: RequestInfo | URL, init?: RequestInit) => {
      const request = new Request(input, init);
      const q = new URL(request.url).searchParams.get('srsearch');
      if (q) order.push(q);
      return wiki.handle(request);
    });
    // 20 a minute: a burst of 2, then one every 3.3 s. A request waits at most 15 s at the gate, so most of A's 25 are
    // refused unsent — and B's are not among them.
    const call = deployedStyle({
      API_KEYS: 'key-a,key-b',
      EVIDENCE: 'live',
      WIKIPEDIA_API_URL: `http://${host}/w/api.php`,
      WIKIDATA_API_URL: `http://wikidata-${id()}.mirror.test/w/api.php`,
      WIKIDATA_SPARQL_URL: `http://wdqs-${id()}.mirror.test/sparql`,
      MEDIAWIKI_REQUESTS_PER_MINUTE: '20',
      POLITENESS_MAX_WAIT_MS: '15000',
      RATE_LIMIT_PER_MINUTE: '1000',
    });
    const search = async (key: string, q: string) => {
      const res = await call('/v1/tools/wikisearch', { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body: JSON.stringify({ input: q }) });
      return (await res.json()) as { output?: string; error?: { message: string } };
    };
    const flood = Array.from({ length: 25 }, (_, i) => search('key-a', `flood a${i}`));
    while (!order.length) await new Promise((r) => setTimeout(r, 10));
    const b: Array<{ output?: string; error?: { message: string } }> = [];
    for (const q of ['sequential b1', 'sequential b2', 'sequential b3']) b.push(await search('key-b', q));
    const a = await Promise.all(flood);

    for (const [i, r] of b.entries()) expect(r.output, JSON.stringify(r)).toMatch(new RegExp(`^(?!Error).*sequential b${i + 1}`, 's'));
    // A got the burst and its turns between B's; what the budget could not serve within 15 s was not sent at all.
    const aSent = order.filter((q) => q.startsWith('flood'));
    expect(aSent.length).toBeGreaterThanOrEqual(3);
    expect(aSent.length).toBeLessThan(25);
    const refused = a.filter((r) => /not sent/.test(r.output ?? ''));
    expect(refused.length).toBe(25 - aSent.length);
    expect(refused[0]!.output).toMatch(/not sent to wiki-.*the minute's request budget was spent \(the budget is 20 a minute, 2 at once and then one every 3\.3 s/);
    // B's turns came between A's: after its first search, each of B's waited behind at most one of A's.
    const bAt = ['sequential b1', 'sequential b2', 'sequential b3'].map((q) => order.indexOf(q));
    expect(bAt[1]! - bAt[0]!).toBeLessThanOrEqual(2);
    expect(bAt[2]! - bAt[1]!).toBeLessThanOrEqual(2);
    expect(limit.stats()).toMatchObject({ overBudget: 0, insideRetryAfter: 0 });
    expect(limit.stats().peakPerMinute).toBeLessThanOrEqual(20);
  });
});
