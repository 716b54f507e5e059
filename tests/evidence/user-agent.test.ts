import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config';
import { createEvidence } from '../../src/evidence';
import { deployedStyle } from '../public/helpers';
import { createMediaWikiStandIn, createWdqsStandIn } from '../support/wikimedia-standins.mjs';

/** Wikimedia's public hosts answered by the stand-ins, which count User-Agents that give no way to reach the operator. */
const wikimedia = () => {
  const wdqs = createWdqsStandIn();
  const wiki = createMediaWikiStandIn();
  vi.spyOn(globalThis, 'fetch').mockImplementation(async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    return new URL(request.url).host === 'query.wikidata.org' ? wdqs.handle(request) : wiki.handle(request);
  });
  return { wdqs, wiki };
};

const ask = async (vars: Record<string, string>) => {
  const evidence = createEvidence(loadConfig({ EVIDENCE: 'live', ...vars }), { DB: undefined as unknown as D1Database }, { live: { cache: null } });
  await evidence.search('Douglas Adams');
  await evidence.sparql('SELECT ?x WHERE { wd:Q42 wdt:P19 ?x . }');
};

const health = async (vars: Record<string, string>) => (await (await deployedStyle(vars)('/healthz')).json()) as { warnings?: string[] };

afterEach(() => vi.restoreAllMocks());

describe('a User-Agent Wikimedia can reach the operator by', () => {
  it('carries WIKIMEDIA_CONTACT on every request to the query service and the MediaWiki API', async () => {
    const { wdqs, wiki } = wikimedia();
    await ask({ WIKIMEDIA_CONTACT: 'ops@example.org' });
    expect(wdqs.stats()).toMatchObject({ requests: 1, withoutUserAgent: 0, withoutContact: 0 });
    expect(wiki.stats()).toMatchObject({ requests: 1, withoutUserAgent: 0, withoutContact: 0 });
    const agent = new Headers((vi.mocked(fetch).mock.calls[0][1] as RequestInit).headers).get('user-agent');
    expect(agent).toMatch(/^humaniq-answers\/0\.1 \(ops@example\.org; /);
  });

  it('without the contact the requests still name the client, and the stand-ins count what is missing', async () => {
    const { wdqs, wiki } = wikimedia();
    await ask({});
    expect(wdqs.stats()).toMatchObject({ withoutUserAgent: 0, withoutContact: 1 });
    expect(wiki.stats()).toMatchObject({ withoutUserAgent: 0, withoutContact: 1 });
  });

  it('/healthz warns while live evidence goes to Wikimedia without a contact, and not for a mirror or once it is set', async () => {
    const [missing] = (await health({ EVIDENCE: 'live', WIKIMEDIA_CONTACT: '' })).warnings ?? [];
    expect(missing).toContain('set WIKIMEDIA_CONTACT');
    expect(missing).toContain('query.wikidata.org');
    // What it costs: Wikimedia's limit for a client known only by its IP, and the gate keeping under it.
    expect(missing).toMatch(/about 10 API requests a minute, so the gate sends at most 9 a minute to en\.wikipedia\.org and www\.wikidata\.org/);
    expect((await health({ EVIDENCE: 'live', WIKIMEDIA_CONTACT: 'https://example.org/contact' })).warnings).toBeUndefined();
    const mirror = { WIKIPEDIA_API_URL: 'http://127.0.0.1:9101/w/api.php', WIKIDATA_SPARQL_URL: 'http://127.0.0.1:9102/sparql', WIKIDATA_API_URL: 'http://127.0.0.1:9103/w/api.php' };
    expect((await health({ EVIDENCE: 'live', ...mirror })).warnings).toBeUndefined();
    expect((await health({ EVIDENCE: 'static' })).warnings).toBeUndefined();
  });

  it('/healthz also warns when the gate is switched off in front of Wikimedia', async () => {
    const { warnings } = await health({ EVIDENCE: 'live', WIKIMEDIA_CONTACT: 'ops@example.org', POLITENESS: 'off' });
    expect(warnings).toEqual([expect.stringContaining('POLITENESS=off')]);
  });

  it('refuses a contact that is neither an e-mail address nor a URL, naming the variable', () => {
    expect(() => loadConfig({ WIKIMEDIA_CONTACT: 'call me' })).toThrow(ConfigError);
    expect(() => loadConfig({ WIKIMEDIA_CONTACT: 'call me' })).toThrow(/WIKIMEDIA_CONTACT must be an e-mail address or an http\(s\) URL/);
  });
});
