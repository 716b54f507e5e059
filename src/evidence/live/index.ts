import type { Config } from '../../config';
import { propertiesOf, toEntityId } from '../shared/entities';
import type { Evidence } from '../types';
import { entityLabels } from './entity-labels';
import { liveHttp, type HttpOptions } from './http';
import { mediaWikiApi } from './mediawiki-api';
import { queryService } from './query-service';
import { isWikimediaHost } from './wikimedia';

export const USER_AGENT = 'humaniq-answers/0.1 (factual question answering over Wikipedia and Wikidata; Cloudflare Worker)';

/**
 * Wikimedia's User-Agent policy asks for a name, a version and a way to reach the operator; WIKIMEDIA_CONTACT (an
 * e-mail address or URL, checked in src/config.ts) is that way. Without it the agent still names itself.
 * @example wikimediaUserAgent('ops@example.org') // 'humaniq-answers/0.1 (ops@example.org; factual question answering …)'
 */
export const wikimediaUserAgent = (contact?: string) => (contact ? USER_AGENT.replace('(', `(${contact}; `) : USER_AGENT);

type Endpoints = Pick<Config, 'WIKIPEDIA_API_URL' | 'WIKIDATA_SPARQL_URL' | 'WIKIDATA_API_URL'>;

/** The configured live endpoints that are Wikimedia's own services (not a mirror), by host. */
export const wikimediaHosts = (config: Endpoints): string[] =>
  [config.WIKIPEDIA_API_URL, config.WIKIDATA_SPARQL_URL, config.WIKIDATA_API_URL].map((u) => new URL(u).host).filter(isWikimediaHost);

export type LiveOptions = Partial<Omit<HttpOptions, 'endpoints'>> & {
  maxRows?: number;
  maxResultBytes?: number;
  maxTables?: number;
  /** Seconds of replication lag past which MediaWiki should refuse (and say how long to wait) instead of answering; 0 or absent sends none. */
  maxlag?: number;
};

/** Tables kept per page (a long list article has dozens; the read tool ranks what it gets against the question). */
const MAX_TABLES = 20;

/**
 * Evidence from Wikimedia (or a self-hosted mirror at the configured URLs), one adapter per API: the MediaWiki
 * Action API for search and pages (mediawiki-api.ts), the query service for SPARQL (query-service.ts, checked by the
 * same safety rules as the static store) and the entity API for labels (entity-labels.ts), all through one client.
 * Time cap: each request is aborted after `timeoutMs`; WDQS also stops queries itself after 60 s.
 */
export const createLiveEvidence = (config: Endpoints, options: LiveOptions = {}): Evidence => {
  const http = liveHttp({
    ...options,
    userAgent: options.userAgent ?? USER_AGENT,
    endpoints: [config.WIKIPEDIA_API_URL, config.WIKIDATA_SPARQL_URL, config.WIKIDATA_API_URL],
  });
  const wiki = mediaWikiApi(http, { api: config.WIKIPEDIA_API_URL, maxTables: options.maxTables ?? MAX_TABLES, maxlag: options.maxlag });
  const evidence: Evidence = {
    kind: 'live',
    search: wiki.search,
    page: wiki.page,
    async wikidataId(title) {
      return toEntityId(title) ?? wiki.pageItem(title);
    },
    sparql: queryService(http, { endpoint: config.WIKIDATA_SPARQL_URL, maxRows: options.maxRows ?? 1000, maxBytes: options.maxResultBytes ?? 512 * 1024 }),
    labels: entityLabels(http, { api: config.WIKIDATA_API_URL, maxlag: options.maxlag }),
    properties: (id, limit) => propertiesOf(evidence, id, limit),
    async health() {
      return { checked: false, message: 'live endpoints are not probed by /healthz; each request to them has a timeout and fails as a tool error' };
    },
  };
  return evidence;
};
