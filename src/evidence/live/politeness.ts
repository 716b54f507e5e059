import type { Config } from '../../config';
import type { GateClient, GateNamespace } from '../../net/politeness/pass';
import type { GatePolicy } from '../../net/politeness/policy';

export type { GateNamespace } from '../../net/politeness/pass';

/** What a run adds to the gates: its signal (a wait ends with the run) and where its waits are told. */
export interface GateCaller {
  signal?: AbortSignal;
  onWait?: (note: string, ms: number) => void;
}

type PolicyConfig = Pick<
  Config,
  | 'WIKIPEDIA_API_URL' | 'WIKIDATA_API_URL' | 'WIKIDATA_SPARQL_URL' | 'POLITENESS' | 'WDQS_QUERY_SECONDS_PER_MINUTE'
  | 'WDQS_ERRORS_PER_MINUTE' | 'WDQS_CONCURRENCY' | 'MEDIAWIKI_CONCURRENCY' | 'POLITENESS_MAX_WAIT_MS'
>;

/**
 * The policy of each live host: the query service gets WDQS's budgets of query time and errors per minute and its
 * concurrency; the MediaWiki Action APIs (Wikipedia, Wikidata's api.php) serial requests. A pass lives a little
 * longer than one request may take, so a run that dies mid-request frees its slot soon after.
 */
export const hostPolicies = (config: PolicyConfig, requestTimeoutMs: number): Map<string, GatePolicy> => {
  const enforce = config.POLITENESS !== 'off';
  const leaseMs = requestTimeoutMs + 5_000;
  const policies = new Map<string, GatePolicy>();
  for (const api of [config.WIKIPEDIA_API_URL, config.WIKIDATA_API_URL]) {
    policies.set(new URL(api).host, { concurrency: config.MEDIAWIKI_CONCURRENCY, leaseMs, enforce });
  }
  policies.set(new URL(config.WIKIDATA_SPARQL_URL).host, {
    concurrency: config.WDQS_CONCURRENCY,
    queryMsPerMinute: config.WDQS_QUERY_SECONDS_PER_MINUTE * 1000,
    errorsPerMinute: config.WDQS_ERRORS_PER_MINUTE,
    leaseMs,
    enforce,
  });
  return policies;
};

/** The gate of a URL's host, for liveHttp's `gateFor`. */
export const gatesFor = (config: PolicyConfig, ns: GateNamespace, caller: GateCaller, requestTimeoutMs: number) => {
  const policies = hostPolicies(config, requestTimeoutMs);
  return (url: URL): GateClient | undefined => {
    const policy = policies.get(url.host);
    if (!policy) return undefined;
    return {
      backend: ns.get(ns.idFromName(`host:${url.host}`)),
      policy,
      host: url.host,
      maxWaitMs: config.POLITENESS_MAX_WAIT_MS,
      signal: caller.signal,
      onWait: caller.onWait,
    };
  };
};
