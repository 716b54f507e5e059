import type { Config } from '../../config';
import { isWikimediaHost } from '../../config-credentials';

export { isWikimediaHost } from '../../config-credentials';

/**
 * Wikimedia's API request limits per client and minute, counted across all its projects (mediawiki.org, "Wikimedia
 * APIs/Rate limits", rolled out from March 2026): a client known only by its IP, one whose User-Agent names its
 * operator's contact, and an authenticated account (experienced editors get 2,000; bot-flagged accounts are exempt).
 */
export const WIKIMEDIA_PER_MINUTE = { ip: 10, contact: 200, authenticated: 200 } as const;

/** The share of the published limit the gate uses by default: a margin for requests in flight and clocks that differ. */
const SHARE = 0.9;

export interface MediaWikiBudget {
  perMinute: number;
  /** The MediaWiki API hosts that share it (one gate for all of them). */
  hosts: string[];
  /** Where the figure comes from, for notes and docs. */
  source: 'MEDIAWIKI_REQUESTS_PER_MINUTE' | keyof typeof WIKIMEDIA_PER_MINUTE;
}

type BudgetConfig = Pick<Config, 'WIKIPEDIA_API_URL' | 'WIKIDATA_API_URL' | 'MEDIAWIKI_REQUESTS_PER_MINUTE' | 'WIKIMEDIA_CONTACT' | 'WIKIMEDIA_ACCESS_TOKEN'>;

/**
 * The per-minute request budget of the MediaWiki APIs (Wikipedia's, Wikidata's) and the hosts that share it. Set
 * explicitly, it covers both configured API hosts, mirrors included. Unset, it covers Wikimedia's own hosts only, at 90 %
 * of the limit Wikimedia publishes for this client: authenticated with WIKIMEDIA_ACCESS_TOKEN, identified by
 * WIKIMEDIA_CONTACT, or known only by its IP. A deploy that reads only from mirrors gets no budget.
 */
export const mediawikiBudget = (config: BudgetConfig): MediaWikiBudget | undefined => {
  const apiHosts = [...new Set([config.WIKIPEDIA_API_URL, config.WIKIDATA_API_URL].map((u) => new URL(u).host))].sort();
  if (config.MEDIAWIKI_REQUESTS_PER_MINUTE !== undefined) return { perMinute: config.MEDIAWIKI_REQUESTS_PER_MINUTE, hosts: apiHosts, source: 'MEDIAWIKI_REQUESTS_PER_MINUTE' };
  const hosts = apiHosts.filter(isWikimediaHost);
  if (!hosts.length) return undefined;
  const source = config.WIKIMEDIA_ACCESS_TOKEN ? 'authenticated' : config.WIKIMEDIA_CONTACT ? 'contact' : 'ip';
  return { perMinute: Math.floor(WIKIMEDIA_PER_MINUTE[source] * SHARE), hosts, source };
};

/**
 * The hosts WIKIMEDIA_ACCESS_TOKEN may go to: Wikimedia's own MediaWiki API hosts, never a mirror (it would hand the
 * token to whoever runs the mirror) and never the query service (which takes none).
 */
export const tokenHosts = (config: Pick<Config, 'WIKIPEDIA_API_URL' | 'WIKIDATA_API_URL' | 'WIKIMEDIA_ACCESS_TOKEN'>): string[] =>
  config.WIKIMEDIA_ACCESS_TOKEN ? [config.WIKIPEDIA_API_URL, config.WIKIDATA_API_URL].map((u) => new URL(u).host).filter(isWikimediaHost) : [];
