import { vi } from 'vitest';

interface Handles {
  handle(request: Request): Response | Promise<Response>;
}

/**
 * Answers Wikimedia's public hosts (the test build's default endpoints) with stand-ins through a fetch spy: the query
 * service, Wikipedia's API and Wikidata's API each by its own; any other host is an error the test sees.
 */
export const answerWikimediaHosts = (hosts: { wdqs: Handles; wikipedia: Handles; wikidataApi: Handles }) =>
  vi.spyOn(globalThis, 'fetch').mockImplementation(async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    const host = new URL(request.url).host;
    if (host === 'query.wikidata.org') return hosts.wdqs.handle(request);
    if (host === 'en.wikipedia.org') return hosts.wikipedia.handle(request);
    if (host === 'www.wikidata.org') return hosts.wikidataApi.handle(request);
    throw new TypeError(`unexpected host ${host}`);
  });
