import type { Config } from '../../config';
import { askHold, type Gate, type GateNamespace } from '../../net/politeness/pass';
import type { GateHold, GatePolicy } from '../../net/politeness/policy';
import { mediawikiBudget } from './wikimedia';

export type { GateNamespace } from '../../net/politeness/pass';

type PolicyConfig = Pick<
  Config,
  | 'WIKIPEDIA_API_URL' | 'WIKIDATA_API_URL' | 'WIKIDATA_SPARQL_URL' | 'POLITENESS' | 'WDQS_QUERY_SECONDS_PER_MINUTE'
  | 'WDQS_ERRORS_PER_MINUTE' | 'WDQS_CONCURRENCY' | 'MEDIAWIKI_CONCURRENCY' | 'POLITENESS_MAX_WAIT_MS' | 'POLITENESS_MAX_BACKOFF_MS'
  | 'MEDIAWIKI_REQUESTS_PER_MINUTE' | 'WIKIMEDIA_CONTACT' | 'WIKIMEDIA_ACCESS_TOKEN'
>;

/** A gate of the live evidence: the name of its Durable Object and the policy it enforces. */
export interface LiveGate {
  name: string;
  policy: GatePolicy;
  /** The hosts behind it (the MediaWiki APIs that share Wikimedia's per-minute budget share one gate). */
  hosts: string[];
}

/**
 * The gate of each live endpoint, by host and path: the query service gets WDQS's budgets of query time and errors
 * per minute and its concurrency; the MediaWiki Action APIs (Wikipedia, Wikidata's api.php) serial requests and, when
 * they share Wikimedia's per-minute request budget, one gate for both, since Wikimedia counts a client across its
 * projects. A gate is one per host; a mirror that serves two of the APIs on one host gets one per API there, so each
 * keeps its own policy. A pass lives a little longer than one request may take, so a run that dies mid-request frees
 * its slot soon after.
 */
export const liveGates = (config: PolicyConfig, requestTimeoutMs: number): Map<string, LiveGate> => {
  const base = { enforce: config.POLITENESS !== 'off', leaseMs: requestTimeoutMs + 5_000, maxBackoffMs: config.POLITENESS_MAX_BACKOFF_MS };
  const budget = mediawikiBudget(config);
  const urls = [config.WIKIPEDIA_API_URL, config.WIKIDATA_API_URL, config.WIKIDATA_SPARQL_URL].map((u) => new URL(u));
  const shared = (u: URL) => new Set(urls.filter((o) => o.host === u.host).map(endpointOf)).size > 1;
  const ownName = (u: URL) => (shared(u) ? `host:${endpointOf(u)}` : `host:${u.host}`);
  const gates = new Map<string, LiveGate>();
  for (const api of urls.slice(0, 2)) {
    const policy = { ...base, concurrency: config.MEDIAWIKI_CONCURRENCY };
    gates.set(
      endpointOf(api),
      budget?.hosts.includes(api.host)
        ? { name: `mediawiki:${budget.hosts.join('+')}`, policy: { ...policy, requestsPerMinute: budget.perMinute }, hosts: budget.hosts }
        : { name: ownName(api), policy, hosts: [api.host] },
    );
  }
  const wdqs = urls[2];
  gates.set(endpointOf(wdqs), {
    name: ownName(wdqs),
    policy: { ...base, concurrency: config.WDQS_CONCURRENCY, queryMsPerMinute: config.WDQS_QUERY_SECONDS_PER_MINUTE * 1000, errorsPerMinute: config.WDQS_ERRORS_PER_MINUTE },
    hosts: [wdqs.host],
  });
  return gates;
};

/** Host and path: the key of a live endpoint's gate. */
const endpointOf = (u: URL) => `${u.host}${u.pathname}`;

/** The gate of a URL's host, for liveHttp's `gateFor`. */
export const gatesFor = (config: PolicyConfig, ns: GateNamespace, requestTimeoutMs: number) => {
  const gates = liveGates(config, requestTimeoutMs);
  return (url: URL): Gate | undefined => {
    const gate = gates.get(endpointOf(url));
    if (!gate) return undefined;
    return { backend: ns.get(ns.idFromName(gate.name)), policy: gate.policy, host: url.host, maxWaitMs: config.POLITENESS_MAX_WAIT_MS };
  };
};

/** The live hosts their gates hold back right now (a Retry-After or maxlag still running), for /healthz. */
export const heldHosts = async (config: PolicyConfig, ns: GateNamespace): Promise<Array<{ host: string; hold: GateHold }>> => {
  if (config.POLITENESS === 'off') return [];
  const byName = new Map([...liveGates(config, 15_000).values()].map((g) => [g.name, g]));
  const holds = await Promise.all([...byName.values()].map(async (g) => ({ host: g.hosts.join(' and '), hold: await askHold(ns.get(ns.idFromName(g.name)), g.policy) })));
  return holds.filter((h): h is { host: string; hold: GateHold } => !!h.hold && h.hold.ms > 0);
};
